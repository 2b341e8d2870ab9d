// Coupon grids: a bond priced with two look-ups instead of a walk over its
// coupon dates.
//
// Model. A bond's coupons fall on maturity - k * step months (step = 12 /
// coupons_per_year), each on the maturity's day of the month or that
// month's last day (docs/model.md; coupon_count). So every bond with the same step,
// day of the month and month modulo step pays on the same dates: one of
// 31 x (12 + 6 + 3) grids. A calendar lays out, for its today, the dates of
// every grid that fall within a curve's days (as days from today); a curve
// keeps, per calendar its bonds use, running sums of its discount factors
// over each grid's dates. A bond's coupon sums are then the difference of
// two running sums: up to its maturity's place on its grid, less those
// before its first coupon that is both on or after today and after its
// start. The sums are taken in date order (value_bond once summed latest
// first): the two differ in the last bits only.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "bond_risk/model/pricing/pricing.h"

namespace bond_risk {

// Where a bond's coupons lie: its grid, and its maturity's period (its
// month, year * 12 + month - 1, divided by the grid's step). Requires
// coupons_per_year 1, 2 or 4.
struct GridPlace {
  std::uint16_t grid = 0;
  std::int32_t period = 0;
};
GridPlace grid_place(Date maturity, int coupons_per_year);

// Every grid's dates from `today` on that fall within `horizon` days (the
// longest horizon of the curves its calendar's bonds are on).
struct CouponGridDays {
  std::vector<std::int32_t> first_period;  // per grid: the period of its first date on or after today
  std::vector<std::uint32_t> begin;       // per grid, then one past the last: where its dates start in `days`
  std::vector<std::uint16_t> days;        // ascending per grid, as days from today, < horizon
  std::vector<double> first_fraction;     // per grid: (first date - today) / (first date - the date a step before)
};
void lay_out_coupon_grids(Date today, int horizon, CouponGridDays& out);

// The rows of a curve's running sums over `grids` (sum_over_grids): one
// per date of every grid, and one more per grid.
inline std::size_t grid_rows(const CouponGridDays& grids) { return grids.days.size() + grids.begin.size() - 1; }

// Grids [first, last): a part of a curve's sums that one thread fills
// while others fill the rest, into rows sized by grid_rows.
struct GridSpan {
  std::size_t first = 0, last = 0;
};
inline GridSpan all_grids(const CouponGridDays& grids) { return {0, grids.begin.size() - 1}; }
// Part `part` of `parts` (0 <= part < parts), cut where the parts' rows are
// about equal in number: the same cut for the same grids, whatever the threads.
GridSpan grid_part(const CouponGridDays& grids, std::size_t part, std::size_t parts);

// Running sums over the dates of the grids of `span`: rows[begin[g] + g +
// j] holds grid g's first j dates (j = 0 .. its number of dates) summed in
// date order from Row{}, add(row, day) adding one date (days from today)
// to a row; dates from `horizon` on (past a curve shorter than its
// calendar's grids) add nothing: no bond on the curve pays there. The one
// layout of the curves' sums over the grids.
template <class Row, class Add>
void sum_over_grids(const CouponGridDays& grids, int horizon, GridSpan span, std::span<Row> rows, Add add) {
  Row* out = rows.data() + grids.begin[span.first] + span.first;
  for (std::size_t g = span.first; g < span.last; ++g) {
    Row sum{};
    *out++ = sum;
    std::uint32_t k = grids.begin[g];
    for (; k < grids.begin[g + 1] && grids.days[k] < horizon; ++k) {
      add(sum, grids.days[k]);
      *out++ = sum;
    }
    for (; k < grids.begin[g + 1]; ++k) *out++ = sum;
  }
}

// sums[begin[g] + g + j] = the discount factors of grid g's first j dates,
// summed in date order (j = 0 .. its number of dates): on `curve`, and on
// its bumped copies when `bumped` (df_up, df_dn stay 0 otherwise).
void sum_coupon_grids(const CouponGridDays& grids, const CurveArrays& curve, bool bumped,
                      CouponSumRows& sums);
// The same for the grids of `span`, into sums sized by grid_rows.
void sum_coupon_grids(const CouponGridDays& grids, const CurveArrays& curve, bool bumped, GridSpan span,
                      std::span<CouponSums> sums);

// The coupons counted of a bond paying on `place`'s grid whose schedule has
// `coupons` dates (coupon_count): the grid's dates first .. last,
// whose running sums start at row (sums[row + j] for its first j dates).
// Requires its maturity on or after the grids' today and within a curve's days.
struct GridRange {
  std::uint32_t row, first, last;
};
inline GridRange grid_range(const CouponGridDays& grids, GridPlace place, std::uint32_t coupons) {
  const std::size_t g = place.grid;
  const auto last = static_cast<std::uint32_t>(place.period - grids.first_period[g]);
  return {static_cast<std::uint32_t>(grids.begin[g] + g), last + 1 > coupons ? last + 1 - coupons : 0, last};
}

// Its coupon sums, on the curve `sums` were summed on for `grids`. Inline:
// the flush asks it of every bond.
inline CouponSums coupon_sums(const CouponGridDays& grids, std::span<const CouponSums> sums, GridPlace place,
                              std::uint32_t coupons) {
  const GridRange r = grid_range(grids, place, coupons);
  const CouponSums& to = sums[r.row + r.last + 1];
  if (r.first == 0) return to;
  const CouponSums& from = sums[r.row + r.first];
  return {to.df - from.df, to.df_up - from.df_up, to.df_dn - from.df_dn};
}

}  // namespace bond_risk
