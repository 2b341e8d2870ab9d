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
  static_assert(kBump * kMaxForwardDays / kYearBasis < 6.1e-3, "sinh_small's series is exact only for small moves");
  const int n = static_cast<int>(curve.df.size());
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
  // Day i takes its two shares away from the discounted sums after it
  // (kr01 = -df sinh): from the running ladder, and from its segment's
  // partial sums, which start again at each point.
  const std::size_t width = points.size();
  std::vector<double> running(width, 0.0);
  out.segment.resize(n);
  out.segment_base.resize(width * (width - 1));
  out.partial.resize(n + 1);
  std::size_t k = 0;
  DiscountSumPart part;
  std::copy(running.begin(), running.end(), out.segment_base.begin());
  for (int i = 0; i < n; ++i) {
    if (i >= points[k + 1].days_forward) {
      ++k;
      std::copy(running.begin(), running.end(), out.segment_base.begin() + static_cast<std::ptrdiff_t>(width * k));
      part = {0, 0, static_cast<std::uint32_t>(k)};
    }
    out.segment[static_cast<std::size_t>(i)] = static_cast<std::uint16_t>(k);
    out.partial[static_cast<std::size_t>(i)] = part;
    part.lo -= lo[i];
    part.hi -= hi[i];
    running[k] -= lo[i];
    running[k + 1] -= hi[i];
  }
  out.partial[n] = part;
}

void sum_grid_key_rates(const CouponGridDays& grids, std::span<const CurvePoint> points, const KeyRateArrays& curve,
                        GridKeyRates& out) {
  const std::size_t n = points.size(), count = grids.first_period.size();
  out.sums.resize(grids.days.size() + count);
  out.segment_start.resize(count * n);
  KeyRateShares* sum = out.sums.data();
  for (std::size_t g = 0; g < count; ++g) {
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
