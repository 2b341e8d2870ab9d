#include "bond_risk/model/pricing/pricing.h"

#include <cmath>

#include "bond_risk/model/pricing/status.h"

namespace bond_risk {

std::string check_curve_points(std::span<const CurvePoint> points) {
  if (points.size() < 2) {
    return "ir_curve has " + std::to_string(points.size()) + " input rates; it needs at least 2";
  }
  for (std::size_t k = 0; k < points.size(); ++k) {
    if (!(std::abs(points[k].value) <= kMaxRate)) {
      return "ir_curve input rate " + std::to_string(k) + " (" + std::to_string(points[k].value) + ") is not within -" +
             std::to_string(static_cast<int>(kMaxRate)) + ".." + std::to_string(static_cast<int>(kMaxRate)) +
             " (a rate of 1 is 100%)";
    }
    if (k > 0 && points[k].days_forward <= points[k - 1].days_forward) {
      return "ir_curve input days not increasing (idx " + std::to_string(k) + ": " +
             std::to_string(points[k].days_forward) + " after " + std::to_string(points[k - 1].days_forward) + ")";
    }
  }
  if (points.front().days_forward != 0) {
    return "ir_curve first input day is " + std::to_string(points.front().days_forward) + ", not 0";
  }
  if (points.back().days_forward < kNumForwardDays || points.back().days_forward > kMaxForwardDays) {
    return "ir_curve last input day (its horizon) is " + std::to_string(points.back().days_forward) + ", not within " +
           std::to_string(kNumForwardDays) + ".." + std::to_string(kMaxForwardDays);
  }
  return "";
}

namespace {

// Per day d of the longest curve: its time t = d / kYearBasis in years, and
// the factors that move a discount factor by one basis point, exp(-kBump t)
// and exp(kBump t). The same for every curve (the first H days): built once.
struct Days {
  Eigen::ArrayXd t, up, down;
  Days()
      : t(Eigen::ArrayXd::LinSpaced(kMaxForwardDays, 0, kMaxForwardDays - 1) / kYearBasis),
        up((-kBump * t).exp()),
        down((kBump * t).exp()) {}
};

const Days& days() {
  static const Days d;
  return d;
}

}  // namespace

void build_curve(std::span<const CurvePoint> points, CurveArrays& out) {
  size_curve(points, true, out);
  const int n = static_cast<int>(out.df.size());
  discount_days(out, 0, n);
  bump_days(out, 0, n);
  sum_discount_factors(out);
}

void build_discount_factors(std::span<const CurvePoint> points, CurveArrays& out) {
  size_curve(points, false, out);
  discount_days(out, 0, static_cast<int>(out.df.size()));
  sum_discount_factors(out);
}

void size_curve(std::span<const CurvePoint> points, bool bumped, CurveArrays& out) {
  const int n = points.back().days_forward;
  out.r.resize(n);
  for (std::size_t k = 0; k + 1 < points.size(); ++k) {
    const int from = points[k].days_forward;
    const int len = points[k + 1].days_forward - from;
    const double slope_num = points[k + 1].value - points[k].value;
    const Eigen::ArrayXd steps = Eigen::ArrayXd::LinSpaced(len, 0, len - 1);
    out.r.segment(from, len) = points[k].value + slope_num * steps / len;
  }
  out.df.resize(n);
  out.df_up.resize(bumped ? n : 0);
  out.df_dn.resize(bumped ? n : 0);
  out.cum_df.resize(n + 1);
}

void discount_days(CurveArrays& out, int from, int to) {
  out.df.segment(from, to - from) = (-out.r.segment(from, to - from) * days().t.segment(from, to - from)).exp();
}

void bump_days(CurveArrays& out, int from, int to) {
  // exp(-(r +- kBump) t) as exp(-r t) exp(-+kBump t): one exp a day, not three.
  out.df_up.segment(from, to - from) = out.df.segment(from, to - from) * days().up.segment(from, to - from);
  out.df_dn.segment(from, to - from) = out.df.segment(from, to - from) * days().down.segment(from, to - from);
}

void sum_discount_factors(CurveArrays& out) {
  const Eigen::Index n = out.df.size();
  out.cum_df[0] = 0;
  for (Eigen::Index i = 0; i < n; ++i) out.cum_df[i + 1] = out.cum_df[i] + out.df[i];
}

std::uint32_t coupon_count(Date start, Date maturity, int coupons_per_year) {
  // The dates in months after start's are after it; the one in its month may be.
  const int step = 12 / coupons_per_year;
  const int months = month_number(maturity) - month_number(start);
  const int k = months / step;  // maturity - k steps is in start's month or later
  return static_cast<std::uint32_t>(k + (add_months(maturity, -k * step) > start ? 1 : 0));
}

BondValue value_bond(const CouponSums& coupons, Date maturity, double coupon, int coupons_per_year, Date today,
                     const CurveArrays& curve) {
  const int m = maturity - today;
  return bond_value(100.0 * coupon / coupons_per_year, coupons, {curve.df[m], curve.df_up[m], curve.df_dn[m]});
}

double bond_price(double coupons_df, Date maturity, double coupon, int coupons_per_year, Date today,
                  const CurveArrays& curve) {
  return bond_value(100.0 * coupon / coupons_per_year, {coupons_df, 0, 0}, {curve.df[maturity - today], 0, 0}).price;
}

OutrightValue value_outright(std::int64_t quantity, int dir, double trade_price, const BondValue& bond) {
  const double q = static_cast<double>(quantity);
  const double pv = q * bond.price * dir;
  return {pv, q * bond.pv01 * dir, pv - q * trade_price * dir};
}

}  // namespace bond_risk
