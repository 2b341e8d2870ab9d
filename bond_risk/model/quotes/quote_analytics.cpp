#include "bond_risk/model/quotes/quote_analytics.h"

#include <algorithm>

#include "bond_risk/model/quotes/exp_sum.h"
#include "bond_risk/model/quotes/stream_roots.h"
#include "bond_risk/model/pricing/status.h"

namespace bond_risk {

namespace {

// The order of the yield's moments: its start is a few ten-thousandths
// from its root (docs/quote-analytics.md).
constexpr int kYieldOrder = 6;

// P(x): the flows discounted on the curve, in the spread (a_j = CF_j df_j, b_j = -t_j in years).
ExpSum spread_sum(const RemainingFlows& f, std::span<const double> df) {
  return {f.days.size(), [&](std::size_t j) { return cash_flow(f, j) * df[f.days[j]]; },
          [&](std::size_t j) { return -(f.days[j] * kYearsPerDay); }};
}

// Whether a sum of the flows equal to `target` has a root: above what they
// pay today, and not only today's.
bool has_root(const RemainingFlows& flows, double target) {
  const double paid_today = flows.days.front() == 0 ? cash_flow(flows, 0) : 0;
  return target > paid_today && std::isfinite(target) && !(flows.days.size() == 1 && paid_today > 0);
}

// Where the yield's solve starts: u = `start` if finite (the curve's
// rates, bond_figures), else the textbook approximation at `price`.
double yield_start(const RemainingFlows& flows, double price, double start) {
  if (std::isfinite(start)) return start;
  const double f = flows.coupons_per_year;
  return textbook_yield_start(flows.c100 * f, (static_cast<double>(flows.days.size()) - 1 + flows.w) / f, price,
                              flows.coupons_per_year);
}

// A batch's solves of one kind: for which bond, from where, to what; each
// polished beside the others (polish_each), then finished alone.
struct Solves {
  std::array<std::size_t, kFiguresBatch> bond;
  std::array<Moments, kFiguresBatch> at;
  std::array<double, kFiguresBatch> x, target;
  std::array<Polished, kFiguresBatch> polished;
  std::array<bool, kFiguresBatch> dropped;  // no longer to be solved: polished with the rest, then passed over
  std::size_t count = 0;

