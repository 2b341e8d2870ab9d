// Keeps the running engine's P&L day (model/pnl/pnl_day.h) as events are
// applied, and its rows (db/pnl_day_log.h) in each event's transaction.
//
// A stage of every event (live/stages/event_stage.h): consecutive events of one
// cause are recalculated together (as the executor conflated them before
// the explain: one curve's ticks, amendments), and with them moves of
// other curves apart from theirs (model/pnl/curve_exposure.h: no book is
// exposed to two of them, so the split stays exact); each book's move in
// a recalculation goes to the group's causes (none: a new day alone, which
// moves nothing). A curve group's prediction is its total shift, from the
// curves' values before its first event to those after its last, times
// the ladders before it (not yet recalculated). Used by the master thread
// only; borrows the model, the stored rows and the connection it writes
// its rows on, which outlive it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "base/sqlite.h"
#include "bond_risk/live/stages/event_stage.h"
#include "bond_risk/live/live_model.h"
#include "bond_risk/model/inputs/changes.h"
#include "bond_risk/model/pnl/curve_exposure.h"
#include "bond_risk/model/pnl/pnl_day.h"

namespace bond_risk {

class PnlExplainer : public EventStage {
 public:
  // The day `db` holds, or one begun now after event `served` (a database
  // where no day has begun: the engine's first start). What other programs
  // changed while no engine ran is booked as external.
  PnlExplainer(const LiveModel& model, const StoredRows& rows, base::Database& db, std::int64_t served);

  Phase phase() const override { return Phase::explain; }
  // The same cause as the group awaiting, or curves apart from its curves.
  bool joins(const Event& event) override;
  void before(const Event& event) override;     // a curve group begins: the curves' values now
  void after(const Event& event) override;      // a new day begins; a curve group's prediction
  void settled(const Settled& settled) override;  // each book's move, to its cause
  void completed(const Settled& settled) override;  // and what the rest moved again, to the same
  void write(base::Database& db) override;      // the day's rows kept since the last write
  bool writes() const override { return !kept_.empty(); }
  void refused(bool read_back) override;        // read back: the day as the database holds it

  const PnlDay& day() const { return *day_; }

  // The cause of `change` (docs/model.md's table, and `quote`), known
  // before it is applied, its curve resolved: none for a new day, or a
  // curve not found (whose apply then refuses it).
  static std::optional<Cause> cause_of(const Change& change, const LiveModel& model, const StoredRows& rows);

 private:
  // Begins a day after event `seq`, the measures now its baselines (the
  // rows kept for the day before are written first).
  void start_day(std::int64_t seq);
  // After a recalculation of events up to `seq`: each book's move since
  // the last one belongs to the group's cause, or to the one of its curves
  // the book is exposed to (none: unattributed); recorded, and its rows
  // kept for write(), a row per cause (rows of one recalculation share its
  // seq: a replay groups events as they were).
  void attribute(const LiveModel::Recalculation& recalculation, std::int64_t seq);
  // Books as external what moved each book since the day recorded it (the
  // changes other programs made while no engine ran, or that a refused batch
  // had booked), and writes its row in the caller's transaction.
  void book_unrecorded(base::Database& db);
  // Every book's measure now, kept as the last; by id, in id order (a day's baselines).
  std::map<std::int64_t, double> measure_books(const Store& store);
  // The moves of a group of curves apart, split by curve.
  std::vector<std::vector<BookMove>> split_by_curve(const Store& store, std::span<const Cause> curves,
                                                    std::span<const BookMove> moves) const;

  const LiveModel& model_;
  const StoredRows& rows_;
  base::Database& db_;
  std::optional<Cause> cause_;  // of the change asked about last (joins())
  std::vector<Cause> group_;    // the causes of the events awaiting recalculation
  std::optional<PnlDay> day_;
  BookMeasures last_;  // each book's measure after the last recalculation, by id
  std::vector<std::vector<double>> curves_before_;
  std::vector<double> predicted_;
  std::optional<CurveExposure> exposure_;  // built when a group first asks; again after a reload
  // Rows attribute() kept for write(): each row's seq, cause and its
  // moves' end in kept_moves_ (reused, so that an event allocates nothing).
  struct Row {
    std::int64_t seq;
    std::optional<Cause> cause;
    std::size_t moves_end;
  };
  std::vector<Row> kept_;
  std::vector<BookMove> kept_moves_;
  std::vector<BookMove> moves_;  // one recalculation's (reused)
};

}  // namespace bond_risk
