#include "bond_risk/model/conventions/convention_figures.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "base/fast_exp.h"
#include "bond_risk/model/conventions/day_count.h"

namespace bond_risk {

namespace {

// The flows a buyer settling takes, timed for the yield: amount (0 for a
// coupon gone ex), years from settlement along the coupon dates (`step` of
// them since the flow before: regular periods repeat theirs exactly), and
// days from today to its payment for the curve.
struct TimedFlow {
  double amount, years, step;
  int pay_day;
};

// Calls add(j, e_j) for each flow j with e_j = e^(-rate * its time), the
// times its steps' running sums, as products of one exponential per step:
// a step equal to one of the last few met reuses its exponential.
template <class Steps, class Add>
void discount_along(std::size_t count, Steps steps, double rate, Add add) {
  constexpr std::size_t kKept = 4;
  std::array<double, kKept> step{}, factor{};
  std::size_t kept = 0, next = 0;
  double e = 1;
  for (std::size_t j = 0; j < count; ++j) {
    const double s = steps(j);
    std::size_t k = 0;
    while (k < kept && step[k] != s) ++k;
    if (k == kept) {
      k = next, next = (next + 1) % kKept, kept = std::min(kept + 1, kKept);
      step[k] = s, factor[k] = base::fast_exp(-rate * s);
    }
    e *= factor[k];
    add(j, e);
  }
}

struct BuyersFlows {
  std::array<TimedFlow, ConventionFlows::kCapacity + 1> flow;
  std::size_t count = 0;
  std::size_t coupon_dates = 0;  // coupons not yet paid at settlement, ex ones included
  double received = 0;           // the amounts a buyer takes, the redemption included
};

BuyersFlows buyers_flows(const ConventionFlows& flows, const Convention& c, Date today, Date settlement) {
  BuyersFlows out;
  double t = 0;
  Date last = settlement;  // the coupon date the time has reached
  for (const CouponFlow& f : flows) {
    if (f.pay <= settlement) continue;
    // The unexpired part of the first coupon's period, then each period against itself.
    const double step =
        last != f.accrual_start ? f.fraction - year_fraction(c.day_count, f.accrual_start, last, f.ref_start, f.ref_end)
                                : f.fraction;
    t += step;
    last = f.accrual_end;
    const double amount = f.ex <= settlement ? 0.0 : f.amount;
    out.flow[out.count++] = {amount, t, step, f.pay - today};
    ++out.coupon_dates;
    out.received += amount;
  }
  if (flows.redemption_pay > settlement) {  // paid with the last coupon, at its time
    out.flow[out.count++] = {100.0, t, 0.0, flows.redemption_pay - today};
    out.received += 100.0;
  }
  return out;
}

// The root of a decreasing function `value` (returning its value and slope
// at x) equal to `target`, from `x`: Newton's steps kept inside the
// bracket the values so far prove, halving it when a step leaves it, to
// the last bit. NaN when the function never reaches the target.
template <class Value>
double decreasing_root(Value value, double target, double x) {
  double lo = -INFINITY, hi = INFINITY;  // value(lo) > target > value(hi)
  for (int i = 0; i < 400; ++i) {
    const auto [v, slope] = value(x);
    if (v == target) return x;
    (v > target || std::isnan(v) ? lo : hi) = x;
    double next = x - (v - target) / slope;
    if (!(next > lo && next < hi)) {
      next = std::isfinite(lo) && std::isfinite(hi) ? lo + (hi - lo) / 2 : (std::isfinite(lo) ? lo + 1 + std::abs(lo) : hi - 1 - std::abs(hi));
    }
    if (std::abs(next - x) <= 4e-16 * std::max(1.0, std::abs(x))) return next;
    if (std::isfinite(lo) && std::isfinite(hi) && hi - lo <= 4e-16 * std::max(1.0, std::abs(lo))) return next;
    x = next;
  }
  return kNull;
}

// Whether no flow a buyer takes is timed after settlement: no rate discounts any.
bool no_rate_enters(const BuyersFlows& flows) {
  for (std::size_t j = 0; j < flows.count; ++j) {
    if (flows.flow[j].years > 0 && flows.flow[j].amount > 0) return false;
  }
  return true;
}

// The yield at which `flows` are worth `dirty`, and its durations and
// convexity (QuantLib's CashFlows::yield, duration, convexity with the
// bond's compounding); null yields when no rate enters or none reprices.
// `from`: the yield to start the solve at (any finite rate; the closer, the fewer steps).
YieldFigures yield_figures(const BuyersFlows& flows, const Convention& c, int coupons_per_year, double dirty,
                           double from) {
  YieldFigures out;
  const double f = coupons_per_year;
  double at_zero = 0;  // what is paid at time 0: no rate discounts it
  for (std::size_t j = 0; j < flows.count; ++j) at_zero += flows.flow[j].years > 0 ? 0 : flows.flow[j].amount;
  if (no_rate_enters(flows) || !(dirty > at_zero) || !std::isfinite(dirty)) return out;
  if (c.yield_compounding == YieldCompounding::simple_in_last_period && flows.coupon_dates == 1) {
    const double t = flows.flow[0].years;  // one date: every flow's time
    out.yield = (flows.received / dirty - 1) / t;
    const double b = 1 / (1 + out.yield * t);
    out.macaulay = t, out.modified = t * b, out.convexity = 2 * t * t * b * b;
    return out;
  }
  // In z = ln(1 + y/f) the price sum_j CF_j e^(-f t_j z) decreases.
  const auto steps = [&](std::size_t j) { return flows.flow[j].step; };
  const auto value = [&](double z) {
    double p = 0, slope = 0;
    discount_along(flows.count, steps, f * z, [&](std::size_t j, double e) {
      const double term = flows.flow[j].amount * e;
      p += term, slope -= f * flows.flow[j].years * term;
    });
    return std::pair{p, slope};
  };
  const double z = decreasing_root(value, dirty, std::log1p(std::max(from, -0.5 * f) / f));
  if (std::isnan(z)) return out;
  const double y = f * std::expm1(z), growth = 1 + y / f, log_growth = std::log(growth);
  double p = 0, dp = 0, d2p = 0;
  discount_along(flows.count, steps, f * log_growth, [&](std::size_t j, double b) {  // b = (1 + y/f)^(-f t)
    const TimedFlow& fl = flows.flow[j];
    p += fl.amount * b;
    dp += fl.amount * fl.years * b / growth;
    d2p += fl.amount * b * fl.years * (f * fl.years + 1) / (f * growth * growth);
  });
  out.yield = y, out.modified = dp / p, out.macaulay = growth * out.modified, out.convexity = d2p / p;
  return out;
}

// P(x): the flows a buyer takes discounted to settlement on the curve moved by a spread x.
double spread_price(const BuyersFlows& flows, const Eigen::ArrayXd& df, int settle_day, double x, double* slope) {
  double p = 0, dp = 0;
  // Its steps: the days between payments (a few lengths of period recur).
  const auto steps = [&](std::size_t j) {
    return static_cast<double>(flows.flow[j].pay_day - (j == 0 ? settle_day : flows.flow[j - 1].pay_day));
  };
  discount_along(flows.count, steps, x * kYearsPerDay, [&](std::size_t j, double e) {
    const TimedFlow& fl = flows.flow[j];
    const double years = (fl.pay_day - settle_day) * kYearsPerDay;
    const double term = fl.amount * df[fl.pay_day] / df[settle_day] * e;
    p += term, dp -= years * term;
  });
  if (slope) *slope = dp;
  return p;
}

}  // namespace

double convention_accrued(const ConventionFlows& flows, const Convention& c, Date settlement) {
  const double coupon = flows.rate;
  for (const CouponFlow& f : flows) {
    if (f.pay <= settlement) continue;
    if (settlement <= f.accrual_start) return 0.0;
    if (f.ex <= settlement) {
      return -100 * coupon * year_fraction(c.day_count, settlement, std::max(settlement, f.accrual_end), f.ref_start, f.ref_end);
    }
    return 100 * coupon * year_fraction(c.day_count, f.accrual_start, std::min(settlement, f.accrual_end), f.ref_start, f.ref_end);
  }
  return 0.0;
}

YieldFigures convention_yield(const ConventionFlows& flows, const Convention& convention, int coupons_per_year,
                              Date settlement, double dirty) {
  return yield_figures(buyers_flows(flows, convention, settlement, settlement), convention, coupons_per_year, dirty, 0.05);
}

double dirty_at_spread(const ConventionFlows& flows, const Convention& convention, Date today, Date settlement,
                       const CurveArrays& curve, double x) {
  return spread_price(buyers_flows(flows, convention, today, settlement), curve.df, settlement - today, x, nullptr);
}

void convention_key_rates(const ConventionFlows& flows, Date today, const KeyRateArrays& curve, std::size_t points,
                          std::span<double> ladder) {
  std::fill(ladder.begin(), ladder.begin() + static_cast<std::ptrdiff_t>(points), 0.0);
  const auto add = [&](double amount, Date pay) {
    const auto d = static_cast<std::size_t>(pay - today);
    const std::size_t k = curve.segment[d];
    ladder[k] -= amount * curve.days[d].lo;
    ladder[k + 1] -= amount * curve.days[d].hi;
  };
  for (const CouponFlow& f : flows) add(f.amount, f.pay);
  if (flows.redemption_pay > today) add(100.0, flows.redemption_pay);
}

ConventionFigures convention_figures(const ConventionFlows& flows, const Convention& convention,
                                     int coupons_per_year, Date today, Date settlement, double quote,
                                     const CurveArrays& curve) {
  ConventionFigures out;
  // The holder's value: every flow paid after today, ex or not.
  const auto on = [&](const Eigen::ArrayXd& df) {
    double sum = 0;
    for (const CouponFlow& f : flows) sum += f.amount * df[f.pay - today];
    return flows.redemption_pay > today ? sum + 100 * df[flows.redemption_pay - today] : sum;
  };
  out.value.price = on(curve.df);
  out.value.pv01 = (on(curve.df_up) - on(curve.df_dn)) / 2;
  out.value.quoted = !is_null(quote);

  const BuyersFlows buyers = buyers_flows(flows, convention, today, settlement);
  const int settle_day = settlement - today;
  BondFigures& o = out.figures;
  o.settlement_date = settlement;
  if (buyers.count == 0) {  // nothing left for a buyer: no rate enters
    o.dirty_price = 0, o.accrued = 0, o.clean_price = 0;
    if (out.value.quoted) o.market_dirty = quote;
    return out;
  }
  o.dirty_price = spread_price(buyers, curve.df, settle_day, 0.0, nullptr);
  o.accrued = convention_accrued(flows, convention, settlement);
  o.clean_price = o.dirty_price - o.accrued;
  const auto fail = [&](AnalyticsFailure why) {
    o = {};
    o.failure = why;
  };
  // The yield starts at the curve's zero rate to the last flow, the quote's at the model's yield.
  const TimedFlow& last = buyers.flow[buyers.count - 1];
  const double years = (last.pay_day - settle_day) * kYearsPerDay;
  const double zero = years > 0 ? std::log(curve.df[settle_day] / curve.df[last.pay_day]) / years : 0.05;
  const YieldFigures model = yield_figures(buyers, convention, coupons_per_year, o.dirty_price, zero);
  if (is_null(model.yield) && !no_rate_enters(buyers)) {
    fail(AnalyticsFailure::no_yield);
    return out;
  }
  o.yield = model.yield, o.macaulay_duration = model.macaulay, o.modified_duration = model.modified;
  o.convexity = model.convexity;
  if (!out.value.quoted) return out;
  o.market_dirty = quote + o.accrued;
  if (no_rate_enters(buyers)) return out;
  o.quote_yield = yield_figures(buyers, convention, coupons_per_year, o.market_dirty, is_null(o.yield) ? zero : o.yield).yield;
  if (is_null(o.quote_yield)) {
    fail(AnalyticsFailure::no_quote_yield);
    return out;
  }
  const auto price_at = [&](double x) {
    double slope = 0;
    const double p = spread_price(buyers, curve.df, settle_day, x, &slope);
    return std::pair{p, slope};
  };
  o.z_spread = decreasing_root(price_at, o.market_dirty, 0.0);
  if (is_null(o.z_spread)) {
    fail(AnalyticsFailure::no_spread);
    return out;
  }
  o.cs01 = (spread_price(buyers, curve.df, settle_day, o.z_spread + kBump, nullptr) -
            spread_price(buyers, curve.df, settle_day, o.z_spread - kBump, nullptr)) / 2;
  out.value.cs01 = o.cs01;
  return out;
}

}  // namespace bond_risk
