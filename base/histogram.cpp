#include "base/histogram.h"

#include <algorithm>

namespace base {

void Histogram::add(double seconds) {
  const auto bucket = std::lower_bound(kBounds.begin(), kBounds.end(), seconds);  // the first bound >= seconds
  if (bucket != kBounds.end()) ++at_most_[static_cast<std::size_t>(bucket - kBounds.begin())];
  sum_ += seconds;
  ++count_;
}

std::array<std::uint64_t, Histogram::kBounds.size()> Histogram::cumulative() const {
  std::array<std::uint64_t, kBounds.size()> out{};
  std::uint64_t running = 0;
  for (std::size_t i = 0; i < kBounds.size(); ++i) out[i] = running += at_most_[i];
  return out;
}

}  // namespace base
