// Sums of exponentials and their roots: the one kind of sum a bond's yield
// and its z-spread solve (model/quote_analytics.h).
//
// Model. s(x) = sum_j a_j e^(b_j x), the b_j of one sign. Its moments at a
// point, m_i = sum_j a_j b_j^i e^(b_j x), are its derivatives there, so its
// Taylor polynomial of order K about the point stands in for it nearby:
// Lagrange's remainder bounds each term's error, and so the sum's, by
// magnitude z^(K+1) / (K+1)! e^z at a distance d, where z = reach |d|,
// reach is the largest |b_j| and magnitude the sum of |a_j| e^(b_j x); and
// moment i's by reach^i times that with K+1-i for K+1. A root of the
// polynomial (Halley's method on it costs no pass over the terms) is
// proven a root of the sum where those bounds put the sum within
// kTolerance of the target and the moments the caller reads within
// kMomentTolerance. A solve that starts near its root so ends at its first
// evaluation. One that does not falls back on steps of Halley's method on
// ln(s(x) / target) within a bracket (solve), which converge from anywhere
// a root exists: s and its logarithm are monotone and convex for a_j >= 0.
//
// Moments come from a walk over the terms (ExpSum) or from running sums
// over a coupon grid (model/grid_analytics.h). Plain values and pure
// functions: callable from any thread.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>

#include "base/fast_exp.h"
#include "base/lanes.h"
#include "bond_risk/model/status.h"

namespace bond_risk {

inline constexpr double kTolerance = 1e-12;        // of the target: the root's price (MODEL.md)
inline constexpr double kMomentTolerance = 1e-13;  // of each moment read at the root
inline constexpr int kMaxOrder = 12;

// A sum's moments m_0 .. m_order at one point (zero above the order).
struct Moments {
  int order = 0;
  std::array<double, kMaxOrder + 1> m;  // set up to the order
  double magnitude = 0;  // sum |a_j| e^(b_j x)
  double reach = 0;      // max |b_j|
};

// A sum's value and its first three derivatives at one point.
struct Sums {
  double value, slope, curvature, third;
};

// A root and the sum's derivatives there; x is NaN when none exists or
// none was found; steps: the evaluations taken (walks or look-ups).
struct Root {
  double x = std::numeric_limits<double>::quiet_NaN();
  int steps = 0;
  Sums at{};
};

// From the moments at x, the polynomial's root from x + start, if proven
// with the moments up to `exact` (at most 2); else, where the polynomial
// has a root near (next; NaN if none), where to evaluate next.
struct Polished {
  std::optional<Root> root;
  double next = std::numeric_limits<double>::quiet_NaN();
};
Polished polish(const Moments& at, double x, double start, double target, int exact);

// A sum walked term by term, a vector of lanes at a time (base/lanes.h):
// up to kCapacity terms, the b_j monotone in j. Where they step by 1 (the
// yield's b_j = j + w), e^(b_j x) is a geometric sequence, taken by
// products from two exps (within 1e-14 of each exp over 88 terms); else
// each is an exp (base/fast_exp.h), and none at x = 0.
class ExpSum {
 public:
  // A schedule within a curve's days: 20 years of quarterly coupons at most.
  static constexpr std::size_t kCapacity = 88;
  static_assert(kCapacity % base::kLanes == 0 && kCapacity * 89 > kNumForwardDays);

  template <class A, class B>
  ExpSum(std::size_t n, A a, B b, bool unit_steps) : n_(n), unit_steps_(unit_steps) {
    if (n == 0 || n > kCapacity) throw std::logic_error("a bond with no or more than 88 cash flows left");
    for (std::size_t j = 0; j < n; ++j) a_[j] = a(j), b_[j] = b(j);
    for (std::size_t j = n; j % base::kLanes != 0; ++j) a_[j] = b_[j] = 0;  // the last vector's spare lanes
  }

