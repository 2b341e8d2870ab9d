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
// are resolved once per change of them (resolve_limit), so that checking a
// book's limits is a few loads each. Plain data, used by one thread.
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
    std::optional<std::int64_t> book_id;
    ResolvedLimit limit;
    LimitState state;  // the last alerted or recorded
  };
  void resolve(const Store& store);  // builds held_ and the indices below from store.limits
  void read(const Store& store, const PnlDay& day, std::uint32_t h, std::vector<LimitAlert>& alerts);

  std::unordered_map<std::int64_t, LimitState> states_;  // by limit id, as of the last resolve (held_ has them since)
  std::vector<Held> held_;                               // the limits that can hold
  // held_ positions by book: an outright book's, a repo book's (CSR: the
  // limits of book b are at [offsets[b], offsets[b + 1])).
  std::vector<std::uint32_t> outright_offsets_, outright_limits_, repo_offsets_, repo_limits_;
  // Totals by the books they sum: outright, repo, every book (day_pnl).
  std::vector<std::uint32_t> outright_totals_, repo_totals_, all_totals_;
  bool resolved_ = false;
  std::uint32_t version_ = 0;  // Store::limits_version resolved
};

}  // namespace bond_risk
