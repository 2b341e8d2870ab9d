#include "bond_risk/lab/bandwidth.h"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

namespace bond_risk {

double measure_bandwidth(std::size_t threads, std::size_t megabytes_per_array, int repeats) {
  threads = std::max<std::size_t>(threads, 1);
  const std::size_t n = megabytes_per_array * (1 << 20) / sizeof(double);
  const auto a = std::make_unique_for_overwrite<double[]>(n), b = std::make_unique_for_overwrite<double[]>(n),
             c = std::make_unique_for_overwrite<double[]>(n);
  using Clock = std::chrono::steady_clock;
  std::vector<Clock::time_point> starts(static_cast<std::size_t>(repeats)), ends(starts.size());
  std::barrier sync(static_cast<std::ptrdiff_t>(threads));
  {
    std::vector<std::jthread> pool;
    for (std::size_t t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        const std::size_t begin = n * t / threads, end = n * (t + 1) / threads;
        std::fill(a.get() + begin, a.get() + end, 0.0);
        std::fill(b.get() + begin, b.get() + end, 1.0);
        std::fill(c.get() + begin, c.get() + end, 2.0);
        for (std::size_t r = 0; r < starts.size(); ++r) {
          sync.arrive_and_wait();
          if (t == 0) starts[r] = Clock::now();
          for (std::size_t i = begin; i < end; ++i) a[i] = b[i] + 3.0 * c[i];
          sync.arrive_and_wait();
          if (t == 0) ends[r] = Clock::now();
        }
      });
    }
  }
  const volatile double kept = a[n / 2];  // the stores are observed: no compiler may drop the loop
  static_cast<void>(kept);
  double best = 0;
  for (std::size_t r = 0; r < starts.size(); ++r) {
    best = std::max(best, 32.0 * static_cast<double>(n) / std::chrono::duration<double>(ends[r] - starts[r]).count());
  }
  return best;
}

}  // namespace bond_risk
