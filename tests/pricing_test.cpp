// The formulas of MODEL.md against closed forms and hand-checked numbers.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "bond_risk/model/pricing/status.h"
#include "bond_risk/model/pricing/pricing.h"
#include "tests/test_support.h"

using namespace bond_risk;

namespace {

CurveArrays flat_curve(double r) {
  const CurvePoint points[] = {{0, r}, {kNumForwardDays, r}};
  CurveArrays c;
  build_curve(points, c);
  return c;
}

Date d(const char* text) { return parse_date(text).value(); }

// Relative closeness for values computed in a different order.
void expect_close(double actual, double expected, double rel = 1e-12) {
  EXPECT_NEAR(actual, expected, rel * std::max(1.0, std::abs(expected)));
}

}  // namespace

TEST(Curve, FlatCurveGivesExpDiscountFactors) {
  const double r = 0.04;
  const CurveArrays c = flat_curve(r);
  ASSERT_EQ(c.df.size(), kNumForwardDays);
  for (int i : {0, 1, 365, 3652, kNumForwardDays - 1}) {
    expect_close(c.r[i], r);
    expect_close(c.df[i], std::exp(-r * i / 365.25));
    expect_close(c.df_up[i], std::exp(-(r + 0.0001) * i / 365.25));
    expect_close(c.df_dn[i], std::exp(-(r - 0.0001) * i / 365.25));
  }
  EXPECT_EQ(c.df[0], 1.0);
}

TEST(Curve, InterpolatesLinearlyBetweenInputPoints) {
  const CurvePoint points[] = {{0, 0.01}, {100, 0.02}, {kNumForwardDays, 0.05}};
  CurveArrays c;
  build_curve(points, c);
  expect_close(c.r[0], 0.01);
  expect_close(c.r[50], 0.015);
  expect_close(c.r[100], 0.02);
  expect_close(c.r[7304], 0.02 + 0.03 * 7204.0 / 7205.0);
}

TEST(Curve, CumulativeDiscountFactorsAreTheNaiveSum) {
  const CurvePoint points[] = {{0, 0.01}, {400, 0.03}, {kNumForwardDays, 0.045}};
  CurveArrays c;
  build_curve(points, c);
  double sum = 0;
  for (int i = 0; i < kNumForwardDays; ++i) {
    expect_close(c.cum_df[i], sum);
    sum += c.df[i];
  }
  expect_close(c.cum_df[kNumForwardDays], sum);
}

TEST(Curve, RejectsInvalidInputPoints) {
  EXPECT_EQ(check_curve_points(std::vector<CurvePoint>{{0, 0.01}, {kNumForwardDays, 0.02}}), "");
  EXPECT_NE(check_curve_points(std::vector<CurvePoint>{{0, 0.01}}).find("at least 2"), std::string::npos);
  EXPECT_NE(check_curve_points(std::vector<CurvePoint>{{0, 0.01}, {500, 0.02}, {400, 0.02}, {kNumForwardDays, 0.02}})
                .find("not increasing"),
            std::string::npos);
  EXPECT_NE(check_curve_points(std::vector<CurvePoint>{{1, 0.01}, {kNumForwardDays, 0.02}}).find("not 0"),
            std::string::npos);
  EXPECT_NE(check_curve_points(std::vector<CurvePoint>{{0, 0.01}, {7000, 0.02}}).find("not within 7305..21915"),
            std::string::npos);
  EXPECT_NE(check_curve_points(std::vector<CurvePoint>{{0, 0.01}, {kMaxForwardDays + 1, 0.02}}).find("not within 7305..21915"),
            std::string::npos);
  EXPECT_EQ(check_curve_points(std::vector<CurvePoint>{{0, 0.01}, {kMaxForwardDays, 0.02}}), "");
  EXPECT_NE(check_curve_points(std::vector<CurvePoint>{{0, NAN}, {kNumForwardDays, 0.02}}).find("is not within -1..1"),
            std::string::npos);
  EXPECT_NE(check_curve_points(std::vector<CurvePoint>{{0, 0.01}, {kNumForwardDays, 1.5}}).find("(1.500000) is not within"),
            std::string::npos);
  EXPECT_EQ(check_curve_points(std::vector<CurvePoint>{{0, -1.0}, {kNumForwardDays, 1.0}}), "");
}

