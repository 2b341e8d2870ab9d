// A deterministic random number generator for synthetic data.
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace bond_risk {

// SplitMix64: a small generator whose sequence is the same on every platform
// and standard library, unlike std:: distributions.
// A plain value, used by one thread (each generator keeps its own).
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double uniform(double lo, double hi) { return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1.0p-53; }
  std::int64_t between(std::int64_t lo, std::int64_t hi) {  // inclusive; hi < lo is a caller's bug
    if (hi < lo) throw std::logic_error("Random::between: empty range");
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  // A standard normal draw (Box-Muller; uses two uniforms).
  double normal() {
    const double u = (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53;  // in (0, 1)
    const double v = static_cast<double>(next() >> 11) * 0x1.0p-53;
    return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
  }
  // `x` rounded to a multiple of `step`.
  static double round_to(double x, double step) { return std::round(x / step) * step; }

 private:
  std::uint64_t state_;
};

}  // namespace bond_risk
