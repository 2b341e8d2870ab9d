#include "bond_risk/model/quote_analytics.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
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

// The sum's value and its first three derivatives in x at one point.
struct Sums {
  double value, slope, curvature, third;
};

// The moments a sum's evaluation takes: the spread's solve starts from 0,
// up to a few hundredths from its root, the yield's from the curve's
// rates, a few ten-thousandths (z below; docs/quote-analytics.md).
constexpr int kSpreadOrder = 12, kYieldOrder = 6;
constexpr int kMaxOrder = kSpreadOrder;

// Both prices as one kind of sum, a vector of lanes at a time (base/lanes.h):
// s(x) = sum_j a_j e^(b_j x), with its moments m_i = sum_j a_j b_j^i e^(b_j x)
// (its i-th derivatives) up to an order, so that its Taylor polynomial
// about the point stands in for it nearby. The yield's sum is the flows in
// u = ln v (a_j = CF_j, b_j = j + w); P(x)'s the flows discounted on the
// curve, in the spread (a_j = CF_j df_j, b_j = -t_j in years). Where the
// b_j step by 1 (the yield's), e^(b_j x) is a geometric sequence, taken by
// products from two exps (within 1e-14 of each exp over 88 flows); else
// each is an exp (base/fast_exp.h), and none at x = 0.
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

  std::size_t size() const { return n_; }
  const double* a() const { return a_.data(); }  // a_j, then 0 to the end of the last vector
  const double* b() const { return b_.data(); }
  // The largest |b_j|: how fast the terms change with x (the b_j are monotone).
  double reach() const { return std::max(std::abs(b_[0]), std::abs(b_[n_ - 1])); }

  struct Moments {
    int order;                            // m[i] for i above it: 0
    std::array<double, kMaxOrder + 1> m;  // m[i] = sum a b^i e^(bx)
    double magnitude;                     // sum |a| e^(bx): the size every term's error is bounded by
  };
  template <int Order>
  Moments at(double x) const {
    if (unit_steps_) {  // e^(b_j x) from the lanes' first flows' by a factor e^(kLanes x) a vector
      const double ratio = base::fast_exp(x);
      base::Doubles power{}, stride{};
      power[0] = base::fast_exp(b_[0] * x);
      for (std::size_t k = 1; k < base::kLanes; ++k) power[k] = power[k - 1] * ratio;
      stride += power[base::kLanes - 1] * ratio / power[0];
      return moments<Order>([&](base::Doubles) {
        const base::Doubles e = power;
        power *= stride;
        return e;
      });
    }
    if (x == 0) return moments<Order>([](base::Doubles) { return base::Doubles{} + 1.0; });  // where a spread solve starts
    return moments<Order>([x](base::Doubles b) { return base::fast_exp(b * x); });
  }

 private:
  // The moments with e^(b_j x) a vector at a time from exps(b), in order.
  template <int Order, class Exps>
  Moments moments(Exps exps) const {
    std::array<base::Doubles, Order + 1> m{};
    base::Doubles magnitude{};
    const base::Uint64s kNoSign = ~base::Uint64s{} >> 1;
    for (std::size_t j = 0; j < n_; j += base::kLanes) {  // lanes past n_ hold a = b = 0: they add 0
      base::Doubles a, b;
      std::memcpy(&a, &a_[j], sizeof a);
      std::memcpy(&b, &b_[j], sizeof b);
      base::Doubles term = a * exps(b);
      magnitude += reinterpret_cast<base::Doubles>(reinterpret_cast<base::Uint64s>(term) & kNoSign);
      for (int i = 0; i <= Order; ++i) m[i] += term, term *= b;
    }
    Moments out{Order, {}, 0};
    for (std::size_t k = 0; k < base::kLanes; ++k) {
      for (int i = 0; i <= Order; ++i) out.m[i] += m[i][k];
      out.magnitude += magnitude[k];
    }
    return out;
  }

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
          [&](std::size_t j) { return -(f.days[j] * kYearsPerDay); }, false};
}

struct Solved {
  Root root;
  Sums at;  // the sum's derivatives at the root
};

// The Taylor polynomial of order K about a point stands in for the sum
// nearby: Lagrange's remainder bounds each term's error, so the sum's, by
// magnitude z^(K+1) / (K+1)! e^z at a distance d, with z = reach |d|, and
// the i-th moment's by reach^i magnitude z^(K+1-i) / (K+1-i)! e^z. Its
// root costs no pass over the flows (Newton's method on the polynomial),
// and is proven a root of the sum where the bounds put the price within
// kTolerance of the target and the moments the figures read (up to
// `exact`) within kMomentTolerance. The order is the least that proves
// them at Halley's estimate of d. So a solve that starts near its root
// ends at its first evaluation.
constexpr double kMomentTolerance = 1e-13;
constexpr double kMaxReach = 0.5;  // the largest z trusted: e^z < kExpMaxReach
constexpr double kExpMaxReach = 1.6488;
constexpr int kLeastOrder = 4;  // the root's Sums read up to the third moment

