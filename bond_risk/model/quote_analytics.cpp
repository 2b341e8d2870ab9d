#include "bond_risk/model/quote_analytics.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>

#include "base/fast_exp.h"
#include "base/lanes.h"
#include "bond_risk/model/status.h"

namespace bond_risk {

namespace {

constexpr double kTolerance = 1e-12;  // of the price repriced (MODEL.md)
constexpr int kMaxSteps = 100;

// A root, or NaN when none exists or none was found within kMaxSteps; the
// evaluations taken.
struct Root {
  double x = kNull;
  int steps = 0;
};

double cash_flow(const RemainingFlows& f, std::size_t j) { return j + 1 == f.days.size() ? f.c100 + 100 : f.c100; }

// Both prices as one kind of sum, a vector of lanes at a time (base/lanes.h):
// sum_j a_j e^(b_j x), with its first three derivatives in x. The yield's
// is the flows in u = ln v (a_j = CF_j, b_j = j + w); P(x)'s the flows
// discounted on the curve, in the spread (a_j = CF_j df_j, b_j = -t_j in
// years). Where the b_j step by 1 (the yield's), e^(b_j x) is a geometric
// sequence, taken by products from three exps (within 1e-14 of each exp
// over 88 flows); else each is an exp (base/fast_exp.h).
class ExpSum {
 public:
  // A schedule within a curve's days: 20 years of quarterly coupons at most.
  static constexpr std::size_t kCapacity = 88;
  static_assert(kCapacity % base::kLanes == 0 && kCapacity * 89 > kNumForwardDays);

  template <class A, class B>
  ExpSum(std::size_t n, A a, B b, bool unit_steps) : n_(n), unit_steps_(unit_steps) {
    if (n > kCapacity) throw std::logic_error("a bond with more than 88 cash flows left");
    for (std::size_t j = 0; j < n; ++j) a_[j] = a(j), b_[j] = b(j);
    for (std::size_t j = n; j % base::kLanes != 0; ++j) a_[j] = b_[j] = 0;  // the last vector's spare lanes
  }

  struct Moments {
    double value, slope, curvature, third;  // sum a b^i e^(bx), i = 0 .. 3
  };
  Moments at(double x) const {
    base::Doubles value{}, slope{}, curvature{}, third{}, power{}, stride{}, one{};
    one += 1.0;
    const bool at_zero = x == 0;  // every exponential is 1: none to take (a spread solve starts there)
    if (unit_steps_) {  // power: e^(b_j x) of the lanes' first flows; stride: e^(kLanes x)
      const double ratio = std::exp(x);
      power[0] = std::exp(b_[0] * x);
      for (std::size_t k = 1; k < base::kLanes; ++k) power[k] = power[k - 1] * ratio;
      stride += std::exp(static_cast<double>(base::kLanes) * x);  // in every lane
    }
    for (std::size_t j = 0; j < n_; j += base::kLanes) {  // lanes past n_ hold a = b = 0: they add 0
      base::Doubles a, b;
      std::memcpy(&a, &a_[j], sizeof a);
      std::memcpy(&b, &b_[j], sizeof b);
      const base::Doubles e = unit_steps_ ? power : at_zero ? one : base::fast_exp(b * x);
      power *= stride;
      const base::Doubles term = a * e, moment = term * b, moment2 = moment * b;
      value += term;
      slope += moment;
      curvature += moment2;
      third += moment2 * b;
    }
    Moments m{0, 0, 0, 0};
    for (std::size_t k = 0; k < base::kLanes; ++k) {
      m.value += value[k], m.slope += slope[k], m.curvature += curvature[k], m.third += third[k];
    }
    return m;
  }

