// Holding the store's limits (Store::limits) against the model after every
// event, MODEL.md "Limits": each limit whose value or book status may have
// changed is read again, and a change of its state (OK, BREACHED, UNKNOWN)
// is an alert.
//
// Which limits an event can move: a book's, when the recalculation changed
// the book; a total's, when it changed any book of the total's kind; every
// one when the limits, the store's layout (a reload) or the day's
// baselines changed (check_all). FAILED limits are never checked: they
// raise no alert.
//
// Each limit's last state starts as recorded (the durable alerts' last, by
// limit id; a limit never recorded was OK), so the first check after a
// start raises what changed while no engine ran, and no more. The limits
// are resolved once per change of them or of the day (resolve_limit), so
// that checking a book's limits is a few loads each. A total keeps each of
// its books' parts and their sum, updated by the parts that changed: an
// event costs it a few operations per book it changed, not a pass over
// every book. (That sum rounds apart from `limits`' fresh one in the last
// bits; a resolve sums afresh.) Plain data, used by one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "bond_risk/model/pnl_day.h"
#include "bond_risk/model/risk_limits.h"
#include "bond_risk/model/store.h"

namespace bond_risk {

struct LimitAlert {
  std::int64_t limit_id = 0;
  std::optional<std::int64_t> book_id;  // none: the total
  LimitMeasure measure = LimitMeasure::pv01;
  LimitState from = LimitState::ok, to = LimitState::ok;
  double value = 0, bound = 0;  // bound: the one crossed, or on the value's side (NaN: UNKNOWN)
};

class LimitChecks {
 public:
  // Limits' states as last recorded, by limit id.
  explicit LimitChecks(std::unordered_map<std::int64_t, LimitState> recorded = {});

  // After a recalculation that changed the books `outright` and `repo`
  // (by index; `whole`: the store was loaded again): appends to `alerts`
  // each change of state of the limits they can move.
  void check(const Store& store, const PnlDay& day, std::span<const NodeIndex> outright,
             std::span<const NodeIndex> repo, bool whole, std::vector<LimitAlert>& alerts);
  // The same for every limit.
  void check_all(const Store& store, const PnlDay& day, std::vector<LimitAlert>& alerts);
  // Whether the limits were checked since this was built from the recorded states.
  bool resolved() const { return resolved_; }

 private:
  struct Held {
    std::int64_t id;
    ResolvedLimit limit;
    LimitState state;  // the last alerted or recorded
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
  // Records held limit h's reading, and its alert if its state changed.
  void record(const Store& store, std::uint32_t h, const LimitReading& reading, std::vector<LimitAlert>& alerts);
  // Checks the limits of the books `changed` of a kind, whose limits are at
  // held_[offsets[b] .. offsets[b + 1]).
  void check_books(const Store& store, const PnlDay& day, std::span<const NodeIndex> changed,
                   const std::vector<std::uint32_t>& offsets, std::vector<LimitAlert>& alerts);
  // Takes book `book`'s part of total t again.
  void update(const Store& store, Total& t, NodeRef book, std::size_t at);

  std::unordered_map<std::int64_t, LimitState> states_;  // by limit id, as of the last resolve (held_ has them since)
  // The limits that can hold: the outright books' by book, then the repo
  // books', then the totals' (a book's limits are together: what an event
  // reads is a few cache lines, fetched at once). The limits of outright
  // book b are at [outright_offsets_[b], outright_offsets_[b + 1]), of repo
  // book b likewise.
  std::vector<Held> held_;
  std::vector<std::uint32_t> outright_offsets_, repo_offsets_;
  std::vector<Total> totals_;
  bool resolved_ = false;
  std::uint32_t version_ = 0;  // Store::limits_version resolved
};

}  // namespace bond_risk
