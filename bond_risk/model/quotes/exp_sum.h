// Sums of exponentials and their roots: the one kind of sum a bond's yield
// and its z-spread solve (model/quotes/quote_analytics.h).
//
// Model. s(x) = sum_j a_j e^(b_j x), the b_j of one sign. Its moments at a
// point, m_i = sum_j a_j b_j^i e^(b_j x), are its derivatives there, so its
// Taylor polynomial of order K about the point stands in for it nearby:
// Lagrange's remainder bounds each term's error, and so the sum's, by
// magnitude z^(K+1) / (K+1)! e^z at a distance d, where z = reach |d|,
// reach is the largest |b_j| and magnitude the sum of |a_j| e^(b_j x); and
// moment i's by reach^i times that with K+1-i for K+1. A root of the
// polynomial of the moments' order (found by steps of its inverse series,
// no pass over the terms) is proven a root of the sum where those bounds
// put the sum within kTolerance of the target and the moments the caller
// reads within kMomentTolerance. A solve that starts near its root so ends
// at its first evaluation; solves polished together (polish_each) run side
// by side in the lanes of a vector. One that does not falls back on steps
// of Halley's method on ln(s(x) / target) within a bracket (solve), which
// converge from anywhere a root exists: s and its logarithm are monotone
// and convex for a_j >= 0.
//
// Moments come from a walk over the terms (ExpSum, CouponStream) or from
// running sums over a coupon grid (model/quotes/grid_moments.h). Plain values and
// pure functions: callable from any thread.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>

#include "base/fast_exp.h"
#include "base/lanes.h"
#include "bond_risk/model/pricing/status.h"

namespace bond_risk {

inline constexpr double kTolerance = 1e-12;        // of the target: the root's price (docs/model.md)
inline constexpr double kMomentTolerance = 1e-13;  // of each moment read at the root
inline constexpr int kMaxOrder = 12;

// A sum's moments m_0 .. m_order at one point.
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

// From the moments at x, the polynomial's root, if proven with the moments
// up to `exact` (at most 2); else, where the polynomial has a root near
// (next; NaN if none), where to evaluate next.
struct Polished {
  std::optional<Root> root;
  double next = std::numeric_limits<double>::quiet_NaN();
};
Polished polish(const Moments& at, double x, double target, int exact);

// polish() of each sum, all of one order, a vector of lanes at a time
// (base/lanes.h): the lanes share no arithmetic, so each result is the
// same bits as polish() gives it alone, beside any others.
void polish_each(std::span<const Moments> at, std::span<const double> x, std::span<const double> target, int exact,
                 std::span<Polished> out);

// The moments of a sum walked term by term, a vector of lanes at a time
// (base/lanes.h), from the lanes' moments: each lane's e^(b_j x) times a_j
// is `term`, b_j its `b`; lanes past the last term hold 0 in both.
template <int Order>
struct LaneMoments {
  static_assert(Order <= kMaxOrder);
  std::array<base::Doubles, Order + 1> m{};
  base::Doubles magnitude{};

  void add(base::Doubles term, base::Doubles b) {
    magnitude += base::abs(term);
    for (int i = 0; i <= Order; ++i) m[i] += term, term *= b;
  }
  Moments sum(double reach) const {
    Moments out;
    out.order = Order;
    out.reach = reach;
    for (int i = 0; i <= Order; ++i) out.m[i] = 0;
    for (std::size_t k = 0; k < base::kLanes; ++k) {
      for (int i = 0; i <= Order; ++i) out.m[i] += m[i][k];
      out.magnitude += magnitude[k];
    }
    return out;
  }
};

// A sum of up to kCapacity terms, the b_j monotone in j, each e^(b_j x) an
// exp (base/fast_exp.h), none at x = 0: the z-spread's P(x), whose b_j
// are the flows' times.
class ExpSum {
 public:
  // A schedule within a curve's days: 20 years of quarterly coupons at most.
  static constexpr std::size_t kCapacity = 248;  // quarterly flows over the longest curve, whole vectors
  static_assert(kCapacity % base::kLanes == 0 && kCapacity * 89 > kMaxForwardDays);

  template <class A, class B>
  ExpSum(std::size_t n, A a, B b) : n_(n) {
    if (n == 0 || n > kCapacity) throw std::logic_error("a bond with no or more than " + std::to_string(kCapacity) + " cash flows left");
    for (std::size_t j = 0; j < n; ++j) a_[j] = a(j), b_[j] = b(j);
    for (std::size_t j = n; j % base::kLanes != 0; ++j) a_[j] = b_[j] = 0;  // the last vector's spare lanes
  }

