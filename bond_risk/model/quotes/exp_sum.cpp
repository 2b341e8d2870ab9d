#include "bond_risk/model/quotes/exp_sum.h"

namespace bond_risk {

namespace {

using base::Doubles;
using base::kLanes;
using Mask = decltype(Doubles{} < Doubles{});  // per lane all ones (true) or 0

constexpr double kMaxReach = 0.5;  // the largest z trusted: e^z < kExpMaxReach
constexpr double kExpMaxReach = 1.6488;
constexpr int kMaxSteps = 9;  // of the polynomial's inverse series

// 1 / k!
constexpr std::array<double, 16> kInverseFactorial = [] {
  std::array<double, 16> inverse{};
  double factorial = 1;
  inverse[0] = 1;
  for (std::size_t k = 1; k < inverse.size(); ++k) factorial *= static_cast<double>(k), inverse[k] = 1 / factorial;
  return inverse;
}();
static_assert(kMaxOrder + 1 < 16);

bool all(Mask m) {
  for (std::size_t k = 0; k < kLanes; ++k) {
    if (m[k] == 0) return false;
  }
  return true;
}

// z^N by squaring, unrolled.
template <int N>
Doubles power(Doubles z) {
  if constexpr (N == 1) {
    return z;
  } else if constexpr (N % 2 == 1) {
    return z * power<N - 1>(z);
  } else {
    const Doubles half = power<N / 2>(z);
    return half * half;
  }
}

// The lanes' sums, one per lane, all of one order: their moments side by
// side (m[i]: each lane's m_i), magnitudes, reaches and targets.
template <int Order>
struct Lanes {
  std::array<Doubles, Order + 1> m;
  Doubles magnitude, reach, target;
};

// The Taylor polynomial of order Order about the moments' point, and its
// first three derivatives, at d in each lane: derivative k is the sum over
// j <= Order - k of m_(j+k) d^j / j!. The powers come by squaring (a few
// products deep) and each sum in four parts, so no chain of dependent
// steps is as long as the order (Horner's would be).
template <int Order>
std::array<Doubles, 4> taylor(const Lanes<Order>& at, Doubles d) {
  std::array<Doubles, Order + 1> power;  // d^j
  power[0] = Doubles{} + 1;
  power[1] = d;
  for (int j = 2; j <= Order; ++j) power[j] = j % 2 == 0 ? power[j / 2] * power[j / 2] : power[j - 1] * d;
  std::array<Doubles, Order + 1> term;  // d^j / j!
  for (int j = 0; j <= Order; ++j) term[j] = power[j] * kInverseFactorial[j];
  std::array<Doubles, 4> p;
  for (int k = 0; k < 4; ++k) {
    std::array<Doubles, 4> part{};
    for (int j = 0; j + k <= Order; ++j) part[j % 4] += at.m[j + k] * term[j];
    p[k] = (part[0] + part[1]) + (part[2] + part[3]);
  }
  return p;
}

// The bounds on moment i's error at d, i = 0 .. exact, for the moments'
// order K: the price's is z^(K+1) / (K+1)! magnitude e^z, moment i's that
// times reach^i with K+1-i for K+1.
template <int Order>
struct Proof {
  const Lanes<Order>& at;
  int exact;

  // z^(K+1-i) / (K+1-i)! for i = 0 .. 2.
  static std::array<Doubles, 3> powers(Doubles z) {
    const Doubles low = power<Order - 1>(z);
    return {low * (z * z) * kInverseFactorial[Order + 1], low * z * kInverseFactorial[Order],
            low * kInverseFactorial[Order - 1]};
  }

  // Each bound within its allowance at the root (the price's: what its
  // distance from the target leaves of kTolerance).
  Mask holds(Doubles d, const std::array<Doubles, 4>& root) const {
    const Doubles z = at.reach * base::abs(d);
    const std::array<Doubles, 3> bound = powers(z);
    const Doubles size = at.magnitude * kExpMaxReach;
    Mask within = (z <= kMaxReach) & (size * bound[0] <= kTolerance * at.target - base::abs(root[0] - at.target));
    Doubles reach = Doubles{} + 1;  // reach^i: each bound taken whole, so a root at the point itself (d = 0) is proven too
    for (int i = 1; i <= exact; ++i) {
      reach *= at.reach;
      within &= size * reach * bound[i] <= kMomentTolerance * base::abs(root[i]);
    }
    return within;
  }

