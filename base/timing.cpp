#include "base/timing.h"

#include <sys/resource.h>

namespace base {

ProcessCounters ProcessCounters::now() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return {usage.ru_nvcsw, usage.ru_nivcsw, usage.ru_minflt, usage.ru_maxrss,
          seconds(usage.ru_utime) + seconds(usage.ru_stime)};
}

ProcessCounters ProcessCounters::operator-(const ProcessCounters& earlier) const {
  return {voluntary_switches - earlier.voluntary_switches,
          involuntary_switches - earlier.involuntary_switches,
          minor_faults - earlier.minor_faults, peak_rss_kb, cpu_seconds - earlier.cpu_seconds};
}

}  // namespace base
