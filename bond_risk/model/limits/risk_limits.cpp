#include "bond_risk/model/limits/risk_limits.h"

#include <array>
#include <cmath>

#include "bond_risk/model/inputs/input_tables.h"

namespace bond_risk {

namespace {

constexpr std::array<std::string_view, 5> kMeasureNames = {"pv01", "kr01", "cs01", "day_pnl", "margin"};
constexpr std::array<std::string_view, 4> kStateNames = {"BREACHED", "UNKNOWN", "OK", "FAILED"};

// The kind of book a measure is read from; none: any book.
std::optional<Kind> book_kind_of(LimitMeasure m) {
  if (m == LimitMeasure::day_pnl) return std::nullopt;
  return m == LimitMeasure::margin ? Kind::repo_book : Kind::outright_book;
}

std::string number_text(double v) { return field_text(FieldValue{v}); }

}  // namespace

std::optional<LimitMeasure> parse_limit_measure(std::string_view name) {
  for (std::size_t k = 0; k < kMeasureNames.size(); ++k) {
    if (kMeasureNames[k] == name) return static_cast<LimitMeasure>(k);
  }
  return std::nullopt;
}

std::string_view limit_measure_name(LimitMeasure measure) { return kMeasureNames[static_cast<std::size_t>(measure)]; }

std::string_view limit_state_name(LimitState state) { return kStateNames[static_cast<std::size_t>(state)]; }

std::string limit_error(const Store& s, const RiskLimit& l) {
  if (!l.row_error.empty()) return l.row_error;
  if (!l.book_text.empty()) return "book_id '" + l.book_text + "' is not a whole number";
  const std::optional<LimitMeasure> m = parse_limit_measure(l.measure);
  if (!m) return "measure '" + l.measure + "' is not one of pv01, kr01, cs01, day_pnl, margin";
  if (!(l.lower <= l.upper)) return "lower " + number_text(l.lower) + " is above upper " + number_text(l.upper);
  if (l.book_id) {
    const NodeRef* book = s.by_id.find(*l.book_id);
    if (!book || !is_book(kind_of(*book))) return "book_id " + std::to_string(*l.book_id) + " names no outright_book or repo_book";
    const std::optional<Kind> kind = book_kind_of(*m);
    if (kind && *kind != kind_of(*book)) {
      return std::string(limit_measure_name(*m)) + " is a measure of " + std::string(kind_name(*kind)) + "s, and " +
             s.name_of(*book) + " is not one";
    }
  }
  if (*m == LimitMeasure::kr01) {
    if (!l.point_error.empty()) return l.point_error;
    if (!l.ir_curve_id || !l.idx) return "a kr01 limit needs ir_curve_id and idx (its input point)";
    if (!s.with_key_rates) return "kr01 needs the key-rate ladders (KEY_RATES=1)";
    const NodeRef* curve = s.by_id.find(*l.ir_curve_id);
    if (!curve || kind_of(*curve) != Kind::ir_curve) return "ir_curve_id " + std::to_string(*l.ir_curve_id) + " names no ir_curve";
    if (!s.curves[curve->index].position_of(*l.idx)) return "ir_curve " + s.name_of(*curve) + " has no input point idx " + std::to_string(*l.idx);
  }
  if (*m == LimitMeasure::cs01 && !s.with_quote_analytics) return "cs01 needs quote analytics (QUOTE_ANALYTICS=1)";
  return {};
}

ResolvedLimit resolve_limit(const Store& s, const PnlDay& day, const RiskLimit& l) {
  ResolvedLimit out{*parse_limit_measure(l.measure), std::nullopt, 0, 0, l.lower, l.upper};
  if (l.book_id) out.book = *s.by_id.find(*l.book_id);
  if (out.book && out.measure == LimitMeasure::day_pnl) out.baseline = day.baseline(*l.book_id);
  if (out.measure == LimitMeasure::kr01) {
    const NodeRef curve = *s.by_id.find(*l.ir_curve_id);
    out.kr_at = s.key_rate_axis.offset[curve.index] + *s.curves[curve.index].position_of(*l.idx);
  }
  return out;
}

BookPart book_part(const Store& s, NodeRef book, const ResolvedLimit& l, double baseline) {
  double v = 0;
  switch (l.measure) {
    case LimitMeasure::pv01: v = s.outright_books[book.index].total.pv01; break;
    case LimitMeasure::kr01: v = s.outright_books[book.index].kr01.at(l.kr_at); break;
    case LimitMeasure::cs01: v = s.outright_books[book.index].cs01; break;
    case LimitMeasure::margin: v = s.repo_books[book.index].total.margin; break;
    case LimitMeasure::day_pnl: v = book_measure(s, book) - baseline; break;
  }
  return {std::isnan(v) ? 0.0 : v, s.state(book).status == Status::ok};
}

bool total_reads(const ResolvedLimit& l, Kind kind) {
  const std::optional<Kind> k = book_kind_of(l.measure);
  return !k || *k == kind;
}

LimitReading reading_of(double value, bool all_ok, double lower, double upper) {
  LimitReading out;
  out.value = value;
  out.state = state_of(value, all_ok, lower, upper);
  if (out.state == LimitState::unknown) return out;
  out.bound = value < lower ? lower : value > upper ? upper : value >= 0 ? upper : lower;
  if (std::isfinite(out.bound) && out.bound != 0 && (out.bound > 0) == (value >= 0)) out.utilization = value / out.bound;
  return out;
}

LimitReading read_limit(const Store& s, const PnlDay& day, const RiskLimit& l) {
  std::string error = limit_error(s, l);
  if (!error.empty()) return {LimitState::failed, NAN, NAN, NAN, std::move(error)};
  return read_limit(s, day, resolve_limit(s, day, l));
}

LimitReading read_limit(const Store& s, const PnlDay& day, const ResolvedLimit& l) {
  if (l.book) {
    const BookPart part = book_part(s, *l.book, l, l.baseline);
    return reading_of(part.value, part.ok, l.lower, l.upper);
  }
  bool all_ok = true;
  double value = 0;
  for_each_total_book(s, l, [&](NodeRef book) {
    const BookPart part = book_part(s, book, l, l.measure == LimitMeasure::day_pnl ? day.baseline(s.id(book)) : 0);
    all_ok = all_ok && part.ok;
    if (total_sums_part(l, part)) value += part.value;
  });
  return reading_of(value, all_ok, l.lower, l.upper);
}

}  // namespace bond_risk
