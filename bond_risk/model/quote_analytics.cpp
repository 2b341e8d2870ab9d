#include "bond_risk/model/quote_analytics.h"

#include <algorithm>
#include <array>

#include "bond_risk/model/status.h"

namespace bond_risk {

namespace {

constexpr double kTolerance = 1e-12;  // of the price repriced (MODEL.md)

double cash_flow(const RemainingFlows& f, std::size_t j) { return j + 1 == f.days.size() ? f.c100 + 100 : f.c100; }

// A function of one variable and its slope there.
struct Point {
  double value, slope;
};

// The flows' price at u = ln v and its slope in u: v^w Q(v), Q the
// polynomial sum CF_j v^j, by Horner's rule with its derivative.
Point yield_price(const RemainingFlows& f, double u) {
  const double v = std::exp(u), a = std::exp(f.w * u);
  double q = cash_flow(f, f.days.size() - 1), dq = 0;
  for (std::size_t j = f.days.size() - 1; j-- > 0;) {
    dq = dq * v + q;
    q = q * v + f.c100;
  }
  return {a * q, a * (f.w * q + v * dq)};
}

// e^(k d) for the flows' days d in turn, one exp per distinct gap between
// consecutive days (a schedule has a handful) instead of one per flow.
class DayPowers {
 public:
  explicit DayPowers(double k) : k_(k) {}
  double next(std::uint16_t day) {
    if (count_ == 0) {
      value_ = std::exp(k_ * day);
    } else {
      value_ *= factor(day - day_);
    }
    day_ = day;
    ++count_;
    return value_;
  }

 private:
  double factor(int gap) {
    for (std::size_t i = 0; i < cached_; ++i) {
      if (gaps_[i] == gap) return factors_[i];
    }
    const double f = std::exp(k_ * gap);
    const std::size_t slot = cached_ < gaps_.size() ? cached_++ : (count_ % gaps_.size());
    gaps_[slot] = gap;
    factors_[slot] = f;
    return f;
  }

