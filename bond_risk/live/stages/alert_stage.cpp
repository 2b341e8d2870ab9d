#include "bond_risk/live/stages/alert_stage.h"

#include "bond_risk/protocol/limit_replies.h"
#include "bond_risk/protocol/messages.h"

namespace bond_risk {

AlertStage::AlertStage(const LiveModel& model, const LimitStage& limits, ResultPublisher* publisher)
    : model_(model), limits_(limits), publisher_(publisher) {}

void AlertStage::completed(const Settled& settled) {
  record(settled.served, settled.external ? AlertCause::external : AlertCause::event);
}

void AlertStage::record(std::int64_t served, AlertCause cause) {
  if (!limits_.found().empty()) found_.push_back({served, cause, limits_.found()});
}

void AlertStage::write(base::Database& db) {
  for (const Found& f : found_) {
    for (const StoredAlert& a : write_alerts(db, f.served, f.cause, f.alerts)) {
      uncommitted_.push_back(protocol::alert_line(protocol::alert_json(model_.store(), a), f.served));
    }
  }
  found_.clear();
}

void AlertStage::committed() {
  for (std::string& line : uncommitted_) committed_.push_back(std::move(line));
  uncommitted_.clear();
  if (!committed_.empty() && publisher_) publisher_->alerts_written();
}

void AlertStage::refused(bool) {
  found_.clear();
  uncommitted_.clear();
}

}  // namespace bond_risk
