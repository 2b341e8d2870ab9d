// Coupon grids (model/pricing/coupon_grid.h) and coupon_count against the
// definition they replace: a walk over each bond's coupon schedule,
// counting the dates on or after today.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "bond_risk/model/pricing/coupon_grid.h"
#include "bond_risk/model/quotes/remaining_flows.h"
#include "bond_risk/model/pricing/status.h"
#include "tests/test_support.h"

using namespace bond_risk;

namespace {

Date d(const char* text) { return parse_date(text).value(); }

// A "curve" whose sums are exact integers: per day i, df = 1 (a sum counts
// the coupons), df_up = i and df_dn = i * i (they pin down which days).
CurveArrays counting_curve() {
  CurveArrays c;
  c.df = Eigen::ArrayXd::Ones(kNumForwardDays);
  c.df_up = Eigen::ArrayXd::LinSpaced(kNumForwardDays, 0, kNumForwardDays - 1);
  c.df_dn = c.df_up.square();
  return c;
}

// The same sums by the definition: the schedule's dates on or after today.
CouponSums walked(Date start, Date maturity, int coupons_per_year, Date today) {
  CouponSums s;
  for (Date date : test::coupon_schedule(start, maturity, coupons_per_year)) {
    if (date < today) continue;
    const double i = date - today;
    s.df += 1;
    s.df_up += i;
    s.df_dn += i * i;
  }
  return s;
}

}  // namespace

TEST(CouponGrid, EveryBondsGridHoldsExactlyItsCouponDatesFromToday) {
  const CurveArrays curve = counting_curve();
  std::mt19937 rng(7);
  // Todays on month ends, a leap day and mid-month; maturities on every day
  // of the first four years (every day of the month, month ends, leap
  // days) and at random out to the curve's end; starts long before today,
  // shortly before (some coupons past) and after it (forward starting).
  for (const char* today_text : {"2024-02-29", "2025-01-31", "2025-11-21", "2023-12-31", "2025-04-30"}) {
    const Date today = d(today_text);
    CouponGridDays grids;
    lay_out_coupon_grids(today, kNumForwardDays, grids);
    CouponSumRows sums;
    sum_coupon_grids(grids, curve, true, sums);
    std::uniform_int_distribution<int> far(0, kNumForwardDays - 1);
    std::vector<Date> maturities;
    for (int i = 0; i < 4 * 366; ++i) maturities.push_back(today + i);
    for (int i = 0; i < 500; ++i) maturities.push_back(today + far(rng));
    for (int last : {kNumForwardDays - 1, kNumForwardDays - 2}) maturities.push_back(today + last);  // the grids' ends
    int checked = 0;
    for (Date maturity : maturities) {
      for (int per_year : {1, 2, 4}) {
        for (Date start : {today - 9000, today - 200, today + 40}) {
          if (start >= maturity) continue;
          const std::uint32_t coupons = coupon_count(start, maturity, per_year);
          ASSERT_EQ(coupons, test::coupon_schedule(start, maturity, per_year).size()) << format_date(maturity);
          const CouponSums got = coupon_sums(grids, sums, grid_place(maturity, per_year), coupons);
          const CouponSums want = walked(start, maturity, per_year, today);
          ASSERT_EQ(got.df, want.df) << today_text << " " << format_date(maturity) << " " << per_year << " from "
                                     << format_date(start);
          ASSERT_EQ(got.df_up, want.df_up) << today_text << " " << format_date(maturity) << " " << per_year;
          ASSERT_EQ(got.df_dn, want.df_dn) << today_text << " " << format_date(maturity) << " " << per_year;
          ++checked;
        }
      }
    }
    EXPECT_GT(checked, 15000);
  }
}

// remaining_flows takes a bond's w from its grid's first date when its
// schedule began before today; the definition (MODEL.md): the first coupon
// date on or after today and the schedule's date before it.
TEST(CouponGrid, AStartedBondsFirstFractionIsTheOneItsScheduleGives) {
  for (const char* today_text : {"2024-02-29", "2025-01-31", "2025-11-21", "2023-12-31", "2025-04-30"}) {
    const Date today = d(today_text);
    CouponGridDays grids;
    lay_out_coupon_grids(today, kNumForwardDays, grids);
    int checked = 0;
    for (int i = 0; i < 4 * 366; i += 3) {
      const Date maturity = today + i, start = today - 9000;
      for (int per_year : {1, 2, 4}) {
        std::vector<Date> schedule = test::coupon_schedule(start, maturity, per_year);
        std::reverse(schedule.begin(), schedule.end());  // in date order
        const auto next = std::lower_bound(schedule.begin(), schedule.end(), today);
        ASSERT_TRUE(next != schedule.end() && next != schedule.begin());
        const double want = static_cast<double>(*next - today) / static_cast<double>(*next - *(next - 1));
        const RemainingFlows flows = remaining_flows(grids, today, grid_place(maturity, per_year),
                                                     coupon_count(start, maturity, per_year), maturity, per_year, 0.05);
        ASSERT_EQ(flows.range.first, 0u);
        ASSERT_EQ(flows.w, want) << today_text << " " << format_date(maturity) << " " << per_year;
        ++checked;
      }
    }
    EXPECT_GT(checked, 1400);
  }
}

TEST(CouponGrid, PricesAreThePlainSumOfDiscountedCashFlows) {
  const CurvePoint points[] = {{0, 0.021}, {91, 0.029}, {365, 0.033}, {1826, 0.043}, {3652, 0.047}, {kNumForwardDays, 0.051}};
  CurveArrays curve;
  build_curve(points, curve);
  const Date today = d("2025-11-21");
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> days(0, kNumForwardDays - 1);
  const test::SummedGrids grids = test::summed_grids(today, curve);  // once, as a flush sums them for every bond
  for (int n = 0; n < 2000; ++n) {
    const Date maturity = today + days(rng);
    const Date start = maturity - 1 - days(rng);
    const int per_year = 1 << (n % 3);
    const double coupon = 0.01 * (n % 7);
    const BondValue got = test::priced_on_grid(grids, start, maturity, per_year, coupon, today, curve);
    const int m = maturity - today;
    double price = 100 * curve.df[m], up = 100 * curve.df_up[m], down = 100 * curve.df_dn[m];
    for (Date date : test::coupon_schedule(start, maturity, per_year)) {
      if (date < today) continue;
      price += 100 * coupon / per_year * curve.df[date - today];
      up += 100 * coupon / per_year * curve.df_up[date - today];
      down += 100 * coupon / per_year * curve.df_dn[date - today];
    }
    // Sums in another order: a few ulps of the price, of which pv01 is a
    // difference of two prices (so it is close to the same absolute ulps).
    EXPECT_NEAR(got.price, price, 1e-14 * price) << n;
    EXPECT_NEAR(got.pv01, (up - down) / 2, 1e-14 * price) << n;
  }
}
