#include "bond_risk/live/pnl_explainer.h"

#include <cmath>
#include <limits>

#include "bond_risk/db/pnl_day_log.h"

namespace bond_risk {

namespace {

// The cause of a change before it is applied.
struct Ahead {
  const LiveModel& model;
  base::Database& db;
  std::optional<Cause> curve(const std::string& key) const {
    try {
      const NodeRef n = model.find(key, &db);
      if (kind_of(n) != Kind::ir_curve) return std::nullopt;
      return Cause{CauseKind::curve, model.store().id(n)};
    } catch (const CommandError&) {
      return std::nullopt;
    }
  }
  std::optional<Cause> operator()(const BumpCurve& c) const { return curve(c.curve); }
  std::optional<Cause> operator()(const SetRate& c) const { return curve(c.curve); }
  std::optional<Cause> operator()(const SetCurve& c) const { return curve(c.curve); }
  std::optional<Cause> operator()(const RollDate&) const { return Cause{CauseKind::roll}; }
  std::optional<Cause> operator()(const AmendTrade&) const { return Cause{CauseKind::amended}; }
  std::optional<Cause> operator()(const AddTrade&) const { return Cause{CauseKind::new_trade}; }
  std::optional<Cause> operator()(const RemoveTrade&) const { return Cause{CauseKind::removed}; }
  std::optional<Cause> operator()(const SetPrices&) const { return Cause{CauseKind::quote}; }
  std::optional<Cause> operator()(const ClearPrice&) const { return Cause{CauseKind::quote}; }
  std::optional<Cause> operator()(const auto&) const { return std::nullopt; }
};

}  // namespace

PnlExplainer::PnlExplainer(base::Database& db, const Store& store, std::int64_t served) {
  day_ = read_day(db);
  last_ = book_measures(store);
  base::Transaction tx(db, true);
  if (!day_) {
    day_ = write_day(db, served, last_);
  } else {
    // What other programs changed while no engine ran: each book's measure
    // now against the day's (its baseline and recorded moves). A fresh sum
    // differs from the running one in its last bits, which are no move.
    constexpr double kSameMeasure = 1e-9;
    std::vector<BookMove> gap;
    std::map<std::int64_t, double> recorded = day_->recorded_measures();
    for (const auto& [id, now] : last_) recorded.try_emplace(id, 0.0);  // a new book moved from 0
    for (const auto& [id, was] : recorded) {
      const auto it = last_.find(id);
      const double now = it == last_.end() ? 0.0 : it->second;  // a book gone moved to 0
      if (std::abs(now - was) > kSameMeasure * std::max(1.0, std::abs(was))) {
        gap.push_back({id, now - was, std::numeric_limits<double>::quiet_NaN()});
      }
    }
    if (!gap.empty()) {
      write_moves(db, day_->started_after(), 0, Cause{CauseKind::external}, gap);
      day_->record(0, Cause{CauseKind::external}, gap);
    }
  }
  tx.commit();
}

std::optional<Cause> PnlExplainer::cause_of(const Change& change, const LiveModel& model, base::Database& db) {
  return std::visit(Ahead{model, db}, change);
}

void PnlExplainer::start_day(base::Database& db, const Store& store, std::int64_t seq) {
  last_ = book_measures(store);
  day_ = write_day(db, seq, last_);
}

void PnlExplainer::attribute(base::Database& db, const Store& store, const LiveModel::Recalculation& r,
                             std::int64_t seq, std::optional<Cause> cause) {
  const BooksToLook books{r.changed[static_cast<std::size_t>(Kind::outright_book)],
                          r.changed[static_cast<std::size_t>(Kind::repo_book)], r.whole};
  const std::vector<BookMove> moves = book_moves(store, last_, cause ? predicted_ : std::vector<double>{}, books);
  predicted_.clear();
  write_moves(db, day_->started_after(), seq, cause, cause ? moves : std::vector<BookMove>{});
  if (cause) day_->record(seq, *cause, moves);
}

void PnlExplainer::reread(base::Database& db, const Store& store) {
  predicted_.clear();
  curves_before_.clear();
  day_ = read_day(db);
  last_ = book_measures(store);
  if (!day_) day_ = PnlDay(0, "", last_);
}

}  // namespace bond_risk
