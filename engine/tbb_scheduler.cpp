#include "engine/tbb_scheduler.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>

#include "base/timing.h"

namespace engine {

TbbScheduler::TbbScheduler(std::size_t threads)
    : threads_(threads),
      runnable_(runnable_threads({.kind = SchedulerKind::tbb, .threads = threads})),
      parallelism_(tbb::global_control::max_allowed_parallelism, std::max<std::size_t>(threads, 1)),
      arena_(static_cast<int>(std::max<std::size_t>(threads, 1))),
      seen_(std::make_unique<std::atomic<std::uint64_t>[]>(std::max<std::size_t>(threads, 1))) {}

BatchStats TbbScheduler::run_batch(std::size_t count, const std::function<void(std::size_t)>& job, bool) {
  if (count == 0) return {};
  if (threads_ == 0) {
    for (std::size_t i = 0; i < count; ++i) job(i);
    return {};
  }
  const base::Stopwatch watch;
  const std::uint64_t epoch = ++epoch_;
  std::atomic<std::size_t> participants{0};
  arena_.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, count, 1), [&](const tbb::blocked_range<std::size_t>& r) {
      const int slot = tbb::this_task_arena::current_thread_index();
      if (slot >= 0 && static_cast<std::size_t>(slot) < threads_ &&
          seen_[slot].exchange(epoch, std::memory_order_relaxed) != epoch) {
        participants.fetch_add(1, std::memory_order_relaxed);
      }
      for (std::size_t i = r.begin(); i != r.end(); ++i) job(i);
    });
  });
  return {participants.load(), watch.seconds()};
}

}  // namespace engine