TEST(Bond, PriceOnAFlatCurveIsTheHandWrittenSum) {
  // Semi-annual 5% bond, today 2025-01-01, maturity 2027-01-01: coupons at
  // day offsets 0, 181, 365, 546 and 730 (counted by hand); the coupon paid
  // today counts (t >= today).
  const double r = 0.03;
  const CurveArrays c = flat_curve(r);
  const BondValue v = test::priced_on_grid(d("2020-01-01"), d("2027-01-01"), 2, 0.05, d("2025-01-01"), c);
  auto df = [&](int days, double rate) { return std::exp(-rate * days / 365.25); };
  auto price = [&](double rate) {
    double p = 100 * df(730, rate);
    for (int days : {0, 181, 365, 546, 730}) p += 100 * 0.025 * df(days, rate);
    return p;
  };
  expect_close(v.price, price(r));
  expect_close(v.pv01, (price(r + 0.0001) - price(r - 0.0001)) / 2, 1e-9);
  EXPECT_LT(v.pv01, 0);
}

TEST(Bond, ZeroCouponBondIsOneDiscountFactor) {
  const CurveArrays c = flat_curve(0.05);
  const BondValue v = test::priced_on_grid(d("2020-06-30"), d("2030-06-30"), 1, 0.0, d("2025-06-30"), c);
  const int days = d("2030-06-30") - d("2025-06-30");
  EXPECT_EQ(days, 1826);  // 2028 is a leap year
  expect_close(v.price, 100 * std::exp(-0.05 * 1826 / 365.25));
}

TEST(Bond, Pv01IsCloseToThePriceChangeOfAOneBasisPointShift) {
  const CurvePoint points[] = {{0, 0.02}, {1000, 0.03}, {kNumForwardDays, 0.045}};
  const CurvePoint shifted[] = {{0, 0.0201}, {1000, 0.0301}, {kNumForwardDays, 0.0451}};
  CurveArrays base, up;
  build_curve(points, base);
  build_curve(shifted, up);
  const BondValue v = test::priced_on_grid(d("2020-03-15"), d("2035-03-15"), 4, 0.045, d("2025-01-01"), base);
  const double moved =
      test::priced_on_grid(d("2020-03-15"), d("2035-03-15"), 4, 0.045, d("2025-01-01"), up).price - v.price;
  EXPECT_NEAR(v.pv01, moved, 0.01 * std::abs(moved));
  EXPECT_LT(v.pv01, -0.05);  // about duration * price * 1bp for a ten-year bond
}

TEST(OutrightTrade, ValuesFollowQuantityAndDirection) {
  const BondValue bond{101.5, -0.08};
  const double bond_cs01 = -0.07;
  const OutrightValue buy = value_outright(200, +1, 99.0, bond);
  EXPECT_DOUBLE_EQ(buy.pv, 20300.0);
  EXPECT_DOUBLE_EQ(buy.pv01, -16.0);
  EXPECT_DOUBLE_EQ(buy.pnl, 500.0);  // 200 * (101.5 - 99)
  EXPECT_DOUBLE_EQ(outright_cs01(200, +1, bond_cs01), -14.0);
  const OutrightValue sell = value_outright(200, -1, 99.0, bond);
  EXPECT_DOUBLE_EQ(sell.pv, -20300.0);
  EXPECT_DOUBLE_EQ(sell.pnl, -500.0);
  EXPECT_DOUBLE_EQ(outright_cs01(200, -1, bond_cs01), 14.0);
  EXPECT_TRUE(is_null(outright_cs01(200, -1, kNull))) << "a trade on an unquoted bond has no cs01";
}

