#include "engine/tbb_scheduler.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>

#include "base/timing.h"

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

namespace engine {

namespace {

// libtbb is not instrumented: ThreadSanitizer cannot see that a batch's jobs
// start after run() hands them over and end before it returns, and took
// every write of one job read by a later one for a race (each array
// element its own report, and each report slower than the last). Told here,
// it checks the jobs of a batch against each other and against the master
// as it checks the pthreads pool's.
#if defined(__SANITIZE_THREAD__)
void handed_over(void* sync) { __tsan_release(sync); }
void taken_over(void* sync) { __tsan_acquire(sync); }
#else
void handed_over(void*) {}
void taken_over(void*) {}
#endif

}  // namespace

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
  char start = 0, end = 0;  // the hand-overs' addresses for ThreadSanitizer
  handed_over(&start);
  arena_.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, count, 1), [&](const tbb::blocked_range<std::size_t>& r) {
      taken_over(&start);
      const int slot = tbb::this_task_arena::current_thread_index();
      if (slot >= 0 && static_cast<std::size_t>(slot) < threads_ &&
          seen_[slot].exchange(epoch, std::memory_order_relaxed) != epoch) {
        participants.fetch_add(1, std::memory_order_relaxed);
      }
      for (std::size_t i = r.begin(); i != r.end(); ++i) job(i);
      handed_over(&end);
    });
  });
  taken_over(&end);
  return {participants.load(), watch.seconds()};
}

}  // namespace engine
