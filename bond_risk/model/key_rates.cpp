#include "bond_risk/model/key_rates.h"

#include <algorithm>

#include "bond_risk/model/status.h"

namespace bond_risk {

namespace {

// sinh(x) for |x| <= BUMP * 20 years: its Taylor series to x^7, whose
// next term is below 1e-27 of the sum (exact to rounding, and vectorised,
// unlike std::sinh; (exp(x) - exp(-x)) / 2 would cancel for small x).
Eigen::ArrayXd sinh_small(const Eigen::ArrayXd& x) {
  const Eigen::ArrayXd x2 = x.square();
  return x * (1 + x2 / 6 * (1 + x2 / 20 * (1 + x2 / 42)));
}

}  // namespace

void build_key_rates(std::span<const CurvePoint> points, const CurveArrays& curve, KeyRateArrays& out) {
  static_assert(kBump * kNumForwardDays / kYearBasis < 2.1e-3, "sinh_small's series is exact only for small moves");
  constexpr int n = kNumForwardDays;
  Eigen::ArrayXd lo(n), hi(n);
  for (std::size_t k = 0; k + 1 < points.size(); ++k) {
    const int from = points[k].days_forward;
    const int len = points[k + 1].days_forward - from;
    const Eigen::ArrayXd steps = Eigen::ArrayXd::LinSpaced(len, 0, len - 1);  // i - p_k
    const Eigen::ArrayXd t = (from + steps) / kYearBasis;
    const auto df = curve.df.segment(from, len);
    lo.segment(from, len) = df * sinh_small(kBump * (len - steps) / len * t);
    hi.segment(from, len) = df * sinh_small(kBump * steps / len * t);
  }
  out.days.resize(n);
  for (int i = 0; i < n; ++i) out.days[static_cast<std::size_t>(i)] = {lo[i], hi[i]};
  // Row d + 1 is row d with day d's two shares taken away (kr01 = -df sinh).
  const std::size_t width = points.size();
  out.sum_ladder.assign(width * (n + 1), 0.0);
  out.segment.resize(n);
  std::size_t k = 0;
  for (int i = 0; i < n; ++i) {
    if (i >= points[k + 1].days_forward) ++k;
    out.segment[static_cast<std::size_t>(i)] = static_cast<std::uint16_t>(k);
    const double* row = out.sum_ladder.data() + width * static_cast<std::size_t>(i);
    double* next = out.sum_ladder.data() + width * static_cast<std::size_t>(i + 1);
    std::copy_n(row, width, next);
    next[k] -= lo[i];
    next[k + 1] -= hi[i];
  }
}

void bond_key_rates(std::span<const Date> coupon_dates, Date maturity, double c100, Date today,
                    std::span<const CurvePoint> points, const KeyRateArrays& curve, std::span<double> ladder) {
  std::fill(ladder.begin(), ladder.begin() + static_cast<std::ptrdiff_t>(points.size()), 0.0);
  // Cash flows come latest first: sum each segment's ladder shares in two
  // registers, then hand the sums to the segment's two points.
  const int m = maturity - today;  // < p_(n-1) = kNumForwardDays, so k + 1 is a point
  std::size_t k = curve.segment[static_cast<std::size_t>(m)];
  double lo = 0, hi = 0;
  auto cash_flow = [&](int i, double amount) {
    while (i < points[k].days_forward) {  // p_0 = 0 <= i ends the walk
      ladder[k] -= lo;
      ladder[k + 1] -= hi;
      lo = hi = 0;
      --k;
    }
    const KeyRateDay& day = curve.days[static_cast<std::size_t>(i)];
    lo += amount * day.lo;
    hi += amount * day.hi;
  };
  cash_flow(m, 100.0);
  for_each_coupon(coupon_dates, today, [&](int i) { cash_flow(i, c100); });
  ladder[k] -= lo;
  ladder[k + 1] -= hi;
}

KeyRateAxis key_rate_axis_for(std::span<const std::size_t> points_per_curve) {
  KeyRateAxis axis;
  for (std::size_t n : points_per_curve) {
    axis.offset.push_back(axis.size);
    axis.size += static_cast<std::uint32_t>(n);
    axis.stride = std::max(axis.stride, static_cast<std::uint32_t>(n));
  }
  return axis;
}

}  // namespace bond_risk
