#include "base/process_memory.h"

#include <fstream>
#include <string>

namespace base {

ProcessMemory process_memory() {
  ProcessMemory m;
  std::ifstream status("/proc/self/status");
  for (std::string key; status >> key;) {
    if (key == "VmPeak:") status >> m.vm_peak_kb;
    if (key == "VmRSS:") status >> m.vm_rss_kb;
    status.ignore(1 << 16, '\n');
  }
  return m;
}

}  // namespace base
