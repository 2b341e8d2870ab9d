// Keeps the running engine's P&L day (model/pnl_day.h) as events are
// applied, and its rows (db/pnl_day_log.h) in each event's transaction.
//
// The executor recalculates consecutive events of one cause together (as
// it conflated them before the explain: one curve's ticks, amendments) and
// then calls attribute() with the cause and the last event's seq (none: a
// new day alone, which moves nothing).
// A curve group's prediction is its total shift, from the curves' values
// before its first event (curves_before()) to now (predict()), times the
// ladders before it (not yet recalculated). Used by the master thread only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "base/sqlite.h"
#include "bond_risk/live/live_model.h"
#include "bond_risk/model/changes.h"
#include "bond_risk/model/pnl_day.h"

namespace bond_risk {

class PnlExplainer {
 public:
  // The day the database holds, or one begun now after event `served`
  // (a database where no day has begun: the engine's first start). What
  // other programs changed while no engine ran is booked as external.
  PnlExplainer(base::Database& db, const Store& store, std::int64_t served);

  // The cause of `change` (MODEL.md's table, and `quote`), known before it
  // is applied, its curve resolved: none for a new day, or a curve not
  // found (whose apply then refuses it).
  static std::optional<Cause> cause_of(const Change& change, const LiveModel& model, base::Database& db);
  // Begins a day after event `seq`, the measures now its baselines.
  void start_day(base::Database& db, const Store& store, std::int64_t seq);

  void curves_before(const Store& store) { curves_before_ = curve_values(store); }
  // The books' predicted moves for the curves moved since curves_before().
  void predict(const Store& store) { predicted_ = predicted_moves(store, curves_before_); }

  // After a recalculation of events up to `seq`: each book's move since
  // the last one belongs to `cause` (none: unattributed), recorded and
  // written (a row for every recalculation: a replay groups events as they were).
  // `recalculation` says which books may have moved.
  void attribute(base::Database& db, const Store& store, const LiveModel::Recalculation& recalculation,
                 std::int64_t seq, std::optional<Cause> cause);

  // After the model was read back from the database (a refused batch).
  void reread(base::Database& db, const Store& store);

  const PnlDay& day() const { return *day_; }

 private:
  std::optional<PnlDay> day_;
  std::map<std::int64_t, double> last_;  // each book's measure after the last recalculation, by id
  std::vector<std::vector<double>> curves_before_;
  std::vector<double> predicted_;
};

}  // namespace bond_risk
