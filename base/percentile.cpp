#include "base/percentile.h"

#include <algorithm>

namespace base {

std::vector<double> percentiles(std::span<const double> samples, std::span<const double> points) {
  std::vector<double> out(points.size(), 0.0);
  if (samples.empty()) return out;
  // Each rank selected in turn (nth_element), the ranks in increasing
  // order so that each selection works on what lies above the last one,
  // where a sort of a 65,536-sample window held the engine's event loop for
  // milliseconds.
  std::vector<double> v(samples.begin(), samples.end());
  std::vector<std::pair<std::size_t, std::size_t>> ranks;  // (rank, index into points)
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto rank = static_cast<std::size_t>(std::max(0.0, points[i]) / 100 * static_cast<double>(v.size()));
    ranks.emplace_back(std::min(v.size() - 1, rank), i);
  }
  std::sort(ranks.begin(), ranks.end());
  auto from = v.begin();
  for (const auto& [rank, i] : ranks) {
    const auto nth = v.begin() + static_cast<std::ptrdiff_t>(rank);
    std::nth_element(from, nth, v.end());  // nth >= from: the ranks rise
    from = nth;
    out[i] = *nth;
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
