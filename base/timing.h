// Clocks and process counters for measuring flushes.
#pragma once

#include <chrono>

namespace base {

// Seconds elapsed since construction (or the last restart()), on a monotonic clock.
// A plain value, used by one thread.
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  void restart() { start_ = std::chrono::steady_clock::now(); }
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// The calling process's context switches, page faults, peak resident set and
// CPU time, from getrusage.
struct ProcessCounters {
  long voluntary_switches = 0;
  long involuntary_switches = 0;
  long minor_faults = 0;  // pages first touched: a cost of fresh memory, not of the scheduler
  long peak_rss_kb = 0;
  double cpu_seconds = 0;  // user and system time of all its threads

  static ProcessCounters now();
  ProcessCounters operator-(const ProcessCounters& earlier) const;
};

}  // namespace base
