// The calling process's virtual and resident memory, as /proc/self/status
// reports them (VmPeak, VmRSS).
#pragma once

namespace base {

struct ProcessMemory {
  long vm_peak_kb = 0;  // the largest virtual size so far
  long vm_rss_kb = 0;   // resident now
};

// Zeros where /proc is not mounted.
ProcessMemory process_memory();

}  // namespace base
