#include "bond_risk/model/quotes/stream_roots.h"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>

#include "base/fast_exp.h"
#include "base/lanes.h"
#include "bond_risk/model/quotes/exp_sum.h"

namespace bond_risk {

namespace {

using base::Doubles;
using base::kLanes;
using Mask = decltype(Doubles{} < Doubles{});  // per lane all ones (true) or 0

constexpr int kMaxEvaluations = 6;  // from a textbook start, two or three

// The lanes' solves, one per lane.
struct Lanes {
  Doubles n, w, c, target, start, first, first_b, redemption;
  bool any_first;  // a lane has a first flow apart
};

// The stream at u in each lane: its value, and what its derivatives are made of.
struct Point {
  Doubles s;
  Doubles a, ea, b, eb, per_b, lead, last;  // e^(nu) - 1, e^(nu), e^u - 1, e^u, 1 / b, e^(wu), e^((n-1+w)u)
  Doubles h;                                // sum_(j<n) e^(ju)
  Doubles first;                            // the first flow apart, discounted: first e^(first_b u)
};

Point point_at(const Lanes& at, Doubles u) {
  Point p;
  const Doubles nu = at.n * u;
  p.b = base::fast_expm1(u), p.eb = 1 + p.b;
  p.ea = base::fast_exp(nu), p.lead = base::fast_exp(at.w * u);
  // e^(nu) - 1: from e^(nu) where that leaves it within 1.2e-14 (|nu| >= 1/100); nearer 0, expm1 (rare:
  // a yield within a few basis points of 0, or a bond's last period).
  p.a = p.ea - 1;
  const Mask near_zero = base::abs(nu) < 0.01;
  for (std::size_t k = 0; k < kLanes; ++k) {
    if (near_zero[k] != 0) p.a[k] = base::fast_expm1(nu[k]);
  }
  p.last = p.lead * p.ea / p.eb;
  p.per_b = 1 / p.b;
  p.h = p.b == 0 ? at.n : p.a * p.per_b;  // u = 0: n
  p.first = Doubles{};
  if (at.any_first) {  // a lane without one adds 0, whatever the exponential
    const Doubles e = base::fast_exp(at.first_b * u);
    p.first = at.first != 0 ? at.first * e : Doubles{};
  }
  p.s = at.c * p.lead * p.h + at.redemption * p.last + p.first;
  return p;
}

// s' and s'' at the point, from H' and H'' (a' = n (1 + a), b' = b'' = 1 + b).
std::array<Doubles, 2> slopes_at(const Lanes& at, const Point& p) {
  const Doubles n = at.n, w = at.w, per_b2 = p.per_b * p.per_b;
  const Doubles h1 = (n * p.ea * p.b - p.a * p.eb) * per_b2;
  const Doubles h2 = (n * n * p.ea * p.b - p.a * p.eb) * per_b2 - 2 * p.eb * h1 * p.per_b;
  const Mask zero = p.b == 0;  // u = 0: sum_(j<n) j^k
  const Doubles h1_0 = zero ? n * (n - 1) / 2 : h1;
  const Doubles h2_0 = zero ? n * (n - 1) * (2 * n - 1) / 6 : h2;
  const Doubles coupons = at.c * p.lead, last_times = n - 1 + w;
  return {coupons * (w * p.h + h1_0) + at.redemption * last_times * p.last + at.first_b * p.first,
          coupons * (w * w * p.h + 2 * w * h1_0 + h2_0) + at.redemption * (last_times * last_times) * p.last +
              at.first_b * at.first_b * p.first};
}

bool all(Mask m) {
  for (std::size_t k = 0; k < kLanes; ++k) {
    if (m[k] == 0) return false;
  }
  return true;
}

// Halley's steps in each lane of kVectors vectors, side by side (their
// exponentials' latencies overlap), until s is within kTolerance / 2 of
// its target.
constexpr std::size_t kVectors = 4;

std::array<Doubles, kVectors> roots_of(const std::array<Lanes, kVectors>& at, std::size_t vectors) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::array<Doubles, kVectors> u{}, root{};
  std::array<Mask, kVectors> done{};
  for (std::size_t g = 0; g < vectors; ++g) {
    u[g] = at[g].start, root[g] = Doubles{} + kNaN;
    done[g] = ~((at[g].target > 0) & (at[g].target < std::numeric_limits<double>::infinity()));  // no root: NaN
  }
  for (int k = 0; k < kMaxEvaluations; ++k) {
    bool all_done = true;
    for (std::size_t g = 0; g < vectors; ++g) {
      const Point p = point_at(at[g], u[g]);
      const Doubles f = p.s - at[g].target;
      const Mask hit = (base::abs(f) <= kTolerance / 2 * at[g].target) & ~done[g];
      root[g] = hit ? u[g] : root[g];
      done[g] |= hit;
      if (all(done[g])) continue;
      all_done = false;
      // Halley's step, or Newton's where the curvature would turn it back.
      const auto [slope, curvature] = slopes_at(at[g], p);
      const Doubles newton = -f / slope, denominator = 2 * slope * slope - f * curvature;
      const Doubles halley = -2 * f * slope / denominator;
      u[g] = done[g] ? u[g] : (denominator > 0 ? u[g] + halley : u[g] + newton);
    }
    if (all_done) break;
  }
  return root;
}

}  // namespace

void stream_roots(std::span<const StreamSolve> solves, std::span<double> roots) {
  if (roots.size() != solves.size()) throw std::logic_error("stream_roots: spans of different sizes");
  constexpr std::size_t kGroup = kVectors * kLanes;
  for (std::size_t j = 0; j < solves.size(); j += kGroup) {
    // Spare lanes repeat the group's first solve.
    const auto gather = [&](std::size_t g, double StreamSolve::*field) {
      Doubles v{};  // every lane set below (GCC -O1 cannot tell)
      for (std::size_t k = 0; k < kLanes; ++k) {
        const std::size_t at = j + g * kLanes + k;
        v[k] = solves[at < solves.size() ? at : j].*field;
      }
      return v;
    };
    const std::size_t vectors = std::min(kVectors, (solves.size() - j + kLanes - 1) / kLanes);
    std::array<Lanes, kVectors> lanes;
    for (std::size_t g = 0; g < vectors; ++g) {
      Lanes& l = lanes[g];
      l = {gather(g, &StreamSolve::n),     gather(g, &StreamSolve::w),          gather(g, &StreamSolve::c),
           gather(g, &StreamSolve::target), gather(g, &StreamSolve::start),     gather(g, &StreamSolve::first),
           gather(g, &StreamSolve::first_b), gather(g, &StreamSolve::redemption), false};
      for (std::size_t k = 0; k < kLanes; ++k) l.any_first = l.any_first || l.first[k] != 0;
    }
    const std::array<Doubles, kVectors> r = roots_of(lanes, vectors);
    for (std::size_t k = 0; k < std::min(kGroup, solves.size() - j); ++k) roots[j + k] = r[k / kLanes][k % kLanes];
  }
}

}  // namespace bond_risk
