// A Scheduler on oneTBB: each batch is a parallel_for inside a task_arena of
// NUM_THREADS threads, the calling (master) thread being one of them.
// Owns its task_arena and a global_control, which sets oneTBB's process-wide
// parallelism limit while it lives; run() by one thread at a time (its epoch
// and slot marks are unguarded).
#pragma once

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>

#include <atomic>
#include <memory>
#include <vector>

#include "engine/scheduler.h"

namespace engine {

class TbbScheduler final : public Scheduler {
 public:
  explicit TbbScheduler(std::size_t threads);

  std::size_t workers() const override { return threads_; }
  std::size_t parallelism() const override { return runnable_; }

 private:
  // oneTBB's workers spin before they sleep anyway: another_follows changes nothing.
  BatchStats run_batch(std::size_t count, const std::function<void(std::size_t)>& job, bool another_follows) override;

  std::size_t threads_;
  std::size_t runnable_;
  // TBB caps its thread pool at the core count unless told otherwise.
  tbb::global_control parallelism_;
  tbb::task_arena arena_;
  std::uint64_t epoch_ = 0;
  std::unique_ptr<std::atomic<std::uint64_t>[]> seen_;  // per arena slot: the last batch it ran a job of
};

}  // namespace engine