  template <int Order>
  Moments at(double x) const {
    LaneMoments<Order> lanes;
    for (std::size_t j = 0; j < n_; j += base::kLanes) {  // lanes past n_ hold a = b = 0: they add 0
      base::Doubles a, b;
      std::memcpy(&a, &a_[j], sizeof a);
      std::memcpy(&b, &b_[j], sizeof b);
      lanes.add(x == 0 ? a : a * base::fast_exp(b * x), b);
    }
    return lanes.sum(std::max(std::abs(b_[0]), std::abs(b_[n_ - 1])));
  }

 private:
  std::size_t n_;
  std::array<double, kCapacity> a_, b_;  // set up to the last vector read (not zeroed whole: a bond's time counts)
};

// The sum of n regular terms: a_j = c, and c + 100 for the last; b_j =
// j + w (w >= 0). The yield's: a bond's flows in u = ln v. e^(b_j x) is a
// geometric sequence: the first vector's exps, then products by
// e^(kLanes x) (within 1e-14 of each exp over a 20-year curve's 88 terms; the error grows with the terms); no array is filled.
class CouponStream {
 public:
  CouponStream(std::size_t n, double w, double c) : n_(n), w_(w), c_(c) {}

  template <int Order>
  Moments at(double x) const {
    Moments out;
    at<Order>(x, out);
    return out;
  }

  // The same, into `out`.
  template <int Order>
  void at(double x, Moments& out) const {
    base::Doubles index{};
    for (std::size_t k = 1; k < base::kLanes; ++k) index[k] = static_cast<double>(k);
    base::Doubles power = base::fast_exp((index + w_) * x);  // the first vector's, then by e^(kLanes x) a vector
    const base::Doubles stride = base::Doubles{} + base::fast_exp(static_cast<double>(base::kLanes) * x);
    std::array<base::Doubles, Order + 1> m;  // of the coupons, a_j = 1: the first vector's, then the rest added
    const double count = static_cast<double>(n_);
    const auto terms = [&](std::size_t j, auto add) {
      const base::Doubles place = index + static_cast<double>(j);
      base::Doubles term = place < count ? power : base::Doubles{}, b = place + w_;
      for (int i = 0; i <= Order; ++i) add(m[i], term), term *= b;
    };
    terms(0, [](base::Doubles& moment, base::Doubles term) { moment = term; });
    for (std::size_t j = base::kLanes; j < n_; j += base::kLanes) {
      power *= stride;
      terms(j, [](base::Doubles& moment, base::Doubles term) { moment += term; });
    }
    const double b_last = count - 1 + w_, last = power[(n_ - 1) % base::kLanes];  // e^(b_(n-1) x)
    out.order = Order;
    out.reach = b_last;
    std::array<double, Order + 1> coupons{};
    for (int i = 0; i <= Order; ++i) {
      for (std::size_t k = 0; k < base::kLanes; ++k) coupons[i] += m[i][k];
    }
    double redemption = 100 * last;
    for (int i = 0; i <= Order; ++i) out.m[i] = c_ * coupons[i] + redemption, redemption *= b_last;
    out.magnitude = std::abs(c_) * coupons[0] + 100 * last;
  }

 private:
  std::size_t n_;
  double w_, c_;
};

// The root of sum(x) = target from x, where the sum's moments are `at`
// and polish() gave `polished`; walk(x) gives them elsewhere. At each
// point, the polynomial's root if
// proven; else the next point is that root where it lies near, or a step
// of Halley's method on g(x) = ln(sum(x) / target). The logarithm is
// nearly straight far from the root: a step that overshoots onto the steep
// side comes back in a few steps, where a step on the sum itself would
// creep back by 1/duration at a time; where the curvature would more than
// double Newton's step, Newton's is taken. The bracket [lo, hi] of points
// known on either side of the root catches the rest: a step that leaves
// it, or a sum too large or too small for a double, goes halfway across it
// (or a stride past its one finite side). At most 100 evaluations.
template <class Walk>
Root solve(Walk walk, bool increasing, double target, double x, int exact, const Moments& first,
           const Polished& first_polished) {
  constexpr int kMaxSteps = 100;
  if (first_polished.root) return {first_polished.root->x, 1, first_polished.root->at};
  double lo = -INFINITY, hi = INFINITY;
  Moments at = first;
  Polished polished = first_polished;
  for (int step = 1;; ++step) {
    if (polished.root) return {polished.root->x, step, polished.root->at};
    if (step == kMaxSteps) return {std::numeric_limits<double>::quiet_NaN(), kMaxSteps, {}};
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
    at = walk(x);
    polished = polish(at, x, target, exact);
  }
}

}  // namespace bond_risk
