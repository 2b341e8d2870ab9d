// A latency histogram as Prometheus keeps one: how many observations fell at
// or below each of fixed bounds (seconds), their sum and their count, since
// it was made. Counts only grow, so a scraper can subtract two readings and
// add histograms of several processes. The bounds resolve 0.1 ms to 1 s,
// three a decade (1, 2.5, 5). A plain value, used by one thread.
#pragma once

#include <array>
#include <cstdint>

namespace base {

class Histogram {
 public:
  static constexpr std::array<double, 13> kBounds = {1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2,
                                                     2.5e-2, 5e-2, 0.1, 0.25, 0.5, 1.0};

  void add(double seconds);
  // Observations at or below kBounds[i], for each i; count() is the +Inf bucket's.
  std::array<std::uint64_t, kBounds.size()> cumulative() const;
  double sum() const { return sum_; }
  std::uint64_t count() const { return count_; }

 private:
  std::array<std::uint64_t, kBounds.size()> at_most_{};  // in the bucket ending at each bound (not cumulative)
  double sum_ = 0;
  std::uint64_t count_ = 0;
};

}  // namespace base
