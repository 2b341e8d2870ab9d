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

namespace {

// Step 2's sums, in order: each grid's moments, cum_df, the key rates'
// discounted sums, each grid's key-rate sums, each grid's coupon sums.
// `value`: what a first pass computes (the values read off them); the
// others are the rest's.
enum class Sum { moments, cum_df, key_rate_shares, grid_key_rates, coupons };
struct SumOf {
  Sum sum;
  bool per_grid, value;
};
constexpr SumOf kSums[] = {{Sum::moments, true, false},
                           {Sum::cum_df, false, true},
                           {Sum::key_rate_shares, false, false},
                           {Sum::grid_key_rates, true, false},
                           {Sum::coupons, true, true}};

// Whether `pass` computes a sum of this kind (or runs step 1's key-rate shares: value false).
bool in_pass(bool value, engine::Pass pass) {
  return pass == engine::Pass::whole || (pass == engine::Pass::first) == value;
}

bool computed(const Store& s, const SumOf& sum, engine::Pass pass) {
  if (sum.sum == Sum::moments && !s.with_quote_analytics) return false;
  if ((sum.sum == Sum::key_rate_shares || sum.sum == Sum::grid_key_rates) && !s.with_key_rates) return false;
  return in_pass(sum.value, pass);
}

}  // namespace

std::size_t curve_parts(const Store& s, NodeIndex i, std::size_t step, engine::Pass pass) {
  if (step == 0) return pass == engine::Pass::rest ? 0 : 1;
  if (s.state(ref(Kind::ir_curve, i)).status != Status::ok) return 0;
  const IrCurve& c = s.curves[i];
  if (step == 1) {
    if (pass == engine::Pass::rest && !s.with_key_rates) return 0;
    return static_cast<std::size_t>((c.horizon() + kCurveDaysPerPart - 1) / kCurveDaysPerPart);
  }
  std::size_t parts = 0;
  for (const SumOf& sum : kSums) {
    if (computed(s, sum, pass)) parts += sum.per_grid ? c.grids.size() * kGridParts : 1;
  }
  return parts;
}

void curve_part(Store& s, NodeIndex i, std::size_t step, std::size_t part, engine::Pass pass) {
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
    if (in_pass(true, pass)) {
      discount_days(c.arrays, from, to);
      bump_days(c.arrays, from, to);
    }
    if (s.with_key_rates && in_pass(false, pass)) key_rate_shares(c.points, c.arrays, from, to, c.key_rates);
    return;
  }
  // Part `q` of one of the grids' sums: its grid, and which part of that grid's grids.
  const std::size_t per_grid = c.grids.size() * kGridParts;
  const auto grid_sum = [&](std::size_t q, auto sum) {
    CurveGrid& g = c.grids[q / kGridParts];
    if (!calendar_ok(g)) return;
    const CouponGridDays& days = s.calendars[g.calendar].grid_days;
    sum(g, days, grid_part(days, q % kGridParts, kGridParts));
  };
  for (const SumOf& sum : kSums) {
    if (!computed(s, sum, pass)) continue;
    const std::size_t parts = sum.per_grid ? per_grid : 1;
    if (part >= parts) {
      part -= parts;
      continue;
    }
    switch (sum.sum) {
      case Sum::moments:
        return grid_sum(part, [&](CurveGrid& g, const CouponGridDays& days, GridSpan span) {
          sum_grid_moments(days, c.arrays, span, std::span(g.moments));
        });
      case Sum::cum_df: return sum_discount_factors(c.arrays);
      case Sum::key_rate_shares: return sum_key_rate_shares(c.points, c.key_rates);
      case Sum::grid_key_rates:
        return grid_sum(part, [&](CurveGrid& g, const CouponGridDays& days, GridSpan span) {
          sum_grid_key_rates(days, c.points, c.key_rates, span, g.key_rates);
        });
      case Sum::coupons:
        return grid_sum(part, [&](CurveGrid& g, const CouponGridDays& days, GridSpan span) {
          sum_coupon_grids(days, c.arrays, true, span, std::span(g.sums));
        });
    }
  }
}

}  // namespace bond_risk
