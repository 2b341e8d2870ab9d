// What the desk page shows, as the gateway last heard it from the engine:
// every book's values, each book's key-rate ladder, the totals, the last
// events and the engine's figures, and whether the engine is reachable.
//
// Model: each change stamps what it touched with a new version. A browser's
// stream remembers the version of its last message and asks for what
// changed since (message(since, ...)); since = 0 asks for everything. So a
// stream that falls behind skips straight to the latest values (updates are
// conflated), and a message costs in proportion to what changed.
//
// The selected book's largest positions are kept only while a stream shows
// that book: each stream holds its book from show_positions to
// hide_positions (so at most one book a stream), and the feed asks the
// engine (top-positions) for the shown outright books whose values changed
// since it last asked (positions_due), never for the others.
//
// Thread-safe: the engine feed's thread writes, any number of HTTP threads
// read and wait.
// Owns copies of everything it shows; the web command owns it, and the
// EngineFeed and HttpGateway that borrow it are destroyed first.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "base/json.h"
#include "bond_risk/protocol/messages.h"

namespace bond_risk::web {

class DeskState {
 public:
  static constexpr std::size_t kShownLimits = 12, kKeptAlerts = 50;

  // The engine on `socket` was reached (the event number, the events and the
  // figures start again from what it says: it may be another engine, on a
  // restored database), or could not be (`error` says why).
  void connected(const std::string& socket);
  void disconnected(const std::string& socket, const std::string& error);

  // The engine's list-books reply: names by id. A book no longer listed is removed.
  void set_books(const std::vector<protocol::BookEntry>& books);
  // A watch update line's "update" member: {"id","type","status",...,"key_rates":[...]}.
  void update(const base::Json& values);
  // A last-events reply's "events", oldest first: [{"seq",...}, ...].
  void add_events(const base::Json& events);
  // Figures from the engine's stats reply, and the events per second the feed measured.
  void set_figures(const protocol::EngineFigures& stats, double events_per_second);
  // The latest event number the engine mentioned.
  void saw_event(std::int64_t event);
  // A stream shows book `name`'s positions from the first call to the second.
  void show_positions(const std::string& name);
  void hide_positions(const std::string& name);
  // The ids of the shown outright books whose values changed since their
  // positions were last asked for (or never were), marked asked.
  std::vector<std::int64_t> positions_due();
  // The engine's top-positions reply for book `id`: {"id","positions":[...],...}.
  void set_positions(std::int64_t id, const base::Json& reply);

  // The engine's explain reply (every book and the total): what the page's
  // waterfalls show (the selected book's and the total's).
  void set_explain(const base::Json& reply);

  // The engine's limits reply (the worst first, and the count in each
  // state): the page's limits panel shows the first kShownLimits.
  void set_limits(const base::Json& reply);
  // A watch line's "alert" member (a limit's change of state): the page's
  // event feed keeps the last kKeptAlerts.
  void add_alert(const base::Json& alert);

  // `books` listed books no watch follows (`why`: the engine's reason); 0 and "" when every one is.
  void set_unwatched(std::size_t books, const std::string& why);

  // What /healthz and /metrics report: whether the feed reaches the engine
  // (and why not), and the figures of the engine's last stats reply since
  // it was reached (has_figures false before one came).
  struct Health {
    bool connected = false;
    std::string error;  // why not connected ("" before the first attempt)
    bool has_figures = false;
    std::int64_t event = 0, results_as_of = 0, resident_kb = 0;
    // Each recalculation's and durable commit's seconds since the engine started.
    std::optional<protocol::HistogramFigures> recalc_seconds, commit_seconds;
  };
  Health health() const;

  std::size_t books() const;
  std::int64_t last_event_seq() const;  // of the events added, 0 when none

