// Roots of regular coupon streams in closed form (model/quotes/stream_roots.h)
// against the stream summed term by term in long double at the root: the
// price there within kTolerance of the target, for streams of every length
// the curves allow, from the textbook start the engine takes.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "bond_risk/model/quotes/exp_sum.h"
#include "bond_risk/model/quotes/quote_analytics.h"
#include "bond_risk/model/quotes/stream_roots.h"

namespace {

using namespace bond_risk;

// first e^(first_b u) + sum_(j<n) c e^((j+w)u) + redemption e^((n-1+w)u), term by term.
long double stream_sum(const StreamSolve& s, double u) {
  long double sum = s.first * std::exp(static_cast<long double>(s.first_b) * u);
  for (int j = 0; j < static_cast<int>(s.n); ++j) sum += s.c * std::exp((j + static_cast<long double>(s.w)) * u);
  return sum + s.redemption * std::exp((s.n - 1 + static_cast<long double>(s.w)) * u);
}

// A stream of n coupons of c a period, w periods to the first, whose price
// at the yield y (f a year) is the target; the start is the textbook
// yield's, as the engine's quote yields take it.
StreamSolve stream_at_yield(int n, double w, double c, int f, double y) {
  StreamSolve s{static_cast<double>(n), w, c, 0, 0};
  s.target = static_cast<double>(stream_sum(s, -std::log1p(y / f)));
  s.start = textbook_yield_start(c * f, (n - 1 + w) / f, s.target, f);
  return s;
}

// Solves the streams and checks each root found prices its stream, summed
// term by term, within kTolerance of its target; returns how many were found.
int expect_roots_price_their_targets(const std::vector<StreamSolve>& solves) {
  std::vector<double> roots(solves.size());
  stream_roots(solves, roots);
  int reached = 0;
  for (std::size_t k = 0; k < solves.size(); ++k) {
    if (std::isnan(roots[k])) continue;
    ++reached;
    const StreamSolve& s = solves[k];
    EXPECT_LE(std::fabs(stream_sum(s, roots[k]) - s.target), kTolerance * s.target)
        << "n " << s.n << " w " << s.w << " c " << s.c << " first " << s.first << " at " << s.first_b << " target "
        << s.target;
  }
  return reached;
}

}  // namespace

TEST(StreamRoots, EachRootPricesTheStreamWithinTheToleranceOfItsTarget) {
  std::mt19937_64 draw(49);
  std::uniform_int_distribution<int> frequency(0, 2);
  std::uniform_real_distribution<double> w_of(0, 1.2), c_of(0, 4), y_of(-0.01, 0.15), years_of(0, 60);
  std::vector<StreamSolve> solves;
  for (int k = 0; k < 20'000; ++k) {
    const int f = std::array{1, 2, 4}[static_cast<std::size_t>(frequency(draw))];
    const int n = 1 + static_cast<int>(years_of(draw) * f);
    solves.push_back(stream_at_yield(n, w_of(draw), c_of(draw), f, y_of(draw)));
  }
  const int reached = expect_roots_price_their_targets(solves);
  // The rest are walked (quote_analytics.cpp): few, or the closed form saves nothing.
  EXPECT_GE(reached, 19'980) << "of 20,000";
}

// At a yield of 0 (u = 0, where expm1(u) is 0) the closed form takes its
// limits: the root is found there, and near it on both sides.
TEST(StreamRoots, AYieldOfZeroAndYieldsBesideItAreFound) {
  for (const double y : {0.0, 1e-9, -1e-9, 1e-6, -1e-6}) {
    for (const int n : {1, 2, 20, 120}) {
      const StreamSolve s = stream_at_yield(n, 0.5, 2.0, 2, y);
      double root = 0;
      stream_roots({&s, 1}, {&root, 1});
      ASSERT_FALSE(std::isnan(root)) << "y " << y << " n " << n;
      EXPECT_LE(std::fabs(stream_sum(s, root) - s.target), kTolerance * s.target) << "y " << y << " n " << n;
    }
  }
}

TEST(StreamRoots, ATargetTheStreamCannotReachHasNoRoot) {
  for (const double target : {0.0, -5.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    const StreamSolve s{10, 0.3, 2.0, target, -0.02};
    double root = 0;
    stream_roots({&s, 1}, {&root, 1});
    EXPECT_TRUE(std::isnan(root)) << target;
  }
}

// A convention bond's stream: its first coupon apart (short, or 0 gone
// ex) a fraction of a period before the rest, or alone with the
// redemption (one coupon left).
TEST(StreamRoots, AFirstFlowApartIsPricedWithTheRest) {
  std::mt19937_64 draw(50);
  std::uniform_real_distribution<double> w_of(0.05, 1.0), first_of(0, 3), y_of(0.0, 0.1);
  std::uniform_int_distribution<int> n_of(0, 99);
  std::vector<StreamSolve> solves;
  for (int k = 0; k < 5'000; ++k) {
    const double first_b = w_of(draw), y = y_of(draw), c = 2.25;
    const int n = n_of(draw);
    StreamSolve s = n == 0 ? StreamSolve{0, first_b, 0, 0, 0, first_of(draw) + 100, first_b, 0}
                           : StreamSolve{static_cast<double>(n), first_b + 1, c, 0, 0, k % 3 == 0 ? 0.0 : first_of(draw), first_b, 100};
    s.target = static_cast<double>(stream_sum(s, -std::log1p(y / 2)));
    s.start = textbook_yield_start(c * 2, (n + first_b) / 2, s.target, 2);
    solves.push_back(s);
  }
  EXPECT_GE(expect_roots_price_their_targets(solves), 4'995) << "of 5,000";
}

// Solves side by side give each the bits it gets alone, whatever its
// neighbours do (found, not found, done at another step).
TEST(StreamRoots, SolvesSideBySideGiveTheBitsOfEachAlone) {
  std::vector<StreamSolve> solves;
  for (const int n : {1, 3, 10, 40, 80, 240}) {
    for (const double y : {-0.005, 0.0, 0.03, 0.12}) solves.push_back(stream_at_yield(n, 0.37, 2.5, 2, y));
  }
  solves.push_back({10, 0.3, 2.0, -1.0, -0.02});  // no root
  for (const double y : {0.01, 0.04}) {  // beside ones with a first flow apart
    StreamSolve s{12, 1.4, 2.0, 0, -0.01, 0.8, 0.4, 100};
    s.target = static_cast<double>(stream_sum(s, -std::log1p(y / 2)));
    solves.push_back(s);
  }
  std::vector<double> together(solves.size());
  stream_roots(solves, together);
  for (std::size_t k = 0; k < solves.size(); ++k) {
    double alone = 0;
    stream_roots({&solves[k], 1}, {&alone, 1});
    EXPECT_EQ(std::bit_cast<std::uint64_t>(alone), std::bit_cast<std::uint64_t>(together[k])) << "solve " << k;
  }
}