  // Whether the bound on the last moment read, at d, is within half its
  // allowance with that moment near its value here (within e^z, z <=
  // kMaxReach): a root this far may yet be proven. False for NaN.
  Mask within_reach(Doubles d) const {
    const Doubles z = at.reach * base::abs(d);
    const Doubles allowance = exact == 0 ? kTolerance * at.target : kMomentTolerance * base::abs(at.m[exact]) / 2;
    Doubles bound = at.magnitude * kExpMaxReach * powers(z)[exact];
    for (int i = 1; i <= exact; ++i) bound *= at.reach;
    return (z <= kMaxReach) & (bound <= allowance / 2);
  }
};

// The step to the polynomial's root from where its value is off the
// target by f and its derivatives are p: its inverse series to the third
// order, d = -a (1 + s a / 2 + (3 s^2 - t) a^2 / 6) with a = f / p1, s = p2 /
// p1, t = p3 / p1, whose error is of the order of a^4 (Householder's
// method of order 4: from a start within 1e-4, one step). Where s a is not
// small the series does not hold: Newton's step, -a.
Doubles inverse_step(const std::array<Doubles, 4>& p, Doubles f) {
  const Doubles inverse = 1 / p[1], a = f * inverse, s = p[2] * inverse, t = p[3] * inverse;
  const Doubles sa = s * a;
  return base::abs(sa) < 0.5 ? -a * (1 + sa / 2 + (3 * s * s - t) * (a * a) / 6) : -a;
}

// Steps of the inverse series on each lane's polynomial to a value within
// kTolerance / 2 of its target, then Newton's step, taken on the
// derivatives by their own slopes: its size times reach is below 1e-11,
// so the terms it leaves out are below 1e-22 of each. The first step needs
// no evaluation (the moments are the derivatives at 0): a start near its
// root takes one evaluation of the polynomial. A lane stops when it is
// done or failed, and keeps its values while the others go on: nothing in
// one lane depends on another's.
template <int Order>
void polish_lanes(const Lanes<Order>& at, int exact, std::array<Doubles, 4>& p, Doubles& d, Mask& proven,
                  Mask& failed) {
  const Proof<Order> proof{at, exact};
  p = {at.m[0], at.m[1], at.m[2], at.m[3]};
  d = Doubles{};
  Mask done{};
  failed = Mask{};
  for (int k = 0; k < kMaxSteps; ++k) {
    const Doubles f = p[0] - at.target;
    const Mask near = (base::abs(f) <= kTolerance / 2 * at.target) & ~done & ~failed;
    const Doubles newton = -f / p[1];
    d = near ? d + newton : d;
    for (std::size_t i = 0; i < 3; ++i) p[i] = near ? p[i] + newton * p[i + 1] : p[i];
    done |= near;
    if (all(done | failed)) break;
    const Mask going = ~done & ~failed;
    d = going ? d + inverse_step(p, f) : d;
    if (k == 0) failed |= going & ~proof.within_reach(d);
    if (k == kMaxSteps - 1) failed |= going;
    const std::array<Doubles, 4> next = taylor(at, d);
    for (std::size_t i = 0; i < 4; ++i) p[i] = going & ~failed ? next[i] : p[i];
  }
  proven = done & proof.holds(d, p);
}

// The solves of `count` sums (count <= kLanes) from at[0 ..], x[0 ..],
// target[0 ..], side by side; spare lanes repeat the first sum.
template <int Order>
void polish_group(const Moments* at, const double* x, const double* target, std::size_t count, int exact,
                  Polished* out) {
  std::array<std::size_t, kLanes> from;
  for (std::size_t k = 0; k < kLanes; ++k) from[k] = k < count ? k : 0;
  // Each vector built in registers, lane by lane: written to memory a lane
  // at a time and read back whole, it would wait for the lanes' stores.
  const auto gather = [&](auto value) {
    Doubles v{};  // every lane set below (GCC -O1 cannot tell)
    for (std::size_t k = 0; k < kLanes; ++k) v[k] = value(from[k]);
    return v;
  };
  Lanes<Order> lanes;
  for (int i = 0; i <= Order; ++i) lanes.m[i] = gather([&](std::size_t n) { return at[n].m[i]; });
  lanes.magnitude = gather([&](std::size_t n) { return at[n].magnitude; });
  lanes.reach = gather([&](std::size_t n) { return at[n].reach; });
  lanes.target = gather([&](std::size_t n) { return target[n]; });
  std::array<Doubles, 4> p;
  Doubles d;
  Mask proven, failed;
  polish_lanes(lanes, exact, p, d, proven, failed);
  for (std::size_t k = 0; k < count; ++k) {
    out[k] = {};
    if (failed[k] != 0) continue;
    out[k].next = x[k] + d[k];
    if (proven[k] != 0) out[k].root = Root{out[k].next, 0, {p[0][k], p[1][k], p[2][k], p[3][k]}};
  }
}

template <int Order>
void polish_all(std::span<const Moments> at, std::span<const double> x, std::span<const double> target, int exact,
                std::span<Polished> out) {
  for (std::size_t j = 0; j < at.size(); j += kLanes) {
    polish_group<Order>(&at[j], &x[j], &target[j], std::min(kLanes, at.size() - j), exact, &out[j]);
  }
}

}  // namespace

void polish_each(std::span<const Moments> at, std::span<const double> x, std::span<const double> target, int exact,
                 std::span<Polished> out) {
  if (at.empty()) return;
  if (x.size() != at.size() || target.size() != at.size() || out.size() != at.size()) {
    throw std::logic_error("polish_each: spans of different sizes");
  }
  for (const Moments& m : at) {
    if (m.order != at.front().order) throw std::logic_error("polish_each: moments of different orders");
  }
  switch (at.front().order) {
    case 6: return polish_all<6>(at, x, target, exact, out);
    case kMaxOrder: return polish_all<kMaxOrder>(at, x, target, exact, out);
    default: throw std::logic_error("moments of an order no solve takes");
  }
}

Polished polish(const Moments& at, double x, double target, int exact) {
  Polished out;
  polish_each({&at, 1}, {&x, 1}, {&target, 1}, exact, {&out, 1});
  return out;
}

}  // namespace bond_risk
