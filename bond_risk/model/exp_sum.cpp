#include "bond_risk/model/exp_sum.h"

namespace bond_risk {

namespace {

constexpr double kMaxReach = 0.5;  // the largest z trusted: e^z < kExpMaxReach
constexpr double kExpMaxReach = 1.6488;
constexpr int kLeastOrder = 4;  // a root's Sums read up to the third moment

constexpr std::array<double, kMaxOrder + 2> inverses(bool factorials) {
  std::array<double, kMaxOrder + 2> inverse{};
  double factorial = 1;
  inverse[0] = 1;
  for (int i = 1; i <= kMaxOrder + 1; ++i) factorial *= i, inverse[i] = factorials ? 1 / factorial : 1.0 / i;
  return inverse;
}
constexpr std::array<double, kMaxOrder + 2> kInverseFactorial = inverses(true);  // 1 / k!
constexpr std::array<double, kMaxOrder + 2> kInverse = inverses(false);          // 1 / k

// The polynomial of an order and its first three derivatives at d, by
// Horner's scheme, side by side.
std::array<double, 4> taylor(const Moments& at, int order, double d) {
  std::array<double, 4> p{};
  for (int i = order; i >= 0; --i) {
    for (int k = 0; k < 4; ++k) {
      if (i >= k) p[k] = p[k] * d + at.m[i] * kInverseFactorial[i - k];
    }
  }
  return p;
}

// z^n / n! for n >= 0, by squaring.
double power_over_factorial(double z, int n) {
  double power = 1, square = z;
  for (int e = n; e > 0; e >>= 1, square *= square) {
    if (e & 1) power *= square;
  }
  return power * kInverseFactorial[n];
}

// The bounds on moment i's error at d, i = 0 .. exact, for an order: the
// price's is z^(K+1) / (K+1)! magnitude e^z, moment i's that times
// reach^i with K+1-i for K+1; each within its allowance (the price's: what
// its distance from the target leaves of kTolerance).
struct Proof {
  const Moments& at;
  double target;
  int exact;

  bool holds(int order, double d, const std::array<double, 4>& root) const {
    const double z = at.reach * std::abs(d);
    if (!(z <= kMaxReach)) return false;
    const double size = at.magnitude * kExpMaxReach;
    if (!(size * power_over_factorial(z, order + 1) <= kTolerance * target - std::abs(root[0] - target))) return false;
    double reach = 1;  // reach^i: each bound taken whole, so a root at the point itself (d = 0) is proven too
    for (int i = 1; i <= exact; ++i) {
      reach *= at.reach;
      if (!(size * reach * power_over_factorial(z, order + 1 - i) <= kMomentTolerance * std::abs(root[i]))) return false;
    }
    return true;
  }
  // The least order whose bound on the last moment read, at d, is within
  // half its allowance with that moment near its value here (within e^z,
  // z <= kMaxReach); 0 if none is. holds() then checks every bound at the root.
  int least_order(double d) const {
    const double z = at.reach * std::abs(d);
    if (!(z <= kMaxReach)) return 0;  // NaN too
    const double allowance = exact == 0 ? kTolerance * target : kMomentTolerance * std::abs(at.m[exact]) / 2;
    double bound = at.magnitude * kExpMaxReach;  // reach^exact z^(K+1-exact) / (K+1-exact)! of it
    for (int i = 1; i <= exact; ++i) bound *= at.reach;
    for (int k = 1; k <= kLeastOrder - exact; ++k) bound *= z * kInverse[k];
    for (int order = kLeastOrder; order <= at.order; ++order) {
      bound *= z * kInverse[order + 1 - exact];
      if (bound <= allowance / 2) return order;
    }
    return 0;
  }
};

}  // namespace

// Halley's method on the polynomial to a value within kTolerance / 2 of
// the target, then Newton's step, taken on the derivatives by their own
// slopes: its size times reach is below 1e-11, so the terms it leaves out
// are below 1e-22 of each.
Polished polish(const Moments& at, double x, double start, double target, int exact) {
  const Proof proof{at, target, exact};
  std::array<double, 4> p = start == 0 ? std::array{at.m[0], at.m[1], at.m[2], at.m[3]} : taylor(at, at.order, start);
  double d = start;
  int order = 0;
  for (int k = 0;; ++k) {
    const double f = p[0] - target;
    if (std::abs(f) <= kTolerance / 2 * target) {
      if (order == 0) order = proof.least_order(d);
      if (order == 0) return {};
      const double step = -f / p[1];
      d += step;
      p = {p[0] + step * p[1], p[1] + step * p[2], p[2] + step * p[3], p[3]};
      break;
    }
    const double halley = 2 * p[1] * p[1] - f * p[2];
    d += halley > p[1] * p[1] ? -2 * f * p[1] / halley : -f / p[1];
    if (order == 0) order = proof.least_order(d);
    if (order == 0 || k == 8) return {};
    p = taylor(at, order, d);
  }
  if (proof.holds(order, d, p)) return {Root{x + d, 0, {p[0], p[1], p[2], p[3]}}, x + d};
  return {std::nullopt, x + d};
}

}  // namespace bond_risk