  template <int Order>
  Moments at(double x) const {
    if (unit_steps_) {  // e^(b_j x) from the lanes' first terms' by a factor e^(kLanes x) a vector
      const double ratio = base::fast_exp(x);
      base::Doubles power{}, stride{};
      power[0] = base::fast_exp(b_[0] * x);
      for (std::size_t k = 1; k < base::kLanes; ++k) power[k] = power[k - 1] * ratio;
      stride += power[base::kLanes - 1] * ratio / power[0];
      return moments<Order>([&](base::Doubles) {
        const base::Doubles e = power;
        power *= stride;
        return e;
      });
    }
    if (x == 0) return moments<Order>([](base::Doubles) { return base::Doubles{} + 1.0; });
    return moments<Order>([x](base::Doubles b) { return base::fast_exp(b * x); });
  }

  std::size_t size() const { return n_; }
  const double* a() const { return a_.data(); }  // a_j, then 0 to the end of the last vector
  const double* b() const { return b_.data(); }

 private:
  // The moments, with e^(b_j x) a vector at a time from exps(b), in order.
  template <int Order, class Exps>
  Moments moments(Exps exps) const {
    static_assert(Order <= kMaxOrder);
    std::array<base::Doubles, Order + 1> m{};
    base::Doubles magnitude{};
    for (std::size_t j = 0; j < n_; j += base::kLanes) {  // lanes past n_ hold a = b = 0: they add 0
      base::Doubles a, b;
      std::memcpy(&a, &a_[j], sizeof a);
      std::memcpy(&b, &b_[j], sizeof b);
      base::Doubles term = a * exps(b);
      magnitude += base::abs(term);
      for (int i = 0; i <= Order; ++i) m[i] += term, term *= b;
    }
    Moments out;
    out.order = Order;
    out.reach = std::max(std::abs(b_[0]), std::abs(b_[n_ - 1]));
    for (int i = 0; i <= Order; ++i) out.m[i] = 0;
    for (std::size_t k = 0; k < base::kLanes; ++k) {
      for (int i = 0; i <= Order; ++i) out.m[i] += m[i][k];
      out.magnitude += magnitude[k];
    }
    return out;
  }

  std::size_t n_;
  bool unit_steps_;
  std::array<double, kCapacity> a_, b_;  // set up to the last vector read (not zeroed whole: a bond's time counts)
};

// The root of sum(x) = target from x, walking the sum to moments of Order:
// at each point, the polynomial's root if proven; else the next point is
// that root where it lies near, or a step of Halley's method on
// g(x) = ln(sum(x) / target). The logarithm is nearly straight far from
// the root: a step that overshoots onto the steep side comes back in a few
// steps, where a step on the sum itself would creep back by 1/duration at
// a time; where the curvature would more than double Newton's step,
// Newton's is taken. The bracket [lo, hi] of points known on either side
// of the root catches the rest: a step that leaves it, or a sum too large
// or too small for a double, goes halfway across it (or a stride past its
// one finite side). At most 100 evaluations.
template <int Order>
Root solve(const ExpSum& sum, bool increasing, double target, double x, int exact) {
  constexpr int kMaxSteps = 100;
  double lo = -INFINITY, hi = INFINITY;
  for (int step = 1; step <= kMaxSteps; ++step) {
    const Moments at = sum.at<Order>(x);
    const Polished polished = polish(at, x, 0, target, exact);
    if (polished.root) return {polished.root->x, step, polished.root->at};
    const double value = at.m[0];
    const double g = std::isnan(value) ? INFINITY : std::log1p(value / target - 1);
    ((g > 0) == increasing ? hi : lo) = x;
    const double g1 = at.m[1] / value, g2 = at.m[2] / value - g1 * g1;
    const double halley = 2 * g1 * g1 - g * g2;
    double next = std::isfinite(polished.next) ? polished.next
                  : halley > g1 * g1           ? x - 2 * g * g1 / halley
                                               : x - g / g1;
    if (!(next > lo && next < hi)) {
      next = std::isfinite(lo) && std::isfinite(hi) ? lo + (hi - lo) / 2
             : std::isfinite(lo)                    ? lo + std::max(1.0, std::abs(lo))
                                                    : hi - std::max(1.0, std::abs(hi));
    }
    x = next;
  }
  return {std::numeric_limits<double>::quiet_NaN(), kMaxSteps, {}};
}

}  // namespace bond_risk
