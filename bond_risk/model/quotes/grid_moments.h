// A curve's running moments over the coupon grids: a bond's z-spread price
// P(x) at x = 0 with its derivatives, and the start of its yield, in a few
// look-ups instead of a walk over its flows and the curve.
//
// Model. P's moments at 0 (model/quotes/exp_sum.h) are m_i = sum_j CF_j df_j
// (-t_j)^i over a bond's flows, t_j in years; the yield starts from the
// flows' zero rates r_j weighted by CF_j df_j t_j (model/quotes/quote_analytics.h).
// A bond's flows are 100 c on each of its grid's dates first .. last and 100
// more at the last, its maturity (model/quotes/remaining_flows.h). So, as
// sum_coupon_grids does for the price, a curve keeps per grid date the
// running sums of df (-t)^i (i = 0 .. kSpreadOrder) and of df t r, in date
// order from the grid's first date on or after today, and a bond's sums
// are the difference of two rows plus its redemption's term. The rows it
// subtracts cover its grid's dates before its first coupon, which are
// before its start: for all but forward-starting bonds, none at all.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "bond_risk/model/pricing/coupon_grid.h"
#include "bond_risk/model/quotes/exp_sum.h"
#include "bond_risk/model/quotes/remaining_flows.h"

namespace bond_risk {

// The order of P's moments at 0: enough to prove a spread of a few hundred
// basis points on 20 years of flows at the first evaluation (exp_sum.h).
inline constexpr int kSpreadOrder = kMaxOrder;

// One grid row: the running sums of df (-t)^i, then of df t r; two cache lines.
struct alignas(64) MomentSums {
  static constexpr std::size_t kRate = kSpreadOrder + 1;
  std::array<double, 16> s{};
};
using MomentRows = base::HugeVector<MomentSums>;  // a curve's, over a calendar's coupon grids

// rows[begin[g] + g + j] = the sums over grid g's first j dates (j = 0 ..
// its number of dates), on `curve` (the layout of sum_coupon_grids).
void sum_grid_moments(const CouponGridDays& grids, const CurveArrays& curve, MomentRows& rows);
// The same for the grids of `span`, into rows sized by grid_rows.
void sum_grid_moments(const CouponGridDays& grids, const CurveArrays& curve, GridSpan span,
                      std::span<MomentSums> rows);

// A bond's, from the rows summed on `curve` for the grids its flows lie
// on: P's moments at 0 into `at_zero`; returned, the flows' zero rates
// weighted by CF df t (NaN when the weights sum to 0).
double on_curve(const RemainingFlows& flows, std::span<const MomentSums> rows, const CurveArrays& curve,
                Moments& at_zero);

}  // namespace bond_risk
