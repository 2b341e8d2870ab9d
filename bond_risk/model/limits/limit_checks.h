// Holding the store's limits (Store::limits) against the model after every
// event, docs/model.md "Limits": each limit whose value or book status may have
// changed is read again, and a change of its state (OK, BREACHED, UNKNOWN)
// is an alert.
//
// Which limits an event can move: a book's, when the recalculation changed
// the book; a total's, when it changed any book of the total's kind; a
// limit added or removed (by id: only it is read, or forgotten); every one
// when the limits were read again (Store::limits_version), the store's
// layout changed (a reload) or the day's baselines did (check_all). FAILED
// limits are never checked: they raise no alert.
//
// A limit's state belongs to the limit as defined: its id, its book and its
// measure (what it bounds; new bounds are the same limit's). Each limit's
// last state starts as recorded (the durable alerts' last, by limit id,
// with the book and measure it was raised for); a limit never recorded, or
// recorded for another book or measure (another limit under a reused id),
// was OK. So the first check after a start raises what changed while no
// engine ran, and no more. The limits are resolved once per reading of them
// or change of the day (resolve_limit), so that checking a book's limits is
// a few loads each; a limit added since is held apart (at most kLoose of
// them, read again at every check) until the next resolve. A total keeps
// each of its books' parts and their sum, updated by the parts that
// changed: an event costs it a few operations per book it changed, not a
// pass over every book. (That sum rounds apart from `limits`' fresh one in
// the last bits; a resolve sums afresh.) Plain data, used by one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <span>
#include <unordered_map>
#include <vector>

#include "bond_risk/model/pnl/pnl_day.h"
#include "bond_risk/model/limits/risk_limits.h"
#include "bond_risk/model/store/store.h"

namespace bond_risk {

struct LimitAlert {
  std::int64_t limit_id = 0;
  std::optional<std::int64_t> book_id;  // none: the total
  LimitMeasure measure = LimitMeasure::pv01;
  LimitState from = LimitState::ok, to = LimitState::ok;
  double value = 0, bound = 0;  // bound: the one crossed, or on the value's side (NaN: UNKNOWN)
};

// Why an alert was raised: an event of this engine's, or what changed
// while none ran or another program changed (limit_alert.cause).
enum class AlertCause { event, external };
std::string_view alert_cause_name(AlertCause cause);

// An alert as the database keeps it.
struct StoredAlert {
  std::int64_t id = 0, seq = 0;
  std::string time;
  AlertCause cause = AlertCause::event;
  LimitAlert alert;
};

// What a limit bounds: its book (none: the total) and its measure.
struct LimitIdentity {
  std::optional<std::int64_t> book_id;
  LimitMeasure measure = LimitMeasure::pv01;
  bool operator==(const LimitIdentity&) const = default;
};

// A limit's last recorded state, and what it was recorded for.
struct RecordedLimit {
  LimitIdentity what;
  LimitState state = LimitState::ok;
};

class LimitChecks {
 public:
  static constexpr std::size_t kLoose = 64;

  // Limits' states as last recorded, by limit id.
  explicit LimitChecks(std::unordered_map<std::int64_t, RecordedLimit> recorded = {});

  // After a recalculation that changed the books `outright` and `repo`
  // (by index; `whole`: the store was loaded again) and added or removed
  // the limits `limits` (by id): appends to `alerts` each change of state
  // of the limits they can move.
  void check(const Store& store, const PnlDay& day, std::span<const NodeIndex> outright,
             std::span<const NodeIndex> repo, bool whole, std::span<const std::int64_t> limits,
             std::vector<LimitAlert>& alerts);
  // The same for every limit.
  void check_all(const Store& store, const PnlDay& day, std::vector<LimitAlert>& alerts);
  // Whether the limits were checked since this was built from the recorded states.
  bool resolved() const { return resolved_; }

  // Throws std::logic_error naming the first broken invariant of what is
  // held: the books' offsets ascending over held_ with each limit under its
  // own book, every id held_at_ gives found there, at most kLoose limits
  // held apart, and each total's count of books not OK that of its parts.
  // (Its sum is not checked: kept from its parts' changes, it carries the
  // rounding of every value a part has held since the last resolve, which
  // a huge one passing through makes large.) Linear in the limits and the
  // totals' books.
  void check_invariants() const;

 private:
  struct Held {
    std::int64_t id;
    LimitIdentity what;
    ResolvedLimit limit;
    LimitState state;     // the last alerted or recorded
    bool removed = false;  // since the last resolve: never read again
  };
  // A total limit's books (outright books, then repo books, those it reads)
  // and their parts, kept by the changes of the books.
  struct Total {
    std::uint32_t held;
    std::vector<double> parts, baselines;  // baselines: day_pnl's, per book
    std::vector<std::uint8_t> ok;
    double sum = 0;
    std::size_t not_ok = 0;
  };
  // Builds held_, totals_ and the indices below from store.limits and the day.
  void resolve(const Store& store, const PnlDay& day);
  // Limit `limit` (one that can hold) resolved, in its recorded state.
  Held hold(const Store& store, const PnlDay& day, const RiskLimit& limit) const;
  // Records a held limit's reading, and its alert if its state changed.
  static void record(const Store& store, Held& held, const LimitReading& reading, std::vector<LimitAlert>& alerts);
  // Adds or forgets the limits `ids` (added to or removed from the store);
  // false when only a resolve can (a total's limit, or too many held apart).
  bool apply_limit_changes(const Store& store, const PnlDay& day, std::span<const std::int64_t> ids,
                           std::vector<LimitAlert>& alerts);
  // Checks the limits of the books `changed` of a kind, whose limits are at
  // held_[offsets[b] .. offsets[b + 1]).
  void check_books(const Store& store, const PnlDay& day, std::span<const NodeIndex> changed,
                   const std::vector<std::uint32_t>& offsets, std::vector<LimitAlert>& alerts);
  // Takes book `book`'s part of total t again.
  void update(const Store& store, Total& t, NodeRef book, std::size_t at);

  std::unordered_map<std::int64_t, RecordedLimit> states_;  // by limit id, as of the last resolve (held_ has them since)
  // The limits that can hold: the outright books' by book, then the repo
  // books', then the totals' (a book's limits are together: what an event
  // reads is a few cache lines, fetched at once). The limits of outright
  // book b are at [outright_offsets_[b], outright_offsets_[b + 1]), of repo
  // book b likewise.
  std::vector<Held> held_;
  std::vector<std::uint32_t> outright_offsets_, repo_offsets_;
  std::vector<Total> totals_;
  std::unordered_map<std::int64_t, std::uint32_t> held_at_;  // a book's limit's place in held_, by id
  std::vector<Held> loose_;  // book limits added since the last resolve
  bool resolved_ = false;
  std::uint32_t version_ = 0;  // Store::limits_version resolved
};

}  // namespace bond_risk