  double k_, value_ = 0;
  int day_ = 0;
  std::size_t count_ = 0, cached_ = 0;
  std::array<int, 6> gaps_{};
  std::array<double, 6> factors_{};
};

// P(x) and its slope in x.
Point spread_point(const RemainingFlows& f, std::span<const double> df, double x) {
  DayPowers spread(-x / kYearBasis);
  Point p{0, 0};
  for (std::size_t j = 0; j < f.days.size(); ++j) {
    const std::uint16_t d = f.days[j];
    const double term = cash_flow(f, j) * df[d] * spread.next(d);
    p.value += term;
    p.slope -= term * (d / kYearBasis);
  }
  return p;
}

// Newton's method on g(x) = ln(value / target), from x to |value - target|
// <= kTolerance * target, taking one more step once there (free: its value
// and slope are at hand). Both prices are sums of exponentials, whose
// logarithm is convex too and nearly straight far from the root: a step
// that overshoots onto the steep side comes back in a few steps, where
// Newton on the value itself would creep back by 1/duration a step. The
// bracket [lo, hi] of points known on either side of the root catches the
// rest: a step that leaves it, or a value too large or too small for a
// double, goes halfway across it (or a stride past its one finite side).
template <class Eval>
Root newton(Eval eval, bool increasing, double target, double x) {
  double lo = -INFINITY, hi = INFINITY;
  for (int step = 1; step <= kMaxSteps; ++step) {
    const Point p = eval(x);
    const double g = std::isnan(p.value) ? INFINITY : std::log(p.value / target);
    ((g > 0) == increasing ? hi : lo) = x;
    double next = x - g / (p.slope / p.value);
    if (std::abs(p.value - target) <= kTolerance * target && std::isfinite(next)) return {next, step};
    if (!(next > lo && next < hi)) {
      next = std::isfinite(lo) && std::isfinite(hi) ? lo + (hi - lo) / 2
             : std::isfinite(lo)                    ? lo + std::max(1.0, std::abs(lo))
                                                    : hi - std::max(1.0, std::abs(hi));
    }
    x = next;
  }
  return {kNull, kMaxSteps};
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

Root solve_yield(const RemainingFlows& flows, double price, double guess) {
  const double f = flows.coupons_per_year;
  const double paid_today = flows.days.front() == 0 ? cash_flow(flows, 0) : 0;
  if (!(price > paid_today) || !std::isfinite(price) || (flows.days.size() == 1 && paid_today > 0)) return {};
  if (!std::isfinite(guess)) {
    // The textbook approximation: the coupon plus the pull to par a year, over the average of price and par.
    const double years = (static_cast<double>(flows.days.size()) - 1 + flows.w) / f;
    guess = (flows.c100 * f + (100 - price) / std::max(years, 1.0 / f)) / ((100 + price) / 2);
    guess = std::clamp(guess, -0.5 * f, 1.0);
  }
  if (!(guess > -f)) guess = 0;
  const Root u = newton([&](double x) { return yield_price(flows, x); }, true, price, -std::log1p(guess / f));
  return {f * std::expm1(-u.x), u.steps};
}

double spread_price(const RemainingFlows& flows, std::span<const double> df, double x) {
  return spread_point(flows, df, x).value;
}

Root solve_z_spread(const RemainingFlows& flows, std::span<const double> df, double market_dirty, double guess) {
  const double paid_today = flows.days.front() == 0 ? cash_flow(flows, 0) : 0;
  if (!(market_dirty > paid_today) || !std::isfinite(market_dirty) || (flows.days.size() == 1 && paid_today > 0)) {
    return {};
  }
  return newton([&](double x) { return spread_point(flows, df, x); }, false, market_dirty, std::isfinite(guess) ? guess : 0.0);
}

BondFigures bond_figures(const RemainingFlows& flows, double price, double quote, std::span<const double> df) {
  BondFigures out;
  const double c100 = flows.c100;
  out.accrued = c100 * std::max(0.0, 1 - flows.w);
  out.clean_price = price - out.accrued;
  const bool quoted = !is_null(quote);
  if (quoted) out.market_dirty = quote + out.accrued;
  if (flows.days.size() == 1 && flows.days.front() == 0) return out;  // its last cash flow is today's: no rate enters

  const Root y = solve_yield(flows, price, kNull);
  out.yield_steps = static_cast<std::uint8_t>(y.steps);
  if (is_null(y.x)) {
    BondFigures failed;
    failed.failure = AnalyticsFailure::no_yield;
    return failed;
  }
  out.yield = y.x;
  const double f = flows.coupons_per_year, v = 1 / (1 + y.x / f);
  // Weighted sums at the yield, flow by flow: v^(j + w) as a running product.
  double power = std::pow(v, flows.w), weighted = 0, weighted2 = 0;
  for (std::size_t j = 0; j < flows.days.size(); ++j, power *= v) {
    const double k = static_cast<double>(j) + flows.w, term = cash_flow(flows, j) * power;
    weighted += k * term;
    weighted2 += k * (k + 1) * term;
  }
  out.macaulay_duration = weighted / f / price;
  out.modified_duration = out.macaulay_duration * v;
  out.convexity = weighted2 * v * v / (f * f) / price;

  if (!quoted) return out;
  const Root s = solve_z_spread(flows, df, out.market_dirty, kNull);
  out.spread_steps = static_cast<std::uint8_t>(s.steps);
  if (is_null(s.x)) {
    BondFigures failed;
    failed.failure = AnalyticsFailure::no_spread;
    failed.yield_steps = out.yield_steps;
    return failed;
  }
  out.z_spread = s.x;
  out.cs01 = (spread_price(flows, df, s.x + kBump) - spread_price(flows, df, s.x - kBump)) / 2;
  return out;
}

}  // namespace bond_risk
