#include "bond_risk/model/quotes/remaining_flows.h"

namespace bond_risk {

RemainingFlows remaining_flows(const CouponGridDays& grids, Date today, GridPlace place, std::uint32_t coupons,
                               Date maturity, int coupons_per_year, double coupon) {
  const GridRange r = grid_range(grids, place, coupons);
  const std::size_t n = r.last - r.first + 1;
  const std::span<const std::uint16_t> days(grids.days.data() + grids.begin[place.grid] + r.first, n);
  // A bond whose schedule began before today pays on its grid's first date: its w is the grid's.
  double w = grids.first_fraction[place.grid];
  if (r.first > 0) {
    const Date next = today + days.front();
    const Date prev = add_months(maturity, -static_cast<int>(n) * (12 / coupons_per_year));
    w = static_cast<double>(next - today) / static_cast<double>(next - prev);
  }
  return {days, 100.0 * coupon / coupons_per_year, coupons_per_year, w, place, r};
}

}  // namespace bond_risk
