// The measurements of bond_risk bench-events: series of event latencies in
// microseconds, taken in process on a LiveModel (the clock around apply and
// recalculate) or end to end through a running engine's socket (the clock
// from writing the line, or from when it was due, to reading its reply,
// which leaves only after the durable commit).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "base/unix_socket.h"
#include "base/sqlite.h"
#include "bond_risk/live/live_model.h"
#include "bond_risk/model/inputs/changes.h"
#include "bond_risk/model/store/stored_rows.h"

namespace bond_risk {

struct Series {
  std::string name;  // an identifier: amend_in_process, bump_end_to_end, ...
  std::vector<double> micros;
};

// Each change in turn on the engine's road (live/stages/engine_stages.h): its
// stages asked, applied to the model (prepared and committed, no input row
// persisted, no event logged), recalculated, and every stage's work done,
// as the engine does; the stages' rows are written to `db` after each
// event's clock stops, as the engine writes them with the event's own
// rows (db holds the schema; rows are the input database's, for the
// changes' look-ups). The clock runs around all of it but the writing of
// alerts (`events`), and the parts are read from the stages' phase times
// in the same events (so a part's share holds on a noisy host).
struct InProcess {
  Series events, recalculation, explain, limit_checks;  // named WHAT_in_process, WHAT_recalculation_in_process, ...
  std::size_t nodes = 0;                                // the last change recalculated
};
InProcess in_process(const std::string& what, LiveModel& model, const StoredRows& rows, base::Database& db,
                     const std::vector<Change>& changes);

// `count` full flushes of the model (the yardstick of the in-process events).
Series full_flushes(LiveModel& model, std::size_t count);

// What an open-loop run returns: the latencies, the rate replies came at
// (from the first to the last: the offered rate while the engine keeps up),
// and the replies themselves when asked for.
struct OpenLoop {
  Series series;
  double replies_per_second = 0;
  std::vector<std::string> replies;
};

// A connection to a running engine.
// Owns its connection. Not thread-safe: one thread calls it; open_loop() and
// flat_out() write on a thread of their own while the caller reads replies,
// and flat_out() calls `next` on that writer thread.
class EngineClient {
 public:
  explicit EngineClient(const std::string& socket);  // waits up to a minute for the engine to listen
  // Each line sent alone, its reply awaited; throws if one is refused.
  Series round_trips(const std::string& name, const std::vector<std::string>& lines);
  // The same, each change sent to a quiet engine: once the results of the
  // one before are written (stats' results_as_of has reached its event)
  // and `pause` has passed, so that no event's rest, publication or result
  // writing falls on the next one's clock.
  Series quiet_round_trips(const std::string& name, const std::vector<std::string>& lines,
                           std::chrono::milliseconds pause);
  // One line's reply (an error reply is returned, not thrown).
  std::string ask(const std::string& line);
  // The lines on a fixed schedule, open loop: line i is due at
  // start + i / per_second (an infinite rate: every line due at the start, a
  // burst) and its latency runs from that due time to its reply, so a stall
  // is charged to every line it delayed (no coordinated omission). Lines
  // that are due together go out in one write; a writer that fell behind
  // sends what is due at once. With per_second = 0 the lines go as fast as
  // the engine takes them and latency runs from each line's actual send.
  // Throws if one is refused.
  OpenLoop open_loop(const std::string& name, const std::vector<std::string>& lines, double per_second,
                     bool keep_replies = false);
  // Alerts to a watcher: each line (a change that raises `alerts_each`
  // alerts) sent alone once the last one's alerts are in; the clock runs
  // from reading its reply to a second connection, watching the limits,
  // having read the last alert of its event (0 when that came first).
  // Throws if one is refused, or its alerts do not come within 10 s.
  Series alert_deliveries(const std::string& name, const std::string& socket, const std::vector<std::string>& lines,
                          std::size_t alerts_each);
  // Lines from `next` as fast as the engine takes them, at most `window`
  // (>= 1) unanswered, for `seconds`; returns the replies per second.
  // Throws if one is refused, or what `next` threw.
  double flat_out(const std::function<std::string()>& next, double seconds, std::size_t window);

 private:
  std::string read_line();

  base::UniqueFd fd_;
  base::LineReader replies_{-1};  // of fd_, once connected
};

}  // namespace bond_risk
