#include "engine/scheduler.h"

#include <algorithm>
#include <iterator>
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

std::vector<int> worker_cpu_list(const SchedulerOptions& options) {
  if (options.kind != SchedulerKind::pthreads) return {};
  if (!options.master_cpu) return options.cpus;
  std::vector<int> others;
  std::ranges::copy_if(options.cpus, std::back_inserter(others), [&](int cpu) { return cpu != *options.master_cpu; });
  return others.size() >= options.threads ? others : options.cpus;
}

std::vector<int> pinned_worker_cpus(const SchedulerOptions& options) {
  const std::vector<int> list = worker_cpu_list(options);
  std::vector<int> pinned(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(std::min(options.threads, list.size())));
  std::ranges::sort(pinned);
  pinned.erase(std::unique(pinned.begin(), pinned.end()), pinned.end());
  return pinned;
}

std::size_t runnable_threads(const SchedulerOptions& options) {
  const std::size_t allowed = allowed_cpus().size();
  const std::vector<int> pinned = pinned_worker_cpus(options);
  std::size_t usable = allowed;
  if (!pinned.empty()) {
    const bool master_among = options.master_cpu && std::ranges::binary_search(pinned, *options.master_cpu);
    usable = std::min(allowed, pinned.size() + (master_among ? 0 : 1));
  }
  return std::max<std::size_t>(1, std::min(options.threads + 1, usable));
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
