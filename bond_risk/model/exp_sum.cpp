#include "bond_risk/model/exp_sum.h"


namespace bond_risk {

namespace {

constexpr double kMaxReach = 0.5;  // the largest z trusted: e^z < kExpMaxReach
constexpr double kExpMaxReach = 1.6488;
static_assert(kMaxOrder < 16);

// 1 / k!
constexpr std::array<double, 16> kInverseFactorial = [] {
  std::array<double, 16> inverse{};
  double factorial = 1;
  inverse[0] = 1;
  for (std::size_t k = 1; k < inverse.size(); ++k) factorial *= static_cast<double>(k), inverse[k] = 1 / factorial;
  return inverse;
}();

// Four doubles side by side: the polynomial's value and first three
// derivatives (two SSE2 registers where the target has no AVX).
using Four = double __attribute__((vector_size(4 * sizeof(double))));

// The Taylor polynomial of order Order about the moments' point, and its
// first three derivatives: derivative k's coefficient of d^j is
// m_(j+k) / j! for j + k <= Order. Evaluated by Estrin's scheme: a tree of
// products log2(kTerms) deep, where Horner's is a chain as long as the
// order, the four side by side.
template <int Order>
class Taylor {
 public:
  explicit Taylor(const Moments& at) {
    for (std::size_t j = 0; j < kTerms; ++j) {
      for (std::size_t k = 0; k < 4; ++k) {
        c_[j][k] = j + k <= Order ? at.m[j + k] * kInverseFactorial[j] : 0;
      }
    }
  }

  std::array<double, 4> operator()(double d) const {
    std::array<Four, kTerms / 2> level;  // the pairs, their pairs, ...: a power of d each time
    for (std::size_t i = 0; i < kTerms / 2; ++i) level[i] = c_[2 * i] + c_[2 * i + 1] * d;
    for (std::size_t n = kTerms / 2; n > 1; n /= 2) {
      d *= d;
      for (std::size_t i = 0; i < n / 2; ++i) level[i] = level[2 * i] + level[2 * i + 1] * d;
    }
    return {level[0][0], level[0][1], level[0][2], level[0][3]};
  }

 private:
  static constexpr std::size_t kTerms = Order < 8 ? 8 : 16;
  std::array<Four, kTerms> c_;
};

// The bounds on moment i's error at d, i = 0 .. exact, for the moments'
// order K: the price's is z^(K+1) / (K+1)! magnitude e^z, moment i's that
// times reach^i with K+1-i for K+1.
template <int Order>
struct Proof {
  const Moments& at;
  double target;
  int exact;

  // z^n by squaring, unrolled.
  template <int N>
  static double power(double z) {
    if constexpr (N == 1) {
      return z;
    } else if constexpr (N % 2 == 1) {
      return z * power<N - 1>(z);
    } else {
      const double half = power<N / 2>(z);
      return half * half;
    }
  }

  // z^(K+1-i) / (K+1-i)! for i = 0 .. 2.
  static std::array<double, 3> powers(double z) {
    const double low = power<Order - 1>(z);
    return {low * (z * z) * kInverseFactorial[Order + 1], low * z * kInverseFactorial[Order],
            low * kInverseFactorial[Order - 1]};
  }

  // Each bound within its allowance at the root (the price's: what its
  // distance from the target leaves of kTolerance).
  bool holds(double d, const std::array<double, 4>& root) const {
    const double z = at.reach * std::abs(d);
    const std::array<double, 3> power = powers(z);
    const double size = at.magnitude * kExpMaxReach;
    bool within = z <= kMaxReach && size * power[0] <= kTolerance * target - std::abs(root[0] - target);
    double reach = 1;  // reach^i: each bound taken whole, so a root at the point itself (d = 0) is proven too
    for (int i = 1; i <= exact; ++i) {
      reach *= at.reach;
      within &= size * reach * power[i] <= kMomentTolerance * std::abs(root[i]);
    }
    return within;
  }

  // Whether the bound on the last moment read, at d, is within half its
  // allowance with that moment near its value here (within e^z, z <=
  // kMaxReach): a root this far may yet be proven.
  bool within_reach(double d) const {
    const double z = at.reach * std::abs(d);
    const double allowance = exact == 0 ? kTolerance * target : kMomentTolerance * std::abs(at.m[exact]) / 2;
    double bound = at.magnitude * kExpMaxReach * powers(z)[exact];
    for (int i = 1; i <= exact; ++i) bound *= at.reach;
    return z <= kMaxReach && bound <= allowance / 2;  // false for NaN too
  }
};

// The step to the polynomial's root from where its value is off the
// target by f and its derivatives are p: its inverse series to the third
// order, d = -a (1 + s a / 2 + (3 s^2 - t) a^2 / 6) with a = f / p1, s = p2 /
// p1, t = p3 / p1, whose error is of the order of a^4 (Householder's
// method of order 4: from a start within 1e-4, one step). Where s a is not
// small the series does not hold: Newton's step, -a.
double inverse_step(const std::array<double, 4>& p, double f) {
  const double inverse = 1 / p[1], a = f * inverse, s = p[2] * inverse, t = p[3] * inverse;
  const double sa = s * a;
  if (!(std::abs(sa) < 0.5)) return -a;
  return -a * (1 + sa / 2 + (3 * s * s - t) * (a * a) / 6);
}

// Steps of the inverse series on the polynomial to a value within
// kTolerance / 2 of the target, then Newton's step, taken on the
// derivatives by their own slopes: its size times reach is below 1e-11, so
// the terms it leaves out are below 1e-22 of each. The first step needs no
// evaluation (the moments are the derivatives at 0): a start near its root
// takes one evaluation of the polynomial.
template <int Order>
Polished polish_with(const Moments& at, double x, double target, int exact) {
  const Proof<Order> proof{at, target, exact};
  const Taylor<Order> taylor(at);
  std::array<double, 4> p{at.m[0], at.m[1], at.m[2], at.m[3]};
  double d = 0;
  for (int k = 0;; ++k) {
    const double f = p[0] - target;
    if (std::abs(f) <= kTolerance / 2 * target) {
      const double step = -f / p[1];
      d += step;
      p = {p[0] + step * p[1], p[1] + step * p[2], p[2] + step * p[3], p[3]};
      break;
    }
    d += inverse_step(p, f);
    if ((k == 0 && !proof.within_reach(d)) || k == 8) return {};
    p = taylor(d);
  }
  if (proof.holds(d, p)) return {Root{x + d, 0, {p[0], p[1], p[2], p[3]}}, x + d};
  return {std::nullopt, x + d};
}

}  // namespace

Polished polish(const Moments& at, double x, double target, int exact) {
  switch (at.order) {
    case 6: return polish_with<6>(at, x, target, exact);
    case kMaxOrder: return polish_with<kMaxOrder>(at, x, target, exact);
    default: throw std::logic_error("moments of an order no solve takes");
  }
}

}  // namespace bond_risk
