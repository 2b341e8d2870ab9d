// The running engine's per-event stages, in their order (live/stages/event_stage.h):
// the P&L explain, the limits' checks, their alerts, the event feed, the
// result marks and the watchers' changes. The executor and the benchmarks'
// in-process harness build the same list here; the next feature is a stage
// added here. Borrowed objects outlive the stages; the master thread uses them.
#pragma once

#include "base/sqlite.h"
#include "bond_risk/live/stages/alert_stage.h"
#include "bond_risk/live/stages/event_feed.h"
#include "bond_risk/live/stages/event_stages.h"
#include "bond_risk/live/stages/limit_stage.h"
#include "bond_risk/live/stages/pnl_explainer.h"
#include "bond_risk/live/stages/result_marks.h"
#include "bond_risk/live/stages/watched_changes.h"
#include "bond_risk/model/store/stored_rows.h"

namespace bond_risk {

// The stages added, for what the executor asks of them between events.
struct EngineStages {
  PnlExplainer& explainer;
  LimitStage& limits;
  AlertStage& alerts;
  EventFeed& feed;
  ResultMarks& marks;
  WatchedChanges& watches;
};

// Adds the engine's stages to `stages`, over `model`, the stored rows of
// `db` (where their rows go, in its caller's transactions) and the result
// writer told of alerts (none: the benchmarks).
EngineStages add_engine_stages(EventStages& stages, const LiveModel& model, const StoredRows& rows, base::Database& db,
                               ResultPublisher* publisher);

}  // namespace bond_risk