constexpr std::array<double, kMaxOrder + 1> inverse_factorials() {
  std::array<double, kMaxOrder + 1> inverse{};
  double factorial = 1;
  for (int i = 0; i <= kMaxOrder; ++i) factorial *= i > 0 ? i : 1, inverse[i] = 1 / factorial;
  return inverse;
}
constexpr std::array<double, kMaxOrder + 1> kInverseFactorial = inverse_factorials();
constexpr std::array<double, kMaxOrder + 2> inverses() {
  std::array<double, kMaxOrder + 2> inverse{};
  for (int i = 1; i <= kMaxOrder + 1; ++i) inverse[i] = 1.0 / i;
  return inverse;
}
constexpr std::array<double, kMaxOrder + 2> kInverse = inverses();  // 1 / k

// The polynomial of an order and its first `Count` - 1 derivatives at d, by
// Horner's scheme, side by side.
template <int Count>
std::array<double, Count> taylor(const ExpSum::Moments& at, int order, double d) {
  std::array<double, Count> p{};
  for (int i = order; i >= 0; --i) {
    for (int k = 0; k < Count; ++k) {
      if (i >= k) p[k] = p[k] * d + at.m[i] * kInverseFactorial[i - k];
    }
  }
  return p;
}

// The bounds on moment i's error at d, i = 0 .. exact, for an order: the
// price's is z^(K+1) / (K+1)! magnitude e^z, moment i's that times
// (K+1)! / (K+1-i)! / |d|^i; each within its allowance (the price's: what
// its distance from the target leaves of kTolerance).
struct Proof {
  const ExpSum::Moments& at;
  double reach, target;
  int exact;

  double price_bound(int order, double z) const {
    double bound = at.magnitude * kExpMaxReach;
    for (int k = 1; k <= order + 1; ++k) bound *= z * kInverse[k];
    return bound;
  }
  bool holds(int order, double d, const std::array<double, 3>& near) const {
    double bound = price_bound(order, reach * std::abs(d));
    if (!(bound <= kTolerance * target - std::abs(near[0] - target))) return false;
    const double inverse_d = 1 / std::abs(d);
    for (int i = 1; i <= exact; ++i) {
      bound *= (order + 2 - i) * inverse_d;
      if (!(bound <= kMomentTolerance * std::abs(near[i]))) return false;
    }
    return true;
  }
  // The least order whose bound on the last moment read, at d, is within
  // half its allowance with that moment near its value here (within e^z);
  // 0 if none is. holds() then checks every bound at the root.
  int least_order(double d) const {
    const double z = reach * std::abs(d);
    if (!(z <= kMaxReach)) return 0;  // NaN too
    const double allowance = exact == 0 ? kTolerance * target : kMomentTolerance * std::abs(at.m[exact]) / 2;
    double bound = at.magnitude * kExpMaxReach;  // z^(K+1-exact) / (K+1-exact)! of it, times reach^exact
    for (int i = 1; i <= exact; ++i) bound *= reach;
    for (int k = 1; k <= kLeastOrder - exact; ++k) bound *= z * kInverse[k];
    for (int order = kLeastOrder; order <= at.order; ++order) {
      bound *= z * kInverse[order + 1 - exact];
      if (bound <= allowance / 2) return order;
    }
    return 0;
  }
};

// At the point x with moments `at`: the proven root, else where to look
// next (NaN: the Taylor polynomial has no root near). Halley's method on
// the polynomial, from Halley's step on the sum, to a price within
// kTolerance / 2; then Newton's step, taken on the derivatives by their
// own slopes (its size times reach is below 1e-11, so the terms left out
// are below 1e-22 of each).
struct Polished {
  std::optional<Solved> solved;
  double next = kNull;
};
Polished polish(const ExpSum::Moments& at, double x, double target, double reach, int exact, int steps) {
  std::array<double, 4> p{at.m[0], at.m[1], at.m[2], at.m[3]};
  double d = 0;
  const Proof proof{at, reach, target, exact};
  int order = 0;
  for (int k = 0;; ++k) {
    const double f = p[0] - target, halley = 2 * p[1] * p[1] - f * p[2];
    if (std::abs(f) <= kTolerance / 2 * target && k > 0) {
      const double step = -f / p[1];
      d += step;
      p = {p[0] + step * p[1], p[1] + step * p[2], p[2] + step * p[3], p[3]};
      break;
    }
    d += halley > p[1] * p[1] ? -2 * f * p[1] / halley : -f / p[1];
    if (k == 0) order = proof.least_order(d);
    if (order == 0 || k == 8 || !(reach * std::abs(d) <= kMaxReach)) return {};  // NaN too
    p = taylor<4>(at, order, d);
  }
  if (proof.holds(order, d, {p[0], p[1], p[2]})) return {Solved{{x + d, steps}, {p[0], p[1], p[2], p[3]}}, x + d};
  return {{}, x + d};
}

