// Keeps the running engine's P&L day (model/pnl/pnl_day.h) as events are
// applied, and its rows (db/pnl_day_log.h) in each event's transaction.
//
// The executor recalculates consecutive events of one cause together (as
// it conflated them before the explain: one curve's ticks, amendments), and
// with them moves of other curves apart from theirs (model/pnl/curve_exposure.h:
// no book is exposed to two of them, so the split stays exact); then it
// calls attribute() with the group's causes and the last event's seq (no
// cause: a new day alone, which moves nothing).
// A curve group's prediction is its total shift, from the curves' values
// before its first event (curves_before()) to now (predict()), times the
// ladders before it (not yet recalculated). Used by the master thread only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "base/sqlite.h"
#include "bond_risk/live/live_model.h"
#include "bond_risk/model/inputs/changes.h"
#include "bond_risk/model/pnl/curve_exposure.h"
#include "bond_risk/model/pnl/pnl_day.h"

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
  static std::optional<Cause> cause_of(const Change& change, const LiveModel& model, const StoredRows& rows);
  // Begins a day after event `seq`, the measures now its baselines (the
  // rows kept for the day before are written first).
  void start_day(base::Database& db, const Store& store, std::int64_t seq);

  void curves_before(const Store& store) { curves_before_ = curve_values(store); }
  // The books' predicted moves for the curves moved since curves_before().
  void predict(const Store& store) { predicted_ = predicted_moves(store, curves_before_); }

  // Whether an event of `cause` may be recalculated with the group of
  // events of `group`'s causes awaiting it: the same cause, or curves apart.
  bool joins(std::span<const Cause> group, const Cause& cause, const Store& store);

  // After a recalculation of events up to `seq`: each book's move since
  // the last one belongs to the group's cause, or to the one of its curves
  // the book is exposed to (none: unattributed); recorded, and its rows
  // kept for write_rows(), a row per cause (rows of one recalculation share
  // its seq: a replay groups events as they were). `recalculation` says
  // which books may have moved.
  void attribute(const Store& store, const LiveModel::Recalculation& recalculation, std::int64_t seq,
                 std::span<const Cause> causes);
  // Writes the rows attribute() kept, in the caller's transaction (the
  // batch's, before it commits, as the event log's rows are).
  void write_rows(base::Database& db);

  // After the model was read back from the database (a refused batch): the
  // day as the database holds it, and what other programs moved as external.
  void reread(base::Database& db, const Store& store);

  const PnlDay& day() const { return *day_; }

 private:
  // Books as external what moved each book since the day recorded it (the
  // changes other programs made while no engine ran, or that a refused batch
  // had booked), and writes its row in the caller's transaction.
  void book_unrecorded(base::Database& db);
  // Every book's measure now, kept as the last; by id, in id order (a day's baselines).
  std::map<std::int64_t, double> measure_books(const Store& store);
  // The moves of a group of curves apart, split by curve.
  std::vector<std::vector<BookMove>> split_by_curve(const Store& store, std::span<const Cause> curves,
                                                    std::span<const BookMove> moves) const;

  std::optional<PnlDay> day_;
  BookMeasures last_;  // each book's measure after the last recalculation, by id
  std::vector<std::vector<double>> curves_before_;
  std::vector<double> predicted_;
  std::optional<CurveExposure> exposure_;  // built when a group first asks; again after a reload
  // Rows attribute() kept for write_rows(): each row's seq, cause and its
  // moves' end in rows_moves_ (reused, so that an event allocates nothing).
  struct Row {
    std::int64_t seq;
    std::optional<Cause> cause;
    std::size_t moves_end;
  };
  std::vector<Row> rows_;
  std::vector<BookMove> rows_moves_;
  std::vector<BookMove> moves_;  // one recalculation's (reused)
};

}  // namespace bond_risk
