// Key-rate risk (docs/model.md "Key-rate risk"): how a value moves with each
// input point of a curve, as pure functions on plain values.
//
// Model. Day i of a curve lies in the segment k of its input days with
// p_k <= i < p_(k+1). There point k weighs w = (p_(k+1) - i) / (p_(k+1) - p_k)
// in the interpolation and point k+1 weighs 1 - w; no other point moves
// day i. Moving point j by +-BUMP multiplies df[i] by exp(-+BUMP w_j(i) t_i)
// (t_i = i / YEAR_BASIS), so a cash flow CF on day i contributes exactly
// -CF df[i] sinh(BUMP w_j(i) t_i) to kr01_j = (V_up - V_dn) / 2. A curve
// publishes those products per day, for the point at each end of the day's
// segment, and their running sums as ladders (for discounted sums, as a
// repo's) and along each coupon grid (for bonds, model/pricing/coupon_grid.h); a
// ladder is then a difference of running sums per segment (a bond) or one
// look-up (a repo), never one revaluation per point.
//
// Since the weights of a day sum to 1, a value's kr01s sum to its pv01 up to
// the non-linearity of sinh: |sum - pv01| <= (BUMP t)^2 / 8 |pv01| for cash
// flows up to t years, at most 5e-7 of pv01 on a 20-year curve.
//
// Ladders are indexed by a curve's points k = 0..n-1 (ir_curve_input_rate's
// idx in order); a book's ladder covers every curve's points, curve after
// curve, as a KeyRateAxis lays them out.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <vector>

#include "bond_risk/model/pricing/coupon_grid.h"
#include "bond_risk/model/pricing/pricing.h"

namespace bond_risk {

// A cash flow's key-rate shares: df sinh(BUMP w t) for the point at the
// start of its day's segment (lo) and at its end (hi); or sums of them.
struct KeyRateShares {
  double lo = 0, hi = 0;
};

// For d = 0 .. H (the curve's horizon), the ladder of the discounted sum df[0] +
// ... + df[d-1] (a repo's mtm_pnl subtracts one) is the ladder of the days
// before point k = partial[d].segment (n values from segment_base[n * k]
// for n points) plus the shares of days p_k .. d-1: partial[d].lo at point k
// and partial[d].hi at point k + 1.
struct DiscountSumPart {
  double lo = 0, hi = 0;
  std::uint32_t segment = 0;
};

// Per day i of a curve, days[i]; segment[i] is day i's segment k; and the
// discounted sums' ladders.
struct KeyRateArrays {
  base::HugeVector<KeyRateShares> days;
  std::vector<std::uint16_t> segment;  // a curve has at most kMaxForwardDays + 1 points
  std::vector<double> segment_base;
  std::vector<DiscountSumPart> partial;
};

// Fills `out` for valid points (check_curve_points returned "") and the
// arrays build_curve made from them.
void build_key_rates(std::span<const CurvePoint> points, const CurveArrays& curve, KeyRateArrays& out);
// The same in pieces, for a curve whose days are shared among threads:
// size_key_rates sizes `out` for `days` days; key_rate_shares fills the
// shares and segments of days [from, to) from curve.df (disjoint ranges may
// run at once); sum_key_rate_shares then the discounted sums' ladders from
// all of them.
void size_key_rates(std::span<const CurvePoint> points, int days, KeyRateArrays& out);
void key_rate_shares(std::span<const CurvePoint> points, const CurveArrays& curve, int from, int to,
                     KeyRateArrays& out);
void sum_key_rate_shares(std::span<const CurvePoint> points, KeyRateArrays& out);

// A curve's key-rate shares summed along the coupon grids of one calendar:
// sums[row + j] (rows as in coupon_grid.h) holds the lo and hi shares of a
// grid's first j dates, and segment_start[grid * points + k] how many of
// its dates fall before point k's day.
struct GridKeyRates {
  base::HugeVector<KeyRateShares> sums;
  std::vector<std::uint16_t> segment_start;
};
void sum_grid_key_rates(const CouponGridDays& grids, std::span<const CurvePoint> points, const KeyRateArrays& curve,
                        GridKeyRates& out);
// The same for the grids of `span`, into `out` sized by size_grid_key_rates.
void size_grid_key_rates(const CouponGridDays& grids, std::span<const CurvePoint> points, GridKeyRates& out);
void sum_grid_key_rates(const CouponGridDays& grids, std::span<const CurvePoint> points, const KeyRateArrays& curve,
                        GridSpan span, GridKeyRates& out);

// ladder[0 .. points) set to the kr01 per 100 nominal of a bond paying
// `c100` per coupon on its grid (as coupon_sums counts them) and 100 at
// maturity, days_to_maturity from today, on the curve and calendar `sums`
// were summed for.
void bond_key_rates(const CouponGridDays& grids, const GridKeyRates& sums, std::size_t points, GridPlace place,
                    std::uint32_t coupons, double c100, int days_to_maturity, const KeyRateArrays& curve,
                    std::span<double> ladder);

// Adds scale times the kr01 ladder of df[0] + ... + df[days-1] (days in
// 0 .. the curve's horizon) to ladder[0 .. points).
inline void add_discount_sum_key_rates(const KeyRateArrays& curve, std::size_t points, int days, double scale,
                                       std::span<double> ladder) {
  const DiscountSumPart& p = curve.partial[static_cast<std::size_t>(days)];
  const double* base = curve.segment_base.data() + points * p.segment;
  for (std::size_t j = 0; j < points; ++j) ladder[j] += scale * base[j];
  ladder[p.segment] += scale * p.lo;
  ladder[p.segment + 1] += scale * p.hi;
}

// Where each curve's points lie in a book's ladder: curve c's point k at
// offset[c] + k. `stride` is the largest number of points of any curve, the
// width of a bond's ladder.
struct KeyRateAxis {
  std::vector<std::uint32_t> offset;
  std::uint32_t size = 0, stride = 0;
};
KeyRateAxis key_rate_axis_for(std::span<const std::size_t> points_per_curve);

}  // namespace bond_risk