  // A solve of bond b from x = `from` to `to`: its moments there go into the slot returned.
  Moments& add(std::size_t b, double from, double to) {
    bond[count] = b, x[count] = from, target[count] = to, dropped[count] = false;
    return at[count++];
  }
  void polish(int exact) {
    polish_each(std::span(at).first(count), std::span(x).first(count), std::span(target).first(count), exact,
                std::span(polished).first(count));
  }
};

// The coupon stream's moments at u: a walk over the flows.
Moments stream_at(const RemainingFlows& flows, double u) {
  return CouponStream(flows.days.size(), flows.w, flows.c100).at<kYieldOrder>(u);
}

// Solve j of `solves`, a yield's over `flows`, finished from where its
// polish left it (with the moments the durations and convexity read proven
// at the root): walking the coupon stream where that proved no root.
Root finish_yield(const Solves& solves, std::size_t j, const RemainingFlows& flows) {
  const auto walk = [&](double u) { return stream_at(flows, u); };
  return solve(walk, true, solves.target[j], solves.x[j], 2, solves.at[j], solves.polished[j]);
}

// A quote yield the closed form did not reach (rare): the stream walked
// from `from`, only the price proven at the root.
Root walked_quote_yield(const RemainingFlows& flows, double target, double from) {
  const auto walk = [&](double u) { return stream_at(flows, u); };
  const Moments first = walk(from);
  return solve(walk, true, target, from, 0, first, polish(first, from, target, 0));
}

}  // namespace

BondFigures failed(AnalyticsFailure why, std::uint8_t yield_steps) {
  BondFigures none;
  none.failure = why;
  none.yield_steps = yield_steps;
  return none;
}

double textbook_yield_start(double annual_coupon, double years, double price, int coupons_per_year) {
  const double f = coupons_per_year;
  const double guess = (annual_coupon + (100 - price) / std::max(years, 1.0 / f)) / ((100 + price) / 2);
  const double per_period = std::clamp(guess, -0.5 * f, 1.0) / f;
  return -2 * per_period / (2 + per_period);  // ln(1 + x) to within x^3 / 12: a start needs no more
}

double spread_price(const RemainingFlows& flows, std::span<const double> df, double x) {
  return spread_sum(flows, df).at<0>(x).m[0];
}

BondFigures bond_figures(const RemainingFlows& flows, double price, double quote, const CurveArrays& curve,
                         std::span<const MomentSums> rows) {
  const BondInputs in{flows, price, quote, &curve, rows};
  BondFigures out;
  bond_figures({&in, 1}, {&out, 1});
  return out;
}

void bond_figures(std::span<const BondInputs> bonds, std::span<BondFigures> out) {
  if (bonds.size() > kFiguresBatch || out.size() != bonds.size()) throw std::logic_error("bond_figures: a batch too large");
  // A spread and a quote-yield solve for each quoted bond, the spread's dropped if its yield or a root fails.
  Solves yields, spreads;
  std::array<std::size_t, kFiguresBatch> spread_of;
  std::array<StreamSolve, kFiguresBatch> stream;  // the quote yields, in closed form
  std::array<std::size_t, kFiguresBatch> quote_bond;
  std::size_t streams = 0;
  Moments unquoted;  // the moments of a bond with no quote: only the yield's start reads them
  for (std::size_t b = 0; b < bonds.size(); ++b) {
    const BondInputs& in = bonds[b];
    BondFigures& o = out[b];
    o = {};
    o.accrued = in.flows.c100 * std::max(0.0, 1 - in.flows.w);
    o.clean_price = in.price - o.accrued;
    if (!is_null(in.quote)) o.market_dirty = in.quote + o.accrued;
    if (in.flows.days.size() == 1 && in.flows.days.front() == 0) continue;  // its last cash flow is today's: no rate enters
    if (!has_root(in.flows, in.price)) {
      o = failed(AnalyticsFailure::no_yield, 0);
      continue;
    }
    // The yield starts at u = -r / f, r the flows' zero rates weighted by their present values times their
    // times (their parts of the duration; r compounded f times a year is e^(r/f) - 1 a period, so v =
    // e^(-r/f)): nearly every bond's yield polishes from it at its first evaluation (docs/quote-analytics.md).
    const bool quoted = !is_null(in.quote);
    if (quoted) spread_of[b] = spreads.count;
    Moments& at_zero = quoted ? spreads.add(b, 0.0, o.market_dirty) : unquoted;
    const double rate = on_curve(in.flows, in.rows, *in.curve, at_zero);
    const double start = yield_start(in.flows, in.price, -rate / in.flows.coupons_per_year);
    const CouponStream sum(in.flows.days.size(), in.flows.w, in.flows.c100);  // the flows in u = ln v
    sum.at<kYieldOrder>(start, yields.add(b, start, in.price));
  }

  yields.polish(2);
  for (std::size_t j = 0; j < yields.count; ++j) {
    const std::size_t b = yields.bond[j];
    const BondInputs& in = bonds[b];
    BondFigures& o = out[b];
    const Root u = finish_yield(yields, j, in.flows);
    const bool quoted = !is_null(in.quote);
    if (is_null(u.x)) {
      o = failed(AnalyticsFailure::no_yield, 0);
      if (quoted) spreads.dropped[spread_of[b]] = true;
      continue;
    }
    o.yield_steps = static_cast<std::uint8_t>(u.steps);
    const double f = in.flows.coupons_per_year, per_period = std::expm1(-u.x);  // y / f = 1 / v - 1
    o.yield = f * per_period;
    // With k_j = j + w: sum k CF v^k is the sum's slope in u, sum k^2 CF v^k its curvature.
    const double v = 1 / (1 + per_period), per_price = 1 / (f * in.price);
    o.macaulay_duration = u.at.slope * per_price;
    o.modified_duration = o.macaulay_duration * v;
    o.convexity = (u.at.curvature + u.at.slope) * (v * v) * per_price / f;
    if (quoted && !has_root(in.flows, o.market_dirty)) {
      o = failed(AnalyticsFailure::no_spread, o.yield_steps);
      spreads.dropped[spread_of[b]] = true;
      continue;
    }
    if (!quoted) continue;
    if (!is_null(in.quote_yield)) {  // solved before for this quote and these flows
      o.quote_yield = in.quote_yield;
      continue;
    }
    // The quote's yield: the same sum's root at the quote's dirty price, from the textbook yield there, in
    // closed form with the others of the batch (stream_roots.h).
    quote_bond[streams] = b;
    stream[streams++] = {static_cast<double>(in.flows.days.size()), in.flows.w, in.flows.c100, o.market_dirty,
                         yield_start(in.flows, o.market_dirty, kNull)};
  }
  std::array<double, kFiguresBatch> stream_root;
  stream_roots(std::span(stream).first(streams), std::span(stream_root).first(streams));
  for (std::size_t k = 0; k < streams; ++k) {
    const std::size_t b = quote_bond[k];
    const BondInputs& in = bonds[b];
    BondFigures& o = out[b];
    const double u = is_null(stream_root[k]) ? walked_quote_yield(in.flows, stream[k].target, stream[k].start).x
                                             : stream_root[k];
    if (is_null(u)) {
      o = failed(AnalyticsFailure::no_quote_yield, o.yield_steps);
      spreads.dropped[spread_of[b]] = true;
      continue;
    }
    o.quote_yield = yield_of(u, in.flows.coupons_per_year);
  }

  // P(x) = market_dirty from 0, where the grid gave P's moments; the flows
  // are walked on the curve only where those prove no root.
  spreads.polish(1);
  for (std::size_t j = 0; j < spreads.count; ++j) {
    if (spreads.dropped[j]) continue;
    const std::size_t b = spreads.bond[j];
    const BondInputs& in = bonds[b];
    BondFigures& o = out[b];
    const auto walk = [&](double x) {  // rare: the sum is laid out afresh for each walk
      return spread_sum(in.flows, {in.curve->df.data(), static_cast<std::size_t>(in.curve->df.size())})
          .at<kSpreadOrder>(x);
    };
    const Root s = solve(walk, false, o.market_dirty, 0.0, 1, spreads.at[j], spreads.polished[j]);
    if (is_null(s.x)) {
      o = failed(AnalyticsFailure::no_spread, o.yield_steps);
      continue;
    }
    o.spread_steps = static_cast<std::uint8_t>(s.steps);
    o.z_spread = s.x;
    // cs01 reads the slope and the third derivative: (P(s + h) - P(s - h)) / 2 is the sum of a e^(bs)
    // sinh(bh), by its series h P'(s) + h^3 P'''(s) / 6 within (bh)^4 / 20 of it (|bh| <= 20 years x
    // 1bp: 1e-12 relative), and without the cancellation of two prices near 100 that differ by a few
    // hundredths.
    o.cs01 = kBump * s.at.slope + kBump * kBump * kBump * s.at.third / 6;
  }
}

}  // namespace bond_risk
