#include "base/percentile.h"

#include <algorithm>
#include <vector>

namespace base {

double percentile(std::span<const double> samples, double p) {
  if (samples.empty()) return 0;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  const auto rank = static_cast<std::size_t>(std::max(0.0, p) / 100 * static_cast<double>(sorted.size()));
  return sorted[std::min(sorted.size() - 1, rank)];
}

double median(std::span<const double> samples) {
  if (samples.empty()) return 0;
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace base
