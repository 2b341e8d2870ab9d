// Order statistics of measured samples (latencies, flush times).
#pragma once

#include <span>
#include <vector>

namespace base {

// The nearest-rank p-th percentile (0 = min, 100 = max) of `samples`; 0 when
// there are none.
double percentile(std::span<const double> samples, double p);

// The same for each of `points`, selecting each rank rather than sorting
// (time linear in the samples for each point).
std::vector<double> percentiles(std::span<const double> samples, std::span<const double> points);

// The middle value, the mean of the two middle ones for an even count; 0
// when there are none.
double median(std::span<const double> samples);

}  // namespace base
