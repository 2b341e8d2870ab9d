#include "bond_risk/model/quotes/grid_moments.h"

#include <cmath>
#include <limits>

namespace bond_risk {

void sum_grid_moments(const CouponGridDays& grids, const CurveArrays& curve, GridSpan span,
                      std::span<MomentSums> rows) {
  sum_over_grids(grids, static_cast<int>(curve.df.size()), span, rows, [&](MomentSums& sum, std::uint16_t day) {
    const double t = day * kYearsPerDay, df = curve.df[day];
    double term = df;  // df (-t)^i
    for (int i = 0; i <= kSpreadOrder; ++i) sum.s[i] += term, term *= -t;
    sum.s[MomentSums::kRate] += df * t * curve.r[day];
  });
}

void sum_grid_moments(const CouponGridDays& grids, const CurveArrays& curve, MomentRows& rows) {
  rows.resize(grid_rows(grids));
  sum_grid_moments(grids, curve, all_grids(grids), std::span(rows));
}

double on_curve(const RemainingFlows& flows, std::span<const MomentSums> rows, const CurveArrays& curve,
                Moments& at) {
  const MomentSums& to = rows[flows.range.row + flows.range.last + 1];
  const MomentSums& from = rows[flows.range.row + flows.range.first];  // the grid's first row is zero
  const std::uint16_t maturity = flows.days.back();
  const double t = maturity * kYearsPerDay, redemption = 100 * curve.df[maturity], c = flows.c100;
  at.order = kSpreadOrder;
  double term = redemption;  // 100 df (-t)^i at maturity
  for (int i = 0; i <= kSpreadOrder; ++i) at.m[i] = c * (to.s[i] - from.s[i]) + term, term *= -t;
  at.magnitude = std::abs(c) * (to.s[0] - from.s[0]) + redemption;
  at.reach = t;
  const double weights = -at.m[1];  // sum CF df t
  const double rates = c * (to.s[MomentSums::kRate] - from.s[MomentSums::kRate]) + redemption * t * curve.r[maturity];
  return weights > 0 ? rates / weights : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace bond_risk