// The root of sum(x) = target from x, its evaluations taking the moments
// to Order: at each point evaluated, the Taylor polynomial's root if
// proven; else the next point is that root where it lies near, or a step
// of Halley's method on g(x) = ln(sum(x) / target). The logarithm of a sum
// of exponentials is convex too and nearly straight far from the root: a
// step that overshoots onto the steep side comes back in a few steps,
// where a step on the sum itself would creep back by 1/duration at a time.
// Halley's step uses the curvature the sum gives anyway; where the
// curvature would more than double Newton's step, Newton's is taken. The
// bracket [lo, hi] of points known on either side of the root catches the
// rest: a step that leaves it, or a sum too large or too small for a
// double, goes halfway across it (or a stride past its one finite side).
template <int Order>
Solved solve(const ExpSum& sum, bool increasing, double target, double x, int exact) {
  double lo = -INFINITY, hi = INFINITY;
  for (int step = 1; step <= kMaxSteps; ++step) {
    const ExpSum::Moments at = sum.at<Order>(x);
    const Polished polished = polish(at, x, target, sum.reach(), exact, step);
    if (polished.solved) return *polished.solved;
    const double value = at.m[0], r = value / target - 1;
    const double g = std::isnan(value) ? INFINITY : std::log1p(r);
    ((g > 0) == increasing ? hi : lo) = x;
    const double g1 = at.m[1] / value, g2 = at.m[2] / value - g1 * g1;
    const double halley = 2 * g1 * g1 - g * g2;
    double next = std::isfinite(polished.next) ? polished.next
                  : halley > g1 * g1           ? x - 2 * g * g1 / halley
                                               : x - g / g1;
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

// The root u = ln v of the yield's sum, from u = `start` (NaN: from the
// textbook approximation of the yield, the coupon plus the pull to par a
// year over the average of price and par). Durations and convexity read
// the sum's slope and curvature.
Solved yield_root(const ExpSum& sum, const RemainingFlows& flows, double price, double start) {
  const double f = flows.coupons_per_year;
  if (!has_root(flows, price)) return {};
  if (!std::isfinite(start)) {
    const double years = (static_cast<double>(flows.days.size()) - 1 + flows.w) / f;
    const double guess = (flows.c100 * f + (100 - price) / std::max(years, 1.0 / f)) / ((100 + price) / 2);
    start = -std::log1p(std::clamp(guess, -0.5 * f, 1.0) / f);
  }
  return solve<kYieldOrder>(sum, true, price, start, 2);
}

// The root of P(x) = market_dirty from 0; cs01 reads the slope (and the third derivative, a
// correction of 1e-6 of it).
Solved spread_root(const ExpSum& sum, const RemainingFlows& flows, double market_dirty) {
  if (!has_root(flows, market_dirty)) return {};
  return solve<kSpreadOrder>(sum, false, market_dirty, 0.0, 1);
}

}  // namespace

double spread_price(const RemainingFlows& flows, std::span<const double> df, double x) {
  return spread_sum(flows, df).at<0>(x).m[0];
}

// The flows' zero rates on the curve, weighted by each flow's present value
// times its time (its part of the duration), as u = -r / f (r compounded
// f times a year is e^(r/f) - 1 per period, so v = e^(-r/f)): a start the
// yield's Taylor polynomial proves its root from for nearly every bond of
// the generated sets (docs/quote-analytics.md).
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

BondFigures bond_figures(const RemainingFlows& flows, double price, double quote, const CurveArrays& curve) {
  const std::span<const double> df(curve.df.data(), static_cast<std::size_t>(curve.df.size()));
  BondFigures out;
  out.accrued = flows.c100 * std::max(0.0, 1 - flows.w);
  out.clean_price = price - out.accrued;
  const bool quoted = !is_null(quote);
  if (quoted) out.market_dirty = quote + out.accrued;
  if (flows.days.size() == 1 && flows.days.front() == 0) return out;  // its last cash flow is today's: no rate enters

  const ExpSum on_curve = spread_sum(flows, df);  // P(x): the yield's start reads it too
  const Solved u = yield_root(yield_sum(flows), flows, price, curve_yield_start(on_curve, flows, curve));
  out.yield_steps = static_cast<std::uint8_t>(u.root.steps);
  if (is_null(u.root.x)) {
    BondFigures failed;
    failed.failure = AnalyticsFailure::no_yield;
    return failed;
  }
  const double f = flows.coupons_per_year;
  out.yield = f * std::expm1(-u.root.x);
  // With k_j = j + w: sum k CF v^k is the sum's slope in u, sum k^2 CF v^k its curvature.
  const double v = base::fast_exp(u.root.x);
  out.macaulay_duration = u.at.slope / f / price;
  out.modified_duration = out.macaulay_duration * v;
  out.convexity = (u.at.curvature + u.at.slope) * v * v / (f * f) / price;

  if (!quoted) return out;
  const Solved s = spread_root(on_curve, flows, out.market_dirty);
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
