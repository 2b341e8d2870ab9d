#include "bond_risk/model/pnl/pnl_day.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <unordered_set>

namespace bond_risk {

namespace {

constexpr std::array<std::string_view, 7> kCauseNames = {"curve", "roll", "new", "amended", "removed", "external", "quote"};

// Each book in store order: outright books, then repo books.
template <class Fn>
void for_each_book(const Store& s, Fn fn) {
  for (NodeIndex b = 0; b < s.outright_books.size(); ++b) fn(ref(Kind::outright_book, b));
  for (NodeIndex b = 0; b < s.repo_books.size(); ++b) fn(ref(Kind::repo_book, b));
}

}  // namespace

std::string_view cause_kind_name(CauseKind kind) { return kCauseNames[static_cast<std::size_t>(kind)]; }

std::optional<CauseKind> parse_cause_kind(std::string_view name) {
  for (std::size_t k = 0; k < kCauseNames.size(); ++k) {
    if (kCauseNames[k] == name) return static_cast<CauseKind>(k);
  }
  return std::nullopt;
}

std::string cause_name(const Store& s, const Cause& cause) {
  std::string out(cause_kind_name(cause.kind));
  if (cause.kind != CauseKind::curve) return out;
  const NodeRef* curve = s.by_id.find(cause.curve_id);
  return out + " " + (curve ? s.name_of(*curve) : std::to_string(cause.curve_id));
}

double book_measure(const Store& s, NodeRef book) {
  const double v = kind_of(book) == Kind::outright_book ? s.outright_books[book.index].total.pnl
                                                       : s.repo_books[book.index].total.mtm_pnl;
  return std::isnan(v) ? 0.0 : v;
}

std::map<std::int64_t, double> book_measures(const Store& s) {
  std::map<std::int64_t, double> out;
  for_each_book(s, [&](NodeRef book) { out.emplace(s.id(book), book_measure(s, book)); });
  return out;
}

std::vector<std::vector<double>> curve_values(const Store& s) {
  std::vector<std::vector<double>> out;
  for (const IrCurve& c : s.curves) {
    out.emplace_back();
    for (const CurvePoint& p : c.points) out.back().push_back(p.value);
  }
  return out;
}

std::vector<double> predicted_moves(const Store& s, const std::vector<std::vector<double>>& before) {
  if (!s.with_key_rates || before.size() != s.curves.size()) return {};
  // (axis position, shift in bp) of every moved point.
  std::vector<std::pair<std::size_t, double>> shifts;
  for (NodeIndex c = 0; c < s.curves.size(); ++c) {
    const std::vector<CurvePoint>& now = s.curves[c].points;
    for (std::size_t k = 0; k < now.size() && k < before[c].size(); ++k) {
      if (now[k].value != before[c][k]) shifts.emplace_back(s.key_rate_axis.offset[c] + k, (now[k].value - before[c][k]) / kBump);
    }
  }
  if (shifts.empty()) return {};
  std::vector<double> out;
  // An outright book's ladder is its pv's (its pnl's: cost does not move);
  // a repo book's holds its margin's, then its mtm_pnl's.
  for_each_book(s, [&](NodeRef book) {
    const bool repo = kind_of(book) == Kind::repo_book;
    const std::vector<double>& kr01 = repo ? s.repo_books[book.index].kr01 : s.outright_books[book.index].kr01;
    const std::size_t from = repo ? s.key_rate_axis.size : 0;
    double sum = 0;
    for (const auto& [at, bp] : shifts) {
      if (from + at < kr01.size()) sum += kr01[from + at] * bp;
    }
    out.push_back(sum);
  });
  return out;
}

std::unordered_set<std::int64_t> book_ids(const Store& s) {
  std::unordered_set<std::int64_t> ids;
  for_each_book(s, [&](NodeRef book) { ids.insert(s.id(book)); });
  return ids;
}

void moves_of_books_gone(const Store& s, BookMeasures& last, std::vector<BookMove>& out) {
  const std::unordered_set<std::int64_t> there = book_ids(s);
  std::vector<std::int64_t> gone;
  for (const auto& [id, was] : last) {
    if (was != 0 && !there.contains(id)) gone.push_back(id);
  }
  std::sort(gone.begin(), gone.end());  // in id order, whatever the hash's
  for (const std::int64_t id : gone) {
    double& was = last[id];
    out.push_back({id, -was, std::numeric_limits<double>::quiet_NaN()});
    was = 0;
  }
}

void book_moves(const Store& s, BookMeasures& last, std::span<const double> predicted, const BooksToLook& books,
                std::vector<BookMove>& out) {
  out.clear();
  // Book k of store order (outright books, then repo books); a book new to
  // `last` moved from 0.
  auto look = [&](NodeRef book, std::size_t k) {
    const double now = book_measure(s, book);
    const double p = k < predicted.size() ? predicted[k] : std::numeric_limits<double>::quiet_NaN();
    double& was = last[s.id(book)];
    if (now != was || (!std::isnan(p) && p != 0)) out.push_back({s.id(book), now - was, p});
    was = now;
  };
  if (books.all || !predicted.empty()) {
    std::size_t k = 0;
    for_each_book(s, [&](NodeRef book) { look(book, k++); });
    if (books.all) moves_of_books_gone(s, last, out);
    return;
  }
  for (NodeIndex b : books.outright) look(ref(Kind::outright_book, b), b);
  for (NodeIndex b : books.repo) look(ref(Kind::repo_book, b), s.outright_books.size() + b);
}

namespace {

// Larger first; of two the same size, the earlier.
bool larger(const EventMove& a, const EventMove& b) {
  return std::abs(a.move) != std::abs(b.move) ? std::abs(a.move) > std::abs(b.move) : a.seq < b.seq;
}

}  // namespace

PnlDay::PnlDay(std::int64_t seq, std::string time, std::map<std::int64_t, double> baselines)
    : seq_(seq), time_(std::move(time)) {
  for (const auto& [id, measure] : baselines) books_[id].baseline = measure;
}

std::vector<std::int64_t> PnlDay::book_ids() const {
  std::vector<std::int64_t> out;
  for (const auto& [id, book] : books_) out.push_back(id);
  std::sort(out.begin(), out.end());
  return out;
}

std::map<std::int64_t, double> PnlDay::recorded_measures() const {
  std::map<std::int64_t, double> out;
  for (const auto& [id, book] : books_) {
    double& measure = out[id] = book.baseline;
    for (const auto& [cause, total] : book.causes) measure += total.actual;
  }
  return out;
}

void PnlDay::record(std::int64_t seq, const Cause& cause, std::span<const BookMove> moves) {
  for (const BookMove& m : moves) {
    BookDay& book = books_[m.book_id];
    CauseTotal& total = book.causes[cause];
    total.actual += m.actual;
    if (!std::isnan(m.predicted)) {
      total.predicted += m.predicted;
      total.has_prediction = true;
    }
    if (m.actual == 0) continue;
    std::vector<EventMove>& kept = book.kept;
    kept.push_back({seq, cause, m.actual});
    if (kept.size() >= 2 * kKeptMoves) {  // the largest kKeptMoves stay (amortized: once per kKeptMoves moves)
      std::nth_element(kept.begin(), kept.begin() + kKeptMoves, kept.end(), larger);
      kept.resize(kKeptMoves);
    }
  }
}

double PnlDay::baseline(std::int64_t book_id) const {
  const auto it = books_.find(book_id);
  return it == books_.end() ? 0.0 : it->second.baseline;
}

const std::map<Cause, CauseTotal>& PnlDay::explain(std::int64_t book_id) const {
  static const std::map<Cause, CauseTotal> kNone;
  const auto it = books_.find(book_id);
  return it == books_.end() ? kNone : it->second.causes;
}

std::vector<EventMove> PnlDay::largest_moves(std::int64_t book_id, std::size_t count) const {
  const auto it = books_.find(book_id);
  if (it == books_.end()) return {};
  std::vector<EventMove> out = it->second.kept;
  const std::size_t n = std::min({count, kKeptMoves, out.size()});
  std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n), out.end(), larger);
  out.resize(n);
  return out;
}

}  // namespace bond_risk
