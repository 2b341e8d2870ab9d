// exp(x) inline, for a kernel that takes one per node: a flush of the 440k
// set takes 200,000, one per repo trade, and the C library's exp, a call
// through its special cases, was half of the repo kernel's time.
//
// Model. x = (64 k + j) ln2 / 64 + r with k and 0 <= j < 64 whole and
// |r| <= ln2 / 128 (Cody and Waite's reduction, ln2 / 64 in two parts), so
// exp(x) = 2^k 2^(j/64) exp(r): 2^(j/64) from a table computed at compile
// time, exp(r) by its Taylor series to r^5, 2^k put into an exponent. No
// branch on the way for |x| <= kFastExpLimit, where it is within 1.5 units
// in the last place of the exact value (glibc's std::exp: under 1; see
// tests/fast_exp_test.cpp); beyond it, and for NaN, fast_exp is std::exp.
// fast_expm1 (e^x - 1) takes the same path, keeping the digits of a small
// x that e^x - 1 would cancel: the rounded table entry's rest is added
// back, and exp(r) - 1 is summed to r^7.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "base/lanes.h"

namespace base {

inline constexpr double kFastExpLimit = 700;  // 2^k stays a normal double

namespace fast_exp_detail {

inline constexpr int kTableBits = 6;
inline constexpr int kTableSize = 1 << kTableBits;

// 2^(j/64) for j = 0..63 in long double, by its series.
constexpr long double two_to_fraction(int j) {
  constexpr long double kLn2 = 0.693147180559945309417232121458176568L;
  const long double y = j * kLn2 / kTableSize;
  long double term = 1, sum = 1;
  for (int n = 1; n < 30; ++n) {
    term *= y / n;
    sum += term;
  }
  return sum;
}

// 2^(j/64) rounded once to double, as its bits (for the integer add that
// scales it by 2^k).
constexpr std::array<std::uint64_t, kTableSize> two_to_fractions() {
  std::array<std::uint64_t, kTableSize> table{};
  for (int j = 0; j < kTableSize; ++j) {
    table[static_cast<std::size_t>(j)] = std::bit_cast<std::uint64_t>(static_cast<double>(two_to_fraction(j)));
  }
  return table;
}
inline constexpr std::array<std::uint64_t, kTableSize> kTwoToFractionBits = two_to_fractions();

// What that rounding left out, relative to the entry: 2^(j/64) is entry j
// times 1 + kTwoToFractionRest[j] to within 1e-19 of it (expm1 reads it).
constexpr std::array<double, kTableSize> two_to_fraction_rests() {
  std::array<double, kTableSize> rest{};
  for (int j = 0; j < kTableSize; ++j) {
    const long double exact = two_to_fraction(j), rounded = static_cast<double>(exact);
    rest[static_cast<std::size_t>(j)] = static_cast<double>((exact - rounded) / rounded);
  }
  return rest;
}
inline constexpr std::array<double, kTableSize> kTwoToFractionRest = two_to_fraction_rests();

// The bits of the table entry each lane's index names, and its rest.
inline std::uint64_t table_bits(std::uint64_t index) { return kTwoToFractionBits[index]; }
inline Uint64s table_bits(Uint64s index) {
  Uint64s bits{};  // every lane set below (GCC -O1 cannot tell)
  for (std::size_t k = 0; k < kLanes; ++k) bits[k] = kTwoToFractionBits[index[k]];
  return bits;
}
inline double table_rest(std::uint64_t index) { return kTwoToFractionRest[index]; }
inline Doubles table_rest(Uint64s index) {
  Doubles rest;
  for (std::size_t k = 0; k < kLanes; ++k) rest[k] = kTwoToFractionRest[index[k]];
  return rest;
}

// x reduced: 2^k 2^(j/64) (t, rounded to double; `index` is j) and r.
template <class D>
struct Reduced {
  using Bits = std::conditional_t<std::is_same_v<D, double>, std::uint64_t, Uint64s>;
  D t, r;
  Bits index;
};

template <class D>
inline Reduced<D> reduce(D x) {
  using Bits = typename Reduced<D>::Bits;
  constexpr double kScale = kTableSize / 0.693147180559945309417232121458176568;
  constexpr double kRound = 0x1.8p52;  // x * kScale + kRound holds 64 k + j, rounded to nearest, in its low bits
  // ln2 / 64 in two parts: the first has 21 low zero bits, so that n * kStepHi is exact.
  constexpr double kStepHi = 0x1.62e42fee00000p-1 / kTableSize, kStepLo = 0x1.a39ef35793c76p-33 / kTableSize;
  const D shifted = x * kScale + kRound;
  const D n = shifted - kRound;
  const D r = (x - n * kStepHi) - n * kStepLo;
  // The low bits of `shifted` are 2^51 + 64 k + j: j indexes the table,
  // and k, shifted into the exponent field and added, scales the entry by 2^k.
  const Bits bits = std::bit_cast<Bits>(shifted);
  const Bits index = bits & (kTableSize - 1);
  return {std::bit_cast<D>(table_bits(index) + ((bits >> kTableBits) << 52)), r, index};
}

// The branch-free path alone, for one double or for each lane of Doubles
// (the same operations, so the same bits per lane): right for |x| <=
// kFastExpLimit, meaningless (but defined) for any other x.
template <class D>
inline D exp_within_limit(D x) {
  const Reduced<D> at = reduce(x);
  const D r = at.r, r2 = r * r;
  const D q = r + r2 * ((1.0 / 2 + r * (1.0 / 6)) + r2 * (1.0 / 24 + r * (1.0 / 120)));  // exp(r) - 1
  return at.t + at.t * q;  // t exp(r), rounded once at its full size
}

// e^x - 1 on the same path: (t - 1) + t (q + rest), q = exp(r) - 1 to r^7
// (within 1e-22 of it) and t's rest added back, so that where t - 1 is
// exact (t in [1/2, 2]) and x small nothing cancels but what the
// reduction put there: t - 1 is at least twice |t q| or 0.
template <class D>
inline D expm1_within_limit(D x) {
  const Reduced<D> at = reduce(x);
  const D r = at.r, r2 = r * r;
  const D q = r + r2 * ((1.0 / 2 + r * (1.0 / 6)) +
                        r2 * ((1.0 / 24 + r * (1.0 / 120)) + r2 * (1.0 / 720 + r * (1.0 / 5040))));
  return (at.t - 1) + at.t * (q + table_rest(at.index));
}

}  // namespace fast_exp_detail

inline double fast_exp(double x) {
  return std::abs(x) <= kFastExpLimit ? fast_exp_detail::exp_within_limit(x) : std::exp(x);  // NaN: std::exp
}

// fast_exp of each lane, the same bits as fast_exp of each.
inline Doubles fast_exp(Doubles x) {
  Doubles e = fast_exp_detail::exp_within_limit(x);
  for (std::size_t k = 0; k < kLanes; ++k) {
    if (!(std::abs(x[k]) <= kFastExpLimit)) e[k] = std::exp(x[k]);
  }
  return e;
}

// e^x - 1, within 2.5 units in the last place of the exact value
// (tests/fast_exp_test.cpp) and without cancellation near 0; beyond
// kFastExpLimit, and for NaN, std::expm1.
inline double fast_expm1(double x) {
  return std::abs(x) <= kFastExpLimit ? fast_exp_detail::expm1_within_limit(x) : std::expm1(x);
}

// fast_expm1 of each lane, the same bits as fast_expm1 of each.
inline Doubles fast_expm1(Doubles x) {
  Doubles e = fast_exp_detail::expm1_within_limit(x);
  for (std::size_t k = 0; k < kLanes; ++k) {
    if (!(std::abs(x[k]) <= kFastExpLimit)) e[k] = std::expm1(x[k]);
  }
  return e;
}

}  // namespace base
