// A stage of every event (live/stages/event_stage.h): the risk limits checked
// against the model after each recalculation (model/limits/limit_checks.h),
// every one after a new day or while the states recorded in the database
// are not yet resolved against the model; the alerts found wait for the
// AlertStage after it. Used by the master thread only; borrows the model,
// the P&L day's keeper and the connection, which outlive it.
#pragma once

#include <vector>

#include "base/sqlite.h"
#include "bond_risk/live/stages/event_stage.h"
#include "bond_risk/live/stages/pnl_explainer.h"
#include "bond_risk/model/limits/limit_checks.h"

namespace bond_risk {

class LimitStage : public EventStage {
 public:
  // Each limit starts in the state `db` recorded for it.
  LimitStage(const LiveModel& model, const PnlExplainer& explainer, base::Database& db);

  Phase phase() const override { return Phase::limits; }
  void after(const Event& event) override;       // a new day: every limit is checked
  void completed(const Settled& settled) override;  // every figure published: the limits checked
  void refused(bool read_back) override;         // read back: the states as recorded again
  void check() const override { checks_.check_invariants(); }

  // Whether the limits were checked since the recorded states were read.
  bool resolved() const { return checks_.resolved(); }
  // Checks every limit (as the first settle after a new day does).
  void check_all();
  // The alerts the last check found; cleared by the next.
  const std::vector<LimitAlert>& found() const { return found_; }

 private:
  const LiveModel& model_;
  const PnlExplainer& explainer_;
  base::Database& db_;
  LimitChecks checks_;
  std::vector<LimitAlert> found_;
  bool all_ = false;  // a new day awaits: every day_pnl limit's value moved
};

}  // namespace bond_risk
