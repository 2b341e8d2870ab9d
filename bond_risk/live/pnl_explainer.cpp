#include "bond_risk/live/pnl_explainer.h"

#include "bond_risk/db/pnl_day_log.h"

namespace bond_risk {

namespace {

std::vector<double> measures(const Store& store) {
  std::vector<double> out;
  for (const auto& [id, measure] : book_measures(store)) out.push_back(measure);
  return out;
}

}  // namespace

PnlExplainer::PnlExplainer(base::Database& db, const Store& store, std::int64_t served) {
  day_ = read_day(db);
  if (!day_) {
    base::Transaction tx(db, true);
    day_ = write_day(db, served, book_measures(store));
    tx.commit();
  }
  last_ = measures(store);
}

std::optional<Cause> PnlExplainer::cause_of(const Applied& applied) {
  struct Of {
    std::optional<Cause> operator()(const CurveRates& w) const { return Cause{CauseKind::curve, w.curve_id}; }
    std::optional<Cause> operator()(const CalendarDates&) const { return Cause{CauseKind::roll}; }
    std::optional<Cause> operator()(const TradeRow& w) const {
      return Cause{w.insert ? CauseKind::new_trade : CauseKind::amended};
    }
    std::optional<Cause> operator()(const TradeRemoval&) const { return Cause{CauseKind::removed}; }
    std::optional<Cause> operator()(const BondQuotes&) const { return std::nullopt; }
    std::optional<Cause> operator()(const DayStart&) const { return std::nullopt; }
  };
  return std::visit(Of{}, applied.write);
}

std::optional<CauseKind> PnlExplainer::trade_cause(const Change& change) {
  if (std::holds_alternative<AmendTrade>(change)) return CauseKind::amended;
  if (std::holds_alternative<AddTrade>(change)) return CauseKind::new_trade;
  if (std::holds_alternative<RemoveTrade>(change)) return CauseKind::removed;
  return std::nullopt;
}

bool PnlExplainer::moves_curves(const Change& change) {
  return std::holds_alternative<BumpCurve>(change) || std::holds_alternative<SetRate>(change) ||
         std::holds_alternative<SetCurve>(change);
}

void PnlExplainer::start_day(base::Database& db, const Store& store, std::int64_t seq) {
  day_ = write_day(db, seq, book_measures(store));
  last_ = measures(store);
}

void PnlExplainer::attribute(base::Database& db, const Store& store, std::int64_t seq, std::optional<Cause> cause) {
  const std::vector<BookMove> moves = book_moves(store, last_, cause ? predicted_ : std::vector<double>{});
  predicted_.clear();
  if (!cause || moves.empty()) return;
  write_moves(db, day_->started_after(), seq, *cause, moves);
  day_->record(seq, *cause, moves);
}

void PnlExplainer::reread(base::Database& db, const Store& store) {
  day_ = read_day(db);
  if (!day_) day_ = PnlDay(0, "", book_measures(store));
  last_ = measures(store);
}

}  // namespace bond_risk