TEST(RepoTrade, EndingTodayHasNoInterestAndNoDiscounting) {
  const CurveArrays c = flat_curve(0.04);
  const RepoValue v = value_repo(1'000'000.0, 9'000, 0.05, 0, 110.0, c);
  EXPECT_EQ(v.end_cash, 1'000'000.0);
  EXPECT_EQ(v.mtm_pnl, 1'000'000.0);  // the sum over i < 0 is empty
  EXPECT_EQ(v.margin, 1'000'000.0 - 9'000 * 110.0);
}

TEST(RepoTrade, FlatCurveSumIsAGeometricSeries) {
  const double r = 0.04, rate = 0.05, cash = 2'500'000.0;
  const int days = 90;
  const CurveArrays c = flat_curve(r);
  const RepoValue v = value_repo(cash, 25'000, rate, days, 99.0, c);
  const double q = std::exp(-r / 365.25);
  const double end_cash = cash * std::exp(rate * days / 365.25);
  expect_close(v.end_cash, end_cash);
  expect_close(v.mtm_pnl, end_cash - cash * (1 - std::pow(q, days)) / (1 - q) / 365.25, 1e-11);
  EXPECT_EQ(v.margin, cash - 25'000 * 99.0);
}

TEST(Values, AllFiniteFindsAnInfinityOrANaNInAnyField) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(all_finite(RepoValue{1e308, -1e308, -0.0}));
  EXPECT_TRUE(all_finite(OutrightValue{1e308, 1e308, 1e308}));  // their sum would overflow; each is finite
  for (const double bad : {inf, -inf, nan}) {
    EXPECT_FALSE(all_finite(BondValue{bad, 1}));
    EXPECT_FALSE(all_finite(BondValue{1, bad}));
    EXPECT_FALSE(all_finite(OutrightValue{bad, 1, 1}));
    EXPECT_FALSE(all_finite(OutrightValue{1, bad, 1}));
    EXPECT_FALSE(all_finite(OutrightValue{1, 1, bad}));
    EXPECT_FALSE(all_finite(RepoValue{bad, 1, 1}));
    EXPECT_FALSE(all_finite(RepoValue{1, bad, 1}));
    EXPECT_FALSE(all_finite(RepoValue{1, 1, bad}));
  }
}

TEST(RepoTrade, EachLaneOfAVectorHasTheBitsOfOneTradeAlone) {
  const CurveArrays c = flat_curve(0.035);
  std::mt19937_64 draw(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int round = 0; round < 10'000; ++round) {
    RepoInputs one[base::kLanes];
    RepoInputsOf<base::Doubles> lanes;
    for (std::size_t j = 0; j < base::kLanes; ++j) {
      const int days = static_cast<int>(unit(draw) * kNumForwardDays);
      const double rate = round % 100 == 0 && j == 1 ? 1e300 : unit(draw) * 0.2 - 0.05;  // some lanes overflow
      one[j] = repo_inputs(unit(draw) * 1e8, static_cast<std::int64_t>(unit(draw) * 1e6), rate, days,
                           50 + unit(draw) * 100, c);
      lanes.start_cash[j] = one[j].start_cash;
      lanes.notional[j] = one[j].notional;
      lanes.growth[j] = one[j].growth;
      lanes.bond_price[j] = one[j].bond_price;
      lanes.cum_df[j] = one[j].cum_df;
    }
    const RepoValueOf<base::Doubles> v = value_repo(lanes);
    bool finite = true;
    for (std::size_t j = 0; j < base::kLanes; ++j) {
      const RepoValue alone = value_repo(one[j]);
      finite = finite && all_finite(alone);
      for (const auto& [lane, single] : {std::pair{v.end_cash[j], alone.end_cash}, std::pair{v.margin[j], alone.margin},
                                         std::pair{v.mtm_pnl[j], alone.mtm_pnl}}) {
        EXPECT_EQ(std::bit_cast<std::uint64_t>(lane), std::bit_cast<std::uint64_t>(single)) << round << " lane " << j;
      }
    }
    EXPECT_EQ(all_finite(v), finite) << round;
  }
}
