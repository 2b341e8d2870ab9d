#include "bond_risk/model/pricing/key_rates.h"

#include <algorithm>

#include "bond_risk/model/pricing/status.h"

namespace bond_risk {

namespace {

// sinh(x) for |x| <= BUMP * 60 years: its Taylor series to x^7, whose
// next term is below 1e-23 of the sum (exact to rounding, and vectorised,
// unlike std::sinh; (exp(x) - exp(-x)) / 2 would cancel for small x).
Eigen::ArrayXd sinh_small(const Eigen::ArrayXd& x) {
  const Eigen::ArrayXd x2 = x.square();
  return x * (1 + x2 / 6 * (1 + x2 / 20 * (1 + x2 / 42)));
}

}  // namespace

void build_key_rates(std::span<const CurvePoint> points, const CurveArrays& curve, KeyRateArrays& out) {
  const int n = static_cast<int>(curve.df.size());
  size_key_rates(points, n, out);
  key_rate_shares(points, curve, 0, n, out);
  sum_key_rate_shares(points, out);
}

void size_key_rates(std::span<const CurvePoint> points, int days, KeyRateArrays& out) {
  const auto n = static_cast<std::size_t>(days);
  out.days.resize(n);
  out.segment.resize(n);
  out.segment_base.resize(points.size() * (points.size() - 1));
  out.partial.resize(n + 1);
}

void key_rate_shares(std::span<const CurvePoint> points, const CurveArrays& curve, int from, int to,
                     KeyRateArrays& out) {
  static_assert(kBump * kMaxForwardDays / kYearBasis < 6.1e-3, "sinh_small's series is exact only for small moves");
  for (std::size_t k = 0; k + 1 < points.size(); ++k) {
    // Segment k's days [p, q) within [from, to), i - p of them before each (whole numbers, exact).
    const int p = points[k].days_forward, q = points[k + 1].days_forward, len = q - p;
    const int a = std::max(from, p), b = std::min(to, q);
    if (a >= b) continue;
    const Eigen::ArrayXd steps = Eigen::ArrayXd::LinSpaced(b - a, a - p, b - 1 - p);
    const Eigen::ArrayXd t = (p + steps) / kYearBasis;
    const auto df = curve.df.segment(a, b - a);
    const Eigen::ArrayXd lo = df * sinh_small(kBump * (len - steps) / len * t);
    const Eigen::ArrayXd hi = df * sinh_small(kBump * steps / len * t);
    for (int i = a; i < b; ++i) {
      out.days[static_cast<std::size_t>(i)] = {lo[i - a], hi[i - a]};
      out.segment[static_cast<std::size_t>(i)] = static_cast<std::uint16_t>(k);
    }
  }
}

void sum_key_rate_shares(std::span<const CurvePoint> points, KeyRateArrays& out) {
  // Day i takes its two shares away from the discounted sums after it
  // (kr01 = -df sinh): from the running ladder, and from its segment's
  // partial sums, which start again at each point.
  const std::size_t width = points.size(), n = out.days.size();
  std::vector<double> running(width, 0.0);
  std::size_t k = 0;
  DiscountSumPart part;
  std::copy(running.begin(), running.end(), out.segment_base.begin());
  for (std::size_t i = 0; i < n; ++i) {
    if (out.segment[i] != k) {
      k = out.segment[i];
      std::copy(running.begin(), running.end(), out.segment_base.begin() + static_cast<std::ptrdiff_t>(width * k));
      part = {0, 0, static_cast<std::uint32_t>(k)};
    }
    out.partial[i] = part;
    part.lo -= out.days[i].lo;
    part.hi -= out.days[i].hi;
    running[k] -= out.days[i].lo;
    running[k + 1] -= out.days[i].hi;
  }
  out.partial[n] = part;
}

void sum_grid_key_rates(const CouponGridDays& grids, std::span<const CurvePoint> points, const KeyRateArrays& curve,
                        GridKeyRates& out) {
  size_grid_key_rates(grids, points, out);
  sum_grid_key_rates(grids, points, curve, all_grids(grids), out);
}

void size_grid_key_rates(const CouponGridDays& grids, std::span<const CurvePoint> points, GridKeyRates& out) {
  out.sums.resize(grid_rows(grids));
  out.segment_start.resize(grids.first_period.size() * points.size());
}

void sum_grid_key_rates(const CouponGridDays& grids, std::span<const CurvePoint> points, const KeyRateArrays& curve,
                        GridSpan span, GridKeyRates& out) {
  const std::size_t n = points.size();
  KeyRateShares* sum = out.sums.data() + grids.begin[span.first] + span.first;
  for (std::size_t g = span.first; g < span.last; ++g) {
    KeyRateShares running;
    *sum++ = running;
    std::size_t k = 0;
    std::uint16_t* start = out.segment_start.data() + g * n;
    for (std::uint32_t j = grids.begin[g]; j < grids.begin[g + 1]; ++j) {
      const std::uint16_t day = grids.days[j];
      for (; k < n && points[k].days_forward <= day; ++k) start[k] = static_cast<std::uint16_t>(j - grids.begin[g]);
      if (day < curve.days.size()) {  // past a curve shorter than the grids: no bond on it pays there
        running.lo += curve.days[day].lo;
        running.hi += curve.days[day].hi;
      }
      *sum++ = running;
    }
    for (; k < n; ++k) start[k] = static_cast<std::uint16_t>(grids.begin[g + 1] - grids.begin[g]);
  }
}

void bond_key_rates(const CouponGridDays& grids, const GridKeyRates& sums, std::size_t points, GridPlace place,
                    std::uint32_t coupons, double c100, int days_to_maturity, const KeyRateArrays& curve,
                    std::span<double> ladder) {
  // Each segment's coupons [a, b) on the grid, empty outside the bond's
  // [first, last]: every segment is visited, with no branch on the bond.
  const GridRange r = grid_range(grids, place, coupons);
  const KeyRateShares* row = sums.sums.data() + r.row;
  const std::uint16_t* start = sums.segment_start.data() + std::size_t{place.grid} * points;
  ladder[0] = 0;
  for (std::size_t k = 0; k + 1 < points; ++k) {
    const std::uint32_t a = std::max<std::uint32_t>(r.first, start[k]);
    const std::uint32_t b = std::max(a, std::min<std::uint32_t>(r.last + 1, start[k + 1]));
    ladder[k] -= c100 * (row[b].lo - row[a].lo);
    ladder[k + 1] = -c100 * (row[b].hi - row[a].hi);
  }
  const auto m = static_cast<std::size_t>(days_to_maturity);
  const std::size_t k = curve.segment[m];
  ladder[k] -= 100.0 * curve.days[m].lo;
  ladder[k + 1] -= 100.0 * curve.days[m].hi;
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