  // What changed since version `since` (0: everything) as one JSON object,
  // with the ladder of the book named `selected` when it changed:
  //   {"full", "engine":{"connected","socket","error"}, "as_of_event", "error",
  //    "rows":[{"id","name","type","status","reason", values...}] (changed books, without ladders),
  //    "ladder":{"name","id","type","points":[...]},
  //    "positions":{"name","id","positions":[{"trade":{...},"bond":{...}}, ...]} (as top-positions replies them),
  //    "pnl_explain":{"total":{"name","day_pnl","causes":[...]}, and the selected book's likewise} (as the
  //                   engine explains them; when either changed),
  //    "risk_limits":{"shown":[the worst limits, as `limits` replies them],"states":{"BREACHED":n,...}} (when
  //              they changed), "alerts":[alerts, as `watch limits` pushes them],
  //    "removed":[ids],
  //    "totals":{"outright":{"pv","pv01","cs01","pnl","day_pnl","books"},"repo":{"margin","mtm_pnl","day_pnl",
  //              "books"},"not_ok",
  //              "complete","missing"},
  //    "events":[last-events entries], "figures":{"events_per_s","recalc_us","event","results_as_of",
  //    "results_lag"}, "sent_ms"}
  // The positions come when they changed and some stream shows `selected`.
  // "error" says what the page cannot show ("" when nothing); "complete" is
  // false while "missing" listed books have no values (not yet, or unwatched):
  // the totals leave them out. After connected(), every stream gets everything.
  // Sets *version to the version the message reflects.
  std::string message(std::uint64_t since, const std::string& selected, std::uint64_t* version) const;

  // Waits until something changed after `since`, stop() was called or
  // `timeout` passed; returns the current version.
  std::uint64_t wait_past(std::uint64_t since, std::chrono::milliseconds timeout) const;
  // Wakes every waiter for good (the gateway is stopping).
  void stop();
  bool stopping() const;

 private:
  struct Book {
    std::string name, type;
    bool has_values = false;
    std::string row;     // {"id","name","type","status",...values}, serialised
    std::string ladder;  // {"name","id","type","points":[...]}, serialised
    bool ok = false;
    double pv = 0, pv01 = 0, cs01 = 0, pnl = 0, margin = 0, mtm_pnl = 0, day_pnl = 0;
    std::string explain;  // {"name","day_pnl","causes":[...]}, serialised; "" before an explain reply
    std::uint64_t changed = 0, ladder_changed = 0, explain_changed = 0;  // versions
  };
  // A book some streams show, by name.
  struct Positions {
    std::size_t streams = 0;  // showing it
    std::uint64_t asked = 0;  // the book's version when its positions were last asked for (0: not since connected)
    std::string text;         // {"name","id","positions":[...]}, serialised; "" before a reply
    std::uint64_t changed = 0;
  };
  struct Stamped {
    std::uint64_t version;
    base::Json value;
  };

  std::uint64_t bump();  // the next version, with the lock held; wakes the waiters
  // Forgets a book gone at `version` (and its positions), with the lock held; the next book.
  std::map<std::int64_t, Book>::iterator erase(std::map<std::int64_t, Book>::iterator book, std::uint64_t version);
  base::Json totals() const;

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::uint64_t version_ = 1;
  bool stopping_ = false;
  std::map<std::int64_t, Book> books_;           // by id
  std::map<std::string, std::int64_t> ids_;      // the books' ids by name
  std::map<std::string, Positions> positions_;   // of the books streams show, by name
  std::deque<std::pair<std::uint64_t, std::int64_t>> removed_;  // (version, id), the last kKeptRemoved
  std::deque<Stamped> events_;                   // the last kKeptEvents
  std::deque<Stamped> alerts_;                   // the last kKeptAlerts
  Stamped limits_{0, nullptr};                   // {"shown","states"}
  Stamped explain_total_{0, nullptr};            // the total's explain, as the book's
  Stamped figures_{0, base::Json::object()};
  Stamped engine_{0, base::Json::object()};
  std::int64_t as_of_event_ = 0;
  std::int64_t resident_kb_ = 0;  // the engine's, from its last stats reply
  std::optional<protocol::HistogramFigures> recalc_seconds_, commit_seconds_;  // likewise
  std::uint64_t restarted_ = 0;  // the version of the last connected()
  std::string unwatched_;        // the books no watch follows, said for the page
};

}  // namespace bond_risk::web
