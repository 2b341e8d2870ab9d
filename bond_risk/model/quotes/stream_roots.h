// Roots of a regular coupon stream in closed form: a trad4 bond's quote
// yield without a walk over its flows (model/quotes/quote_analytics.h).
//
// Model. The stream of exp_sum.h's CouponStream, n coupons c one period
// apart from w periods away and 100 with the last, is in u = ln v
//   s(u) = c e^(wu) H(u) + 100 e^((n-1+w)u),  H(u) = sum_(j<n) e^(ju) = expm1(nu) / expm1(u),
// (plus a first flow apart, one exponential more, for a convention bond's),
// so s and its first two derivatives cost three exponentials whatever n
// is (e^(nu) - 1 from e^(nu), or by expm1 where |nu| < 1/100; their limits
// where u = 0). Halley's steps on s from a start near the root (the
// textbook yield) reach it in two or three evaluations; the first at which
// s is within kTolerance / 2 of the target is the root. The closed form's
// value is within 3e-14 of the sum's (expm1 within 2.5 units in the last
// place and exp within 1.5, base/fast_exp.h; e^(nu) - 1 within 1.2e-14; a
// few roundings), so the root's price is within kTolerance of its target,
// as a walk's proven root is (exp_sum.h). A solve that does not get there
// within six evaluations (a start far from its root: a yield of thousands
// of percent) returns NaN, and its caller walks the stream instead.
//
// Pure functions on plain values: callable from any thread.
#pragma once

#include <span>

namespace bond_risk {

// A stream CouponStream(n, w, c) equal to `target` (> 0), from u = `start`;
// with `redemption` in place of 100, and a first flow apart, `first` at
// e^(first_b u) (a convention bond's first coupon: short, or gone ex).
struct StreamSolve {
  double n, w, c, target, start;
  double first = 0, first_b = 0, redemption = 100;
};

// Each solve's root u, or NaN where none was reached. The solves run a
// vector of lanes at a time (base/lanes.h), sharing no arithmetic: each
// root is the same bits as its solve alone gives.
void stream_roots(std::span<const StreamSolve> solves, std::span<double> roots);

}  // namespace bond_risk
