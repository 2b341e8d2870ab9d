// Runs a batch of independent jobs on some threads and waits for all of
// them: the interface a flush dispatches each tier through.
// run() is called by one thread at a time (the master); its jobs may run on
// any of the scheduler's threads. An implementation owns its worker threads;
// `job` is borrowed for the one run().
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace engine {

// What one batch cost the calling (master) thread.
struct BatchStats {
  std::size_t workers = 0;    // threads other than the master that ran at least one job
  double wait_seconds = 0;    // the master's time from dispatch to the last job's end
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Worker threads besides the master (0: the master runs every job itself).
  virtual std::size_t workers() const = 0;
  // Threads that can run jobs at the same moment: the workers and the
  // master, at most the CPUs they may run on (see runnable_threads).
  virtual std::size_t parallelism() const = 0;
  // Runs job(0) .. job(count-1), possibly in parallel, and returns once all
  // have finished; their writes are then visible to the caller. Called by
  // one thread at a time. Jobs must not throw. `another_follows` says the
  // caller will most likely run another batch within microseconds (the next
  // tier of a flush): idle workers may then wait for it without parking.
  BatchStats run(std::size_t count, const std::function<void(std::size_t)>& job, bool another_follows = false) {
    return run_batch(count, job, another_follows);
  }

 protected:
  virtual BatchStats run_batch(std::size_t count, const std::function<void(std::size_t)>& job,
                               bool another_follows) = 0;
};

enum class SchedulerKind { pthreads, tbb };

// How an idle pthreads worker waits for work (the master spins for a batch's
// end for `spin` first under every policy, and to the end when the workers
// leave it a CPU of its own: see worker_pool.h).
enum class WaitPolicy {
  block,   // park on a condition variable at once, unless another batch follows (then as hybrid)
  busy,    // spin with a pause instruction, yielding the CPU now and then
  hybrid,  // spin for `spin`, then park
};

struct SchedulerOptions {
  SchedulerKind kind = SchedulerKind::pthreads;
  std::size_t threads = 0;  // worker threads, 0 .. kMaxThreads
  WaitPolicy wait = WaitPolicy::block;
  std::chrono::microseconds spin{50};  // hybrid, and block between batches that follow each other
  std::vector<int> cpus{};             // pthreads: where workers are pinned (worker_cpu_list); empty = anywhere
  std::optional<int> master_cpu{};     // pthreads: pin the calling thread while the scheduler lives
};

inline constexpr std::size_t kMaxThreads = 4096;

// Throws std::invalid_argument for bad options (too many threads, a CPU this
// process may not use) and std::runtime_error if threads cannot be started;
// the messages say what to change.
std::unique_ptr<Scheduler> make_scheduler(const SchedulerOptions& options);

// The CPUs a pthreads pool's workers are pinned to in turn, worker i to
// list[i % size]: `cpus`, less the master's CPU while the others are enough
// for one worker each. Empty when workers are not pinned (oneTBB, no list).
std::vector<int> worker_cpu_list(const SchedulerOptions& options);

// The distinct CPUs the workers are pinned to, ascending; empty when none is.
std::vector<int> pinned_worker_cpus(const SchedulerOptions& options);

// How many of the workers and their master can run at once: on the CPUs
// the workers are pinned to and the master's own (or one more, the master
// being free), or on every CPU this process may use when the workers are
// not pinned. Asked once, when a scheduler starts.
std::size_t runnable_threads(const SchedulerOptions& options);

std::string to_string(SchedulerKind kind);
std::string to_string(WaitPolicy policy);

}  // namespace engine
