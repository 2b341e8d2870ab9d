#include "bond_risk/live/stages/limit_stage.h"

#include "bond_risk/db/limit_alert_log.h"

namespace bond_risk {

LimitStage::LimitStage(const LiveModel& model, const PnlExplainer& explainer, base::Database& db)
    : model_(model), explainer_(explainer), db_(db), checks_(recorded_limit_states(db)) {}

void LimitStage::after(const Event& event) {
  if (event.applied && std::holds_alternative<DayStart>(event.applied->write)) all_ = true;
}

void LimitStage::completed(const Settled& settled) {
  if (all_) return check_all();
  const LiveModel::Recalculation& r = settled.recalculation;
  found_.clear();
  checks_.check(model_.store(), explainer_.day(), r.changed[static_cast<std::size_t>(Kind::outright_book)],
                r.changed[static_cast<std::size_t>(Kind::repo_book)], r.whole, r.limits, found_);
}

void LimitStage::check_all() {
  found_.clear();
  checks_.check_all(model_.store(), explainer_.day(), found_);
  all_ = false;
}

void LimitStage::refused(bool read_back) {
  found_.clear();
  all_ = false;
  // Checked against the model read back before the next batch.
  if (read_back) checks_ = LimitChecks(recorded_limit_states(db_));
}

}  // namespace bond_risk
