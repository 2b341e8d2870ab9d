#include "bond_risk/model/quote_analytics.h"

#include <algorithm>

#include "base/fast_exp.h"
#include "base/lanes.h"
#include "bond_risk/model/exp_sum.h"
#include "bond_risk/model/status.h"

namespace bond_risk {

namespace {

// The moments a walk takes: the spread's from 0, up to a few hundredths
// from its root; the yield's from its start, a few ten-thousandths
// (docs/quote-analytics.md).
constexpr int kSpreadOrder = kMaxOrder, kYieldOrder = 6;

// The yield's sum: the flows in u = ln v (a_j = CF_j, b_j = j + w).
ExpSum yield_sum(const RemainingFlows& f) {
  return {f.days.size(), [&](std::size_t j) { return cash_flow(f, j); },
          [&](std::size_t j) { return static_cast<double>(j) + f.w; }, true};
}

// P(x): the flows discounted on the curve, in the spread (a_j = CF_j df_j, b_j = -t_j in years).
ExpSum spread_sum(const RemainingFlows& f, std::span<const double> df) {
  return {f.days.size(), [&](std::size_t j) { return cash_flow(f, j) * df[f.days[j]]; },
          [&](std::size_t j) { return -(f.days[j] * kYearsPerDay); }, false};
}

// Whether a sum of the flows equal to `target` has a root: above what they
// pay today, and not only today's.
bool has_root(const RemainingFlows& flows, double target) {
  const double paid_today = flows.days.front() == 0 ? cash_flow(flows, 0) : 0;
  return target > paid_today && std::isfinite(target) && !(flows.days.size() == 1 && paid_today > 0);
}

// The yield's start u = -r / f, r the flows' zero rates weighted by their
// present values times their times (their parts of the duration; r
// compounded f times a year is e^(r/f) - 1 a period, so v = e^(-r/f)):
// nearly every bond's yield polishes from it at its first evaluation
// (docs/quote-analytics.md).
double curve_yield_start(const ExpSum& on_curve, const RemainingFlows& flows, const CurveArrays& curve) {
  base::Doubles weighted{}, weights{};
  for (std::size_t j = 0; j < on_curve.size(); j += base::kLanes) {  // spare lanes: a = 0
    base::Doubles a, b, r{};
    std::memcpy(&a, on_curve.a() + j, sizeof a);
    std::memcpy(&b, on_curve.b() + j, sizeof b);
    for (std::size_t k = 0; k < base::kLanes && j + k < on_curve.size(); ++k) r[k] = curve.r[flows.days[j + k]];
    const base::Doubles weight = a * -b;  // CF df t
    weighted += weight * r;
    weights += weight;
  }
  double sum = 0, total = 0;
  for (std::size_t k = 0; k < base::kLanes; ++k) sum += weighted[k], total += weights[k];
  return total > 0 ? -(sum / total) / flows.coupons_per_year : kNull;
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
  return solve<kYieldOrder>(yield_sum(flows), true, price, start, 2);
}

// The root of P(x) = market_dirty, walking from 0 (where the moments take
// no exps). cs01 reads the slope (and the third derivative, a correction
// of 1e-6 of it).
Root spread_root(const ExpSum& on_curve, const RemainingFlows& flows, double market_dirty) {
  if (!has_root(flows, market_dirty)) return {};
  return solve<kSpreadOrder>(on_curve, false, market_dirty, 0.0, 1);
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

BondFigures bond_figures(const RemainingFlows& flows, double price, double quote, const CurveArrays& curve) {
  const std::span<const double> df(curve.df.data(), static_cast<std::size_t>(curve.df.size()));
  BondFigures out;
  out.accrued = flows.c100 * std::max(0.0, 1 - flows.w);
  out.clean_price = price - out.accrued;
  const bool quoted = !is_null(quote);
  if (quoted) out.market_dirty = quote + out.accrued;
  if (flows.days.size() == 1 && flows.days.front() == 0) return out;  // its last cash flow is today's: no rate enters

  const ExpSum on_curve = spread_sum(flows, df);  // P(x): the yield's start reads it too
  const Root u = yield_root(flows, price, curve_yield_start(on_curve, flows, curve));
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
  const Root s = spread_root(on_curve, flows, out.market_dirty);
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
