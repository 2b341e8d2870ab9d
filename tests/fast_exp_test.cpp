// base::fast_exp against exp computed in long double (the exact value to
// within 1e-19), at the edges of its range, and in vector lanes.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "base/fast_exp.h"

namespace {

// |a - exact| in units of the last place of the double nearest `exact`.
double ulps_from(double a, long double exact) {
  const auto nearest = static_cast<double>(exact);
  const double ulp = std::nextafter(nearest, std::numeric_limits<double>::infinity()) - nearest;
  return static_cast<double>(std::fabs(static_cast<long double>(a) - exact) / ulp);
}

// Each lane of `vector` applied to the xs a vector at a time has the bits
// of `alone` applied to that x (NaN for NaN).
template <class Vector, class Alone>
void expect_lanes_are_alone(std::vector<double> xs, Vector vector, Alone alone) {
  while (xs.size() % base::kLanes != 0) xs.push_back(1.0);
  for (std::size_t k = 0; k < xs.size(); k += base::kLanes) {
    base::Doubles x;
    std::memcpy(&x, &xs[k], sizeof x);
    const base::Doubles e = vector(x);
    for (std::size_t j = 0; j < base::kLanes; ++j) {
      const double one = alone(xs[k + j]);
      if (std::isnan(one)) {
        EXPECT_TRUE(std::isnan(e[j])) << xs[k + j];
      } else {
        EXPECT_EQ(std::bit_cast<std::uint64_t>(e[j]), std::bit_cast<std::uint64_t>(one)) << xs[k + j];
      }
    }
  }
}

}  // namespace

TEST(FastExp, IsWithinOneAndAHalfUnitsInTheLastPlaceOfTheExactValue) {
  std::mt19937_64 draw(2026);
  for (const double limit : {0.01, 1.0, 20.0, base::kFastExpLimit}) {  // 20: a repo's exponent at most
    std::uniform_real_distribution<double> x_of(-limit, limit);
    double worst = 0;
    for (int k = 0; k < 200'000; ++k) {
      const double x = x_of(draw);
      worst = std::max(worst, ulps_from(base::fast_exp(x), std::exp(static_cast<long double>(x))));
    }
    EXPECT_LE(worst, 1.5) << "for |x| <= " << limit;
  }
}

TEST(FastExp, IsExactWhereExpIs) {
  EXPECT_EQ(base::fast_exp(0.0), 1.0);
  EXPECT_EQ(base::fast_exp(-0.0), 1.0);
}

TEST(FastExp, IsTheLibrarysExpBeyondItsLimit) {
  EXPECT_EQ(base::fast_exp(710.0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(base::fast_exp(1e300), std::numeric_limits<double>::infinity());
  EXPECT_EQ(base::fast_exp(-750.0), 0.0);
  EXPECT_EQ(base::fast_exp(-705.0), std::exp(-705.0));  // subnormal territory starts near -708
  EXPECT_EQ(base::fast_exp(std::numeric_limits<double>::infinity()), std::numeric_limits<double>::infinity());
  EXPECT_EQ(base::fast_exp(-std::numeric_limits<double>::infinity()), 0.0);
  EXPECT_TRUE(std::isnan(base::fast_exp(std::numeric_limits<double>::quiet_NaN())));
}

TEST(FastExp, StaysFiniteAndCloseAtTheLimit) {
  for (const double x : {base::kFastExpLimit, -base::kFastExpLimit, std::nextafter(base::kFastExpLimit, 0.0)}) {
    EXPECT_LE(ulps_from(base::fast_exp(x), std::exp(static_cast<long double>(x))), 1.5) << x;
  }
}

TEST(FastExp, EachLaneOfAVectorHasTheBitsOfOneValueAlone) {
  std::mt19937_64 draw(7);
  std::uniform_real_distribution<double> x_of(-720.0, 720.0);  // beyond the limit on both sides too
  std::vector<double> xs = {0.0, -0.0, 700.0, -700.0, 700.5, -709.0, 1e300, std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()};
  for (int k = 0; k < 100'000; ++k) xs.push_back(k % 2 ? x_of(draw) : x_of(draw) / 720);
  expect_lanes_are_alone(
      xs, [](base::Doubles x) { return base::fast_exp(x); }, [](double x) { return base::fast_exp(x); });
}

TEST(FastExpm1, IsWithinTwoAndAHalfUnitsInTheLastPlaceOfTheExactValueNearZeroToo) {
  std::mt19937_64 draw(2027);
  for (const double limit : {1e-12, 1e-4, 0.01, 0.5, 1.0, 20.0, base::kFastExpLimit}) {
    std::uniform_real_distribution<double> x_of(-limit, limit);
    double worst = 0;
    for (int k = 0; k < 200'000; ++k) {
      const double x = x_of(draw);
      worst = std::max(worst, ulps_from(base::fast_expm1(x), std::expm1(static_cast<long double>(x))));
    }
    EXPECT_LE(worst, 2.5) << "for |x| <= " << limit;
  }
  EXPECT_EQ(base::fast_expm1(0.0), 0.0);
  EXPECT_EQ(base::fast_expm1(1e-300), 1e-300);
  EXPECT_EQ(base::fast_expm1(-800.0), -1.0);
  EXPECT_EQ(base::fast_expm1(800.0), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(base::fast_expm1(std::numeric_limits<double>::quiet_NaN())));
}

TEST(FastExpm1, EachLaneOfAVectorHasTheBitsOfOneValueAlone) {
  std::mt19937_64 draw(8);
  std::uniform_real_distribution<double> x_of(-720.0, 720.0);
  std::vector<double> xs = {0.0, -0.0, 1e-300, 700.5, -709.0, std::numeric_limits<double>::quiet_NaN()};
  for (int k = 0; k < 100'000; ++k) xs.push_back(k % 2 ? x_of(draw) : x_of(draw) / 72000);
  expect_lanes_are_alone(
      xs, [](base::Doubles x) { return base::fast_expm1(x); }, [](double x) { return base::fast_expm1(x); });
}
