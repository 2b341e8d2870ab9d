#include "bond_risk/model/quote_analytics.h"

#include <algorithm>

#include "base/fast_exp.h"
#include "base/lanes.h"
#include "bond_risk/model/exp_sum.h"
#include "bond_risk/model/status.h"

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

// The root u = ln v of the yield's sum, walking from u = `start` (NaN:
// from the textbook approximation of the yield, the coupon plus the pull
// to par a year over the average of price and par). Durations and
// convexity read the sum's slope and curvature.
Root yield_root(const RemainingFlows& flows, double price, double start) {
  if (!has_root(flows, price)) return {};
  if (!std::isfinite(start)) {
    const double f = flows.coupons_per_year, years = (static_cast<double>(flows.days.size()) - 1 + flows.w) / f;
    const double guess = (flows.c100 * f + (100 - price) / std::max(years, 1.0 / f)) / ((100 + price) / 2);
    start = -std::log1p(std::clamp(guess, -0.5 * f, 1.0) / f);
  }
  const CouponStream sum(flows.days.size(), flows.w, flows.c100);  // the flows in u = ln v
  const auto walk = [&](double u) { return sum.at<kYieldOrder>(u); };
  return solve(walk, true, price, start, 2, walk(start));
}

// The root of P(x) = market_dirty from 0, where the grid gave P's moments;
// the flows are walked on the curve only if those prove no root. cs01
// reads the slope (and the third derivative, a correction of 1e-6 of it).
Root spread_root(const Moments& at_zero, const RemainingFlows& flows, std::span<const double> df,
                 double market_dirty) {
  if (!has_root(flows, market_dirty)) return {};
  std::optional<ExpSum> sum;
  const auto walk = [&](double x) {
    if (!sum) sum.emplace(spread_sum(flows, df));
    return sum->at<kSpreadOrder>(x);
  };
  return solve(walk, false, market_dirty, 0.0, 1, at_zero);
}

// A bond's figures when a solve found no root: every one null.
BondFigures failed(AnalyticsFailure why, std::uint8_t yield_steps) {
  BondFigures none;
  none.failure = why;
  none.yield_steps = yield_steps;
  return none;
}

}  // namespace

double spread_price(const RemainingFlows& flows, std::span<const double> df, double x) {
  return spread_sum(flows, df).at<0>(x).m[0];
}

BondFigures bond_figures(const RemainingFlows& flows, double price, double quote, const CurveArrays& curve,
                         std::span<const MomentSums> rows) {
  const std::span<const double> df(curve.df.data(), static_cast<std::size_t>(curve.df.size()));
  BondFigures out;
  out.accrued = flows.c100 * std::max(0.0, 1 - flows.w);
  out.clean_price = price - out.accrued;
  const bool quoted = !is_null(quote);
  if (quoted) out.market_dirty = quote + out.accrued;
  if (flows.days.size() == 1 && flows.days.front() == 0) return out;  // its last cash flow is today's: no rate enters

  // The yield starts at u = -r / f, r the flows' zero rates weighted by their present values times their
  // times (their parts of the duration; r compounded f times a year is e^(r/f) - 1 a period, so v =
  // e^(-r/f)): nearly every bond's yield polishes from it at its first evaluation (docs/quote-analytics.md).
  const OnCurve on = on_curve(flows, rows, curve);
  const Root u = yield_root(flows, price, -on.weighted_rate / flows.coupons_per_year);
  out.yield_steps = static_cast<std::uint8_t>(u.steps);
  if (is_null(u.x)) return failed(AnalyticsFailure::no_yield, 0);
  const double f = flows.coupons_per_year;
  out.yield = f * std::expm1(-u.x);
  // With k_j = j + w: sum k CF v^k is the sum's slope in u, sum k^2 CF v^k its curvature.
  const double v = base::fast_exp(u.x);
  out.macaulay_duration = u.at.slope / f / price;
  out.modified_duration = out.macaulay_duration * v;
  out.convexity = (u.at.curvature + u.at.slope) * v * v / (f * f) / price;

  if (!quoted) return out;
  const Root s = spread_root(on.at_zero, flows, df, out.market_dirty);
  out.spread_steps = static_cast<std::uint8_t>(s.steps);
  if (is_null(s.x)) return failed(AnalyticsFailure::no_spread, out.yield_steps);
  out.z_spread = s.x;
  // (P(s + h) - P(s - h)) / 2 is the sum of a e^(bs) sinh(bh): by its series h P'(s) + h^3 P'''(s) / 6,
  // within (bh)^4 / 20 of it (|bh| <= 20 years x 1bp: 1e-12 relative), and without the cancellation
  // of two prices near 100 that differ by a few hundredths.
  out.cs01 = kBump * s.at.slope + kBump * kBump * kBump * s.at.third / 6;
  return out;
}

}  // namespace bond_risk
