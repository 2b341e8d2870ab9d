#include "engine/scheduler.h"

#include <algorithm>
#include <stdexcept>

#include "engine/affinity.h"
#include "engine/tbb_scheduler.h"
#include "engine/worker_pool.h"

namespace engine {

std::unique_ptr<Scheduler> make_scheduler(const SchedulerOptions& options) {
  if (options.threads > kMaxThreads) {
    throw std::invalid_argument("NUM_THREADS " + std::to_string(options.threads) + " is above the limit of " +
                                std::to_string(kMaxThreads));
  }
  check_cpus_allowed(options.cpus, "CPU_AFFINITY");
  if (options.master_cpu) check_cpus_allowed({*options.master_cpu}, "MASTER_CPU");
  if (options.kind == SchedulerKind::tbb) return std::make_unique<TbbScheduler>(options.threads);
  return std::make_unique<WorkerPool>(options);
}

std::size_t runnable_threads(std::size_t workers, const std::vector<int>& cpus) {
  // Pinned workers share their CPUs; the master may run on one more.
  const std::size_t usable = cpus.empty() ? allowed_cpus().size() : cpus.size() + 1;
  return std::max<std::size_t>(1, std::min(workers + 1, usable));
}

std::string to_string(SchedulerKind kind) { return kind == SchedulerKind::tbb ? "tbb" : "pthreads"; }

std::string to_string(WaitPolicy policy) {
  switch (policy) {
    case WaitPolicy::block: return "block";
    case WaitPolicy::busy: return "busy";
    case WaitPolicy::hybrid: return "hybrid";
  }
  return "?";
}

}  // namespace engine