 private:
  std::size_t n_;
  bool unit_steps_;
  std::array<double, kCapacity> a_, b_;  // set up to the last vector read (not zeroed whole: a bond's time counts)
};

ExpSum yield_sum(const RemainingFlows& f) {
  return {f.days.size(), [&](std::size_t j) { return cash_flow(f, j); },
          [&](std::size_t j) { return static_cast<double>(j) + f.w; }, true};
}

ExpSum spread_sum(const RemainingFlows& f, std::span<const double> df) {
  return {f.days.size(), [&](std::size_t j) { return cash_flow(f, j) * df[f.days[j]]; },
          [&](std::size_t j) { return -(f.days[j] / kYearBasis); }, false};
}

// Halley's method on g(x) = ln(sum(x) / target), from x to |sum - target|
// <= kTolerance * target, taking one more step once there (free: the
// derivatives are at hand). The logarithm of a sum of exponentials is
// convex too and nearly straight far from the root: a step that overshoots
// onto the steep side comes back in a few steps, where a step on the sum
// itself would creep back by 1/duration at a time. Halley's step uses the
// curvature the sum gives anyway; where the curvature would more than
// double Newton's step, Newton's is taken. The bracket [lo, hi] of points
// known on either side of the root catches the rest: a step that leaves
// it, or a sum too large or too small for a double, goes halfway across it
// (or a stride past its one finite side).
//
// With the root come the sum's derivatives there, from those at the last
// point evaluated by one term of Taylor's series: that point is within
// about 1e-13 of the root, so the next term is below 1e-24 of them, and no
// pass over the flows is needed again for durations, convexity or cs01.
struct Solved {
  Root root;
  ExpSum::Moments at;
};
Solved solve(const ExpSum& sum, bool increasing, double target, double x) {
  double lo = -INFINITY, hi = INFINITY;
  for (int step = 1; step <= kMaxSteps; ++step) {
    const ExpSum::Moments m = sum.at(x);
    const double r = m.value / target - 1;  // near the root, ln(1 + r) by its series: no log call
    const double g = std::isnan(m.value) ? INFINITY : std::abs(r) < 1e-3 ? r * (1 - r * (0.5 - r / 3)) : std::log1p(r);
    ((g > 0) == increasing ? hi : lo) = x;
    const double g1 = m.slope / m.value, g2 = m.curvature / m.value - g1 * g1;
    const double halley = 2 * g1 * g1 - g * g2;
    double next = halley > g1 * g1 ? x - 2 * g * g1 / halley : x - g / g1;
    if (std::abs(m.value - target) <= kTolerance * target && std::isfinite(next)) {
      const double d = next - x;
      return {{next, step}, {m.value + d * m.slope, m.slope + d * m.curvature, m.curvature + d * m.third, m.third}};
    }
    if (!(next > lo && next < hi)) {
      next = std::isfinite(lo) && std::isfinite(hi) ? lo + (hi - lo) / 2
             : std::isfinite(lo)                    ? lo + std::max(1.0, std::abs(lo))
                                                    : hi - std::max(1.0, std::abs(hi));
    }
    x = next;
  }
  return {{kNull, kMaxSteps}, {}};
}

}  // namespace

RemainingFlows remaining_flows(const CouponGridDays& grids, Date today, GridPlace place, std::uint32_t coupons,
                               Date maturity, int coupons_per_year, double coupon) {
  const GridRange r = grid_range(grids, place, coupons);
  const std::size_t n = r.last - r.first + 1;
  const std::span<const std::uint16_t> days(grids.days.data() + grids.begin[place.grid] + r.first, n);
  const Date next = today + days.front();
  const Date prev = add_months(maturity, -static_cast<int>(n) * (12 / coupons_per_year));
  return {days, 100.0 * coupon / coupons_per_year, coupons_per_year,
          static_cast<double>(next - today) / static_cast<double>(next - prev)};
}

namespace {

// Whether a sum of the flows equal to `target` has a root: above what they
// pay today, and not only today's.
bool has_root(const RemainingFlows& flows, double target) {
  const double paid_today = flows.days.front() == 0 ? cash_flow(flows, 0) : 0;
  return target > paid_today && std::isfinite(target) && !(flows.days.size() == 1 && paid_today > 0);
}

// The root u = ln v of the yield's sum, from yield `guess` (NaN: the
// textbook approximation, the coupon plus the pull to par a year over the
// average of price and par).
Solved yield_root(const ExpSum& sum, const RemainingFlows& flows, double price, double guess) {
  const double f = flows.coupons_per_year;
  if (!has_root(flows, price)) return {};
  if (!std::isfinite(guess)) {
    const double years = (static_cast<double>(flows.days.size()) - 1 + flows.w) / f;
    guess = (flows.c100 * f + (100 - price) / std::max(years, 1.0 / f)) / ((100 + price) / 2);
    guess = std::clamp(guess, -0.5 * f, 1.0);
  }
  if (!(guess > -f)) guess = 0;
  return solve(sum, true, price, -std::log1p(guess / f));
}

Solved spread_root(const ExpSum& sum, const RemainingFlows& flows, double market_dirty, double guess) {
  if (!has_root(flows, market_dirty)) return {};
  return solve(sum, false, market_dirty, std::isfinite(guess) ? guess : 0.0);
}

}  // namespace

double spread_price(const RemainingFlows& flows, std::span<const double> df, double x) {
  return spread_sum(flows, df).at(x).value;
}

// The flows' zero rates on the curve, weighted by each flow's present value
// times its time (its part of the duration), compounded f times a year: a
// first guess of the yield two Halley steps from it for 98% of the bonds
// of the generated sets (the textbook approximation: three for 94%).
double curve_yield_guess(const RemainingFlows& flows, const CurveArrays& curve) {
  double weighted = 0, weights = 0;
  for (std::size_t j = 0; j < flows.days.size(); ++j) {
    const std::uint16_t d = flows.days[j];
    const double weight = cash_flow(flows, j) * curve.df[d] * d;
    weighted += weight * curve.r[d];
    weights += weight;
  }
  const double f = flows.coupons_per_year;
  return weights > 0 ? f * std::expm1(weighted / weights / f) : kNull;
}

BondFigures bond_figures(const RemainingFlows& flows, double price, double quote, const CurveArrays& curve) {
  const std::span<const double> df(curve.df.data(), static_cast<std::size_t>(curve.df.size()));
  BondFigures out;
  out.accrued = flows.c100 * std::max(0.0, 1 - flows.w);
  out.clean_price = price - out.accrued;
  const bool quoted = !is_null(quote);
  if (quoted) out.market_dirty = quote + out.accrued;
  if (flows.days.size() == 1 && flows.days.front() == 0) return out;  // its last cash flow is today's: no rate enters

  const Solved u = yield_root(yield_sum(flows), flows, price, curve_yield_guess(flows, curve));
  out.yield_steps = static_cast<std::uint8_t>(u.root.steps);
  if (is_null(u.root.x)) {
    BondFigures failed;
    failed.failure = AnalyticsFailure::no_yield;
    return failed;
  }
  const double f = flows.coupons_per_year;
  out.yield = f * std::expm1(-u.root.x);
  // With k_j = j + w: sum k CF v^k is the sum's slope in u, sum k^2 CF v^k its curvature.
  const double v = std::exp(u.root.x);
  out.macaulay_duration = u.at.slope / f / price;
  out.modified_duration = out.macaulay_duration * v;
  out.convexity = (u.at.curvature + u.at.slope) * v * v / (f * f) / price;

  if (!quoted) return out;
  const Solved s = spread_root(spread_sum(flows, df), flows, out.market_dirty, kNull);
  out.spread_steps = static_cast<std::uint8_t>(s.root.steps);
  if (is_null(s.root.x)) {
    BondFigures failed;
    failed.failure = AnalyticsFailure::no_spread;
    failed.yield_steps = out.yield_steps;
    return failed;
  }
  out.z_spread = s.root.x;
  // (P(s + h) - P(s - h)) / 2 is the sum of a e^(bs) sinh(bh): by its series h P'(s) + h^3 P'''(s) / 6,
  // within (bh)^4 / 20 of it (|bh| <= 20 years x 1bp: 1e-12 relative), and without the cancellation
  // of two prices near 100 that differ by a few hundredths.
  out.cs01 = kBump * s.at.slope + kBump * kBump * kBump * s.at.third / 6;
  return out;
}

}  // namespace bond_risk
