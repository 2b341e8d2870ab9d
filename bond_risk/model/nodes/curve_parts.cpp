#include "bond_risk/model/nodes/curve_parts.h"

#include <algorithm>
#include <span>

#include "bond_risk/model/pricing/coupon_grid.h"
#include "bond_risk/model/pricing/key_rates.h"
#include "bond_risk/model/pricing/pricing.h"
#include "bond_risk/model/quotes/grid_moments.h"

namespace bond_risk {

namespace {

constexpr int kCurveDaysPerPart = 16 * kAlignedDays;  // step 1's days a part
constexpr std::size_t kGridParts = 4;                 // step 2's parts of the grids, for each sum of each grid

}  // namespace

std::size_t curve_parts(const Store& s, NodeIndex i, std::size_t step) {
  if (step == 0) return 1;
  if (s.state(ref(Kind::ir_curve, i)).status != Status::ok) return 0;
  const IrCurve& c = s.curves[i];
  if (step == 1) return static_cast<std::size_t>((c.horizon() + kCurveDaysPerPart - 1) / kCurveDaysPerPart);
  const std::size_t per_sum = c.grids.size() * kGridParts;
  const std::size_t key_rates = s.with_key_rates ? 1 : 0, moments = s.with_quote_analytics ? 1 : 0;
  return per_sum * (1 + key_rates + moments) + 1 + key_rates;
}

void curve_part(Store& s, NodeIndex i, std::size_t step, std::size_t part) {
  IrCurve& c = s.curves[i];
  const auto calendar_ok = [&](const CurveGrid& g) { return s.state(ref(Kind::calendar, g.calendar)).status == Status::ok; };
  if (step == 0) {
    NodeState& st = s.states[static_cast<std::size_t>(Kind::ir_curve)][i];
    ++c.key_rate_version;
    st.status = from_inputs(st, kNoInputs);
    if (st.status != Status::ok) return;
    size_curve(c.points, true, c.arrays);
    if (s.with_key_rates) size_key_rates(c.points, c.horizon(), c.key_rates);
    for (CurveGrid& g : c.grids) {  // its own status does not depend on its calendars'
      if (!calendar_ok(g)) {
        g = {g.calendar, {}, {}, {}};
        continue;
      }
      const CouponGridDays& days = s.calendars[g.calendar].grid_days;
      g.sums.resize(grid_rows(days));
      if (s.with_key_rates) size_grid_key_rates(days, c.points, g.key_rates);
      if (s.with_quote_analytics) g.moments.resize(grid_rows(days));
    }
    return;
  }
  if (step == 1) {
    const int from = static_cast<int>(part) * kCurveDaysPerPart;
    const int to = std::min(from + kCurveDaysPerPart, c.horizon());
    discount_days(c.arrays, from, to);
    bump_days(c.arrays, from, to);
    if (s.with_key_rates) key_rate_shares(c.points, c.arrays, from, to, c.key_rates);
    return;
  }
  // Part `q` of one of the grids' sums: its grid, and which part of that grid's grids.
  const std::size_t per_sum = c.grids.size() * kGridParts;
  const auto grid_sum = [&](std::size_t q, auto sum) {
    CurveGrid& g = c.grids[q / kGridParts];
    if (!calendar_ok(g)) return;
    const CouponGridDays& days = s.calendars[g.calendar].grid_days;
    sum(g, days, grid_part(days, q % kGridParts, kGridParts));
  };
  if (s.with_quote_analytics) {
    if (part < per_sum) {
      return grid_sum(part, [&](CurveGrid& g, const CouponGridDays& days, GridSpan span) {
        sum_grid_moments(days, c.arrays, span, std::span(g.moments));
      });
    }
    part -= per_sum;
  }
  if (part == 0) return sum_discount_factors(c.arrays);
  part -= 1;
  if (s.with_key_rates) {
    if (part == 0) return sum_key_rate_shares(c.points, c.key_rates);
    part -= 1;
    if (part < per_sum) {
      return grid_sum(part, [&](CurveGrid& g, const CouponGridDays& days, GridSpan span) {
        sum_grid_key_rates(days, c.points, c.key_rates, span, g.key_rates);
      });
    }
    part -= per_sum;
  }
  grid_sum(part, [&](CurveGrid& g, const CouponGridDays& days, GridSpan span) {
    sum_coupon_grids(days, c.arrays, true, span, std::span(g.sums));
  });
}

}  // namespace bond_risk
