// A bond's remaining cash flows, settling today (docs/model.md "Quote
// analytics"): its coupon dates on or after today, on its coupon grid
// (model/pricing/coupon_grid.h), 100 c each, plus 100 on the last, its maturity.
// w is the fraction of a period from today to the first of them (0 on a
// coupon date, above 1 before the first period begins), so cash flow j
// falls j + w periods from today. Plain values over the grids' days: valid
// while those are.
#pragma once

#include <cstdint>
#include <span>

#include "bond_risk/model/pricing/coupon_grid.h"
#include "bond_risk/model/pricing/dates.h"

namespace bond_risk {

struct RemainingFlows {
  std::span<const std::uint16_t> days;  // its coupon dates on or after today, as days from today, ascending; last: maturity
  double c100 = 0;                      // coupon per period per 100 nominal
  int coupons_per_year = 0;
  double w = 0;                         // (next - today) / (next - prev), in days
  GridPlace place;                      // its grid, and the grid's dates it pays on
  GridRange range{};
};

// The flows of a bond paying on `place`'s grid whose schedule has `coupons`
// dates (coupon_count), on the grids' `today`. Requires its maturity on or
// after today and within a curve's days.
RemainingFlows remaining_flows(const CouponGridDays& grids, Date today, GridPlace place, std::uint32_t coupons,
                               Date maturity, int coupons_per_year, double coupon);

// Cash flow j: the coupon, and the last also the redemption.
inline double cash_flow(const RemainingFlows& f, std::size_t j) {
  return j + 1 == f.days.size() ? f.c100 + 100 : f.c100;
}

}  // namespace bond_risk
