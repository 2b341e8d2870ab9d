// Order statistics of measured samples (latencies, flush times).
#pragma once

#include <span>

namespace base {

// The nearest-rank p-th percentile (0 = min, 100 = max) of `samples`; 0 when
// there are none.
double percentile(std::span<const double> samples, double p);

// The middle value, the mean of the two middle ones for an even count; 0
// when there are none.
double median(std::span<const double> samples);

}  // namespace base
