#include "bond_risk/live/stages/engine_stages.h"

namespace bond_risk {

EngineStages add_engine_stages(EventStages& stages, const LiveModel& model, const StoredRows& rows, base::Database& db,
                               ResultPublisher* publisher) {
  PnlExplainer& explainer = stages.add<PnlExplainer>(model, rows, db, stages.served());
  LimitStage& limits = stages.add<LimitStage>(model, explainer, db);
  AlertStage& alerts = stages.add<AlertStage>(model, limits, publisher);
  EventFeed& feed = stages.add<EventFeed>(db);
  ResultMarks& marks = stages.add<ResultMarks>(model);
  WatchedChanges& watches = stages.add<WatchedChanges>(model, explainer);
  return {explainer, limits, alerts, feed, marks, watches};
}

}  // namespace bond_risk
