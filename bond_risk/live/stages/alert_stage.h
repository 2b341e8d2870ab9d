// A stage of every event (live/stages/event_stage.h): the limits' alerts the
// LimitStage before it found, written to the database in the event's
// transaction, or the one after its replies (db/limit_alert_log.h), and,
// once it commits, handed to the
// connections that watch limits (take_alerts) and to the result writer
// (which copies them beside the results). Used by the master thread only;
// borrows what it is given, which outlives it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/sqlite.h"
#include "bond_risk/db/limit_alert_log.h"
#include "bond_risk/live/stages/event_stage.h"
#include "bond_risk/live/stages/limit_stage.h"
#include "bond_risk/live/result_publisher.h"

namespace bond_risk {

class AlertStage : public EventStage {
 public:
  // `publisher`: told when alerts are durable (none: the benchmarks).
  AlertStage(const LiveModel& model, const LimitStage& limits, ResultPublisher* publisher);

  Phase phase() const override { return Phase::alerts; }
  void completed(const Settled& settled) override;
  void write(base::Database& db) override;
  bool writes() const override { return !found_.empty(); }
  void committed() override;
  void refused(bool read_back) override;

  // Keeps what the LimitStage found, after event `served`, of `cause`, for write().
  void record(std::int64_t served, AlertCause cause);
  // The alerts committed since the last call, oldest first, as lines:
  // {"alert":{...protocol/limit_replies.h...},"event":N}.
  std::vector<std::string> take_alerts() { return std::exchange(committed_, {}); }

 private:
  const LiveModel& model_;
  const LimitStage& limits_;
  ResultPublisher* publisher_;
  struct Found {
    std::int64_t served;
    AlertCause cause;
    std::vector<LimitAlert> alerts;
  };
  std::vector<Found> found_;  // not yet written
  std::vector<std::string> uncommitted_, committed_;  // alert lines
};

}  // namespace bond_risk
