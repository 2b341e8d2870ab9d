#include "engine/timing.h"

#include <sys/resource.h>

namespace engine {

ProcessCounters ProcessCounters::now() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return {usage.ru_nvcsw, usage.ru_nivcsw, usage.ru_minflt, usage.ru_maxrss};
}

ProcessCounters ProcessCounters::operator-(const ProcessCounters& earlier) const {
  return {voluntary_switches - earlier.voluntary_switches,
          involuntary_switches - earlier.involuntary_switches,
          minor_faults - earlier.minor_faults, peak_rss_kb};
}

}  // namespace engine
