#include "bond_risk/live/stages/pnl_explainer.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "bond_risk/db/pnl_day_log.h"

namespace bond_risk {

namespace {

// The cause of a change before it is applied.
struct Ahead {
  const LiveModel& model;
  const StoredRows& rows;
  std::optional<Cause> curve(const std::string& key) const {
    try {
      const NodeRef n = model.find(key, rows);
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
  std::optional<Cause> operator()(const RowsChanged&) const { return Cause{CauseKind::external}; }
  std::optional<Cause> operator()(const auto&) const { return std::nullopt; }
};

}  // namespace

PnlExplainer::PnlExplainer(const LiveModel& model, const StoredRows& rows, base::Database& db, std::int64_t served)
    : model_(model), rows_(rows), db_(db) {
  day_ = read_day(db);
  const std::map<std::int64_t, double> now = measure_books(model.store());
  base::Transaction tx(db, true);
  if (!day_) {
    day_ = write_day(db, served, now);
  } else {
    book_unrecorded(db);
  }
  tx.commit();
}

std::map<std::int64_t, double> PnlExplainer::measure_books(const Store& store) {
  std::map<std::int64_t, double> now = book_measures(store);
  last_ = BookMeasures(now.begin(), now.end());
  return now;
}

void PnlExplainer::book_unrecorded(base::Database& db) {
  // Each book's measure now against the day's (its baseline and recorded
  // moves). A fresh sum differs from the running one in its last bits,
  // which are no move.
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
  if (gap.empty()) return;
  day_->record(0, Cause{CauseKind::external}, gap);
  write_moves(db, day_->started_after(), 0, Cause{CauseKind::external}, gap);
}

std::optional<Cause> PnlExplainer::cause_of(const Change& change, const LiveModel& model, const StoredRows& rows) {
  return std::visit(Ahead{model, rows}, change);
}

void PnlExplainer::start_day(std::int64_t seq) {
  write(db_);
  day_ = write_day(db_, seq, measure_books(model_.store()));
}

bool PnlExplainer::joins(const Event& event) {
  cause_ = cause_of(*event.change, model_, rows_);
  if (!cause_) return false;
  const Cause& cause = *cause_;
  const std::vector<Cause>& group = group_;
  const Store& store = model_.store();
  if (group.empty()) return false;
  if (std::find(group.begin(), group.end(), cause) != group.end()) return true;
  if (cause.kind != CauseKind::curve || group.front().kind != CauseKind::curve) return false;
  if (!exposure_) exposure_.emplace(store);
  exposure_->refresh(store);
  const NodeIndex curve = store.by_id.find(cause.curve_id)->index;
  return std::all_of(group.begin(), group.end(),
                     [&](const Cause& c) { return exposure_->apart(store.by_id.find(c.curve_id)->index, curve); });
}

std::vector<std::vector<BookMove>> PnlExplainer::split_by_curve(const Store& store, std::span<const Cause> curves,
                                                               std::span<const BookMove> moves) const {
  std::vector<NodeIndex> positions;
  for (const Cause& c : curves) positions.push_back(store.by_id.find(c.curve_id)->index);
  std::vector<std::vector<BookMove>> out(curves.size());
  for (const BookMove& m : moves) {
    // A book exposed to none of them cannot have moved; its zero goes to the last.
    const std::size_t k = exposure_->first_of(*store.by_id.find(m.book_id), positions).value_or(curves.size() - 1);
    out[k].push_back(m);
  }
  return out;
}

void PnlExplainer::before(const Event&) {
  if (cause_ && cause_->kind == CauseKind::curve && group_.empty()) {
    curves_before_ = curve_values(model_.store());  // a curve group begins
  }
}

void PnlExplainer::after(const Event& event) {
  if (std::holds_alternative<DayStart>(event.applied->write)) start_day(event.logged->seq);
  if (!cause_) return;
  if (cause_->kind == CauseKind::curve) predicted_ = predicted_moves(model_.store(), curves_before_);
  if (std::find(group_.begin(), group_.end(), *cause_) == group_.end()) group_.push_back(*cause_);
}

void PnlExplainer::settled(const Settled& settled) {
  attribute(settled.recalculation, settled.external ? 0 : settled.served);
}

void PnlExplainer::completed(const Settled& settled) {
  const LiveModel::Recalculation& again = *settled.again;
  const bool books_moved = !again.changed[static_cast<std::size_t>(Kind::outright_book)].empty() ||
                           !again.changed[static_cast<std::size_t>(Kind::repo_book)].empty();
  if (books_moved) attribute(again, settled.external ? 0 : settled.served);  // a bond the rest failed: the same causes'
  group_.clear();
}

void PnlExplainer::attribute(const LiveModel::Recalculation& r, std::int64_t seq) {
  const Store& store = model_.store();
  const std::span<const Cause> causes = group_;
  const BooksToLook books{r.changed[static_cast<std::size_t>(Kind::outright_book)],
                          r.changed[static_cast<std::size_t>(Kind::repo_book)], r.whole};
  std::vector<BookMove>& moves = moves_;
  book_moves(store, last_, causes.empty() ? std::span<const double>{} : std::span<const double>(predicted_), books, moves);
  predicted_.clear();
  auto keep = [&](std::optional<Cause> cause, std::span<const BookMove> m) {
    kept_moves_.insert(kept_moves_.end(), m.begin(), m.end());
    kept_.push_back({seq, cause, kept_moves_.size()});
  };
  if (causes.empty()) {  // a new day alone, which moved nothing
    keep(std::nullopt, {});
    return;
  }
  if (causes.size() == 1) {
    keep(causes.front(), moves);
    day_->record(seq, causes.front(), moves);
  } else {
    const std::vector<std::vector<BookMove>> split = split_by_curve(store, causes, moves);
    for (std::size_t k = 0; k < causes.size(); ++k) {
      keep(causes[k], split[k]);
      day_->record(seq, causes[k], split[k]);
    }
  }
  const CauseKind kind = causes.front().kind;
  if (exposure_ && (kind == CauseKind::new_trade || kind == CauseKind::amended || kind == CauseKind::removed)) {
    exposure_->members_changed(books.outright, books.repo);  // the trades' books, recalculated
  }
  if (kind == CauseKind::external || r.whole) exposure_.reset();  // books may have been added, or moved
}

void PnlExplainer::write(base::Database& db) {
  std::size_t from = 0;
  for (const Row& row : kept_) {
    write_moves(db, day_->started_after(), row.seq, row.cause,
                std::span<const BookMove>(kept_moves_).subspan(from, row.moves_end - from));
    from = row.moves_end;
  }
  kept_.clear();
  kept_moves_.clear();
}

void PnlExplainer::refused(bool read_back) {
  group_.clear();
  if (!read_back) return;
  base::Database& db = db_;
  const Store& store = model_.store();
  kept_.clear();  // the refused batch's
  kept_moves_.clear();
  exposure_.reset();
  predicted_.clear();
  curves_before_.clear();
  day_ = read_day(db);
  const std::map<std::int64_t, double> now = measure_books(store);
  if (!day_) {
    day_ = PnlDay(0, "", now);
    return;
  }
  // What other programs changed and the refused batch had booked is in the
  // model read back, not in the day: external. Its rows wait for a database
  // that accepts writes; if this one refuses them too, the next start books
  // the same moves from the same comparison.
  try {
    base::Transaction tx(db, true);
    book_unrecorded(db);
    tx.commit();
  } catch (const std::runtime_error&) {
  }
}

}  // namespace bond_risk
