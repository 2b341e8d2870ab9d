#include "base/percentile.h"

#include <algorithm>

namespace base {

std::vector<double> percentiles(std::span<const double> samples, std::span<const double> points) {
  std::vector<double> out(points.size(), 0.0);
  if (samples.empty()) return out;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto rank = static_cast<std::size_t>(std::max(0.0, points[i]) / 100 * static_cast<double>(sorted.size()));
    out[i] = sorted[std::min(sorted.size() - 1, rank)];
  }
  return out;
}

double percentile(std::span<const double> samples, double p) { return percentiles(samples, std::span(&p, 1))[0]; }

double median(std::span<const double> samples) {
  if (samples.empty()) return 0;
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace base
