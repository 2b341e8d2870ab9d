#include "engine/worker_pool.h"

#include <sched.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <system_error>

#include "engine/affinity.h"
#include "base/timing.h"

namespace engine {

namespace {

// Workers only run calculations: a small stack keeps 4096 of them cheap.
constexpr std::size_t kStackBytes = 1 << 20;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  sched_yield();
#endif
}

// Every this many pauses a busy spinner yields, so that an oversubscribed
// machine still runs the threads that have work.
constexpr unsigned kPausesPerYield = 64;

// The most jobs a worker claims at once (run_jobs).
constexpr std::size_t kMaxRun = 32;

}  // namespace

WorkerPool::WorkerPool(const SchedulerOptions& options)
    : policy_(options.wait),
      parallelism_(runnable_threads(options)),
      spin_(options.spin),
      master_cpu_spare_(options.threads + 1 <= allowed_cpus().size()),
      master_pin_(options.master_cpu) {
  threads_.reserve(options.threads);
  const std::vector<int> cpus = worker_cpu_list(options);
  work_available_ = std::vector<std::condition_variable>(std::max<std::size_t>(1, std::min(cpus.size(), options.threads)));
  try {
    for (std::size_t i = 0; i < options.threads; ++i) {
      std::optional<int> cpu;
      if (!cpus.empty()) cpu = cpus[i % cpus.size()];
      const std::size_t slot = i % work_available_.size();
      threads_.emplace_back([this, slot] { work(slot); }, kStackBytes, cpu);
    }
  } catch (const std::system_error& e) {
    const std::size_t started = threads_.size();
    stop();
    throw std::runtime_error("could not start worker thread " + std::to_string(started + 1) + " of " +
                             std::to_string(options.threads) + " (" + e.what() +
                             "); lower NUM_THREADS, or raise the limits on processes (ulimit -u) and on memory for the "
                             "workers' 1 MiB stacks (ulimit -v)");
  }
  std::unique_lock lock(mutex_);
  batch_done_.wait(lock, [&] { return started_ == threads_.size(); });
}

WorkerPool::~WorkerPool() { stop(); }

void WorkerPool::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  for (std::condition_variable& slot : work_available_) slot.notify_all();
  threads_.clear();  // joins
}

BatchStats WorkerPool::run_batch(std::size_t count, const std::function<void(std::size_t)>& job, bool another_follows) {
  if (count == 0) return {};
  if (threads_.empty()) {
    for (std::size_t i = 0; i < count; ++i) job(i);
    return {};
  }
  const base::Stopwatch watch;
  std::size_t first_slot = 0;
  {
    std::lock_guard lock(mutex_);
    job_ = &job;
    count_ = count;
    ++epoch_;
    participants_.store(0, std::memory_order_relaxed);
    followed_.store(another_follows, std::memory_order_relaxed);
    remaining_.store(count, std::memory_order_relaxed);
    unclaimed_.store(count, std::memory_order_release);
    first_slot = next_slot_;
    next_slot_ = (next_slot_ + 1) % work_available_.size();
  }
  if (policy_ != WaitPolicy::busy) {
    // No more than can run at once, one a slot in turn: each takes job after job, and more would only
    // queue for the CPUs.
    const std::size_t wake = std::min(count, parallelism_);
    if (wake >= threads_.size()) {
      for (std::condition_variable& slot : work_available_) slot.notify_all();
    } else {
      for (std::size_t i = 0; i < wake; ++i) work_available_[(first_slot + i) % work_available_.size()].notify_one();
    }
  }
  wait_for_batch_end();
  std::lock_guard lock(mutex_);
  job_ = nullptr;
  return {participants_.load(std::memory_order_relaxed), watch.seconds()};
}

void WorkerPool::wait_for_batch_end() {
  // The master spins for a while before it parks, whatever the policy: most batches of a flush end
  // within microseconds, and a parked master's wake-up (the workers spinning for its next batch on every
  // CPU) costs more than they take. With a CPU to spare it spins until the end: that CPU would idle anyway.
  const auto deadline = std::chrono::steady_clock::now() + spin_;
  for (unsigned spins = 1; remaining_.load(std::memory_order_acquire) != 0; ++spins) {
    cpu_relax();
    if (spins % kPausesPerYield == 0) {
      if (!master_cpu_spare_ && policy_ != WaitPolicy::busy && std::chrono::steady_clock::now() >= deadline) break;
      sched_yield();
    }
  }
  std::unique_lock lock(mutex_);
  batch_done_.wait(lock, [this] { return remaining_.load(std::memory_order_acquire) == 0; });
}

bool WorkerPool::spin_for_work() const {
  const auto deadline = std::chrono::steady_clock::now() + spin_;
  for (unsigned spins = 1;; ++spins) {
    if (stopping_.load(std::memory_order_relaxed) || unclaimed_.load(std::memory_order_acquire) != 0) return true;
    cpu_relax();
    if (spins % kPausesPerYield == 0) {
      if (policy_ != WaitPolicy::busy && std::chrono::steady_clock::now() >= deadline) return false;
      sched_yield();
    }
  }
}

void WorkerPool::work(std::size_t slot) {
  std::uint64_t joined = 0;  // the last batch this worker took a job of
  {
    std::lock_guard lock(mutex_);
    ++started_;
  }
  batch_done_.notify_one();
  for (;;) {
    if (policy_ != WaitPolicy::block || followed_.load(std::memory_order_relaxed)) spin_for_work();
    if (policy_ != WaitPolicy::busy) {
      std::unique_lock lock(mutex_);
      work_available_[slot].wait(lock, [this] { return stopping_ || unclaimed_.load(std::memory_order_relaxed) != 0; });
    }
    if (stopping_.load(std::memory_order_relaxed)) return;
    run_jobs(joined);
  }
}

void WorkerPool::run_jobs(std::uint64_t& joined) {
  std::size_t unclaimed = unclaimed_.load(std::memory_order_acquire);
  while (unclaimed != 0) {
    // Jobs in runs that shrink as the batch drains (guided self-scheduling): a worker walks a stretch of
    // neighbouring nodes, the last runs are single jobs so that the threads end together, and no run is
    // longer than kMaxRun, so that a worker the host preempts holds back little of the batch.
    const std::size_t take = std::clamp<std::size_t>(unclaimed / (2 * parallelism_), 1, kMaxRun);
    if (!unclaimed_.compare_exchange_weak(unclaimed, unclaimed - take, std::memory_order_acquire,
                                          std::memory_order_acquire)) {
      continue;
    }
    // Jobs of the batch published last: the master publishes the next only once every job of this one
    // has finished, and the claim's acquire makes the batch's job_, count_ and epoch_ visible.
    if (joined != epoch_) {
      joined = epoch_;
      participants_.fetch_add(1, std::memory_order_relaxed);
    }
    const std::size_t first = count_ - unclaimed;
    for (std::size_t i = first; i < first + take; ++i) (*job_)(i);
    if (remaining_.fetch_sub(take, std::memory_order_acq_rel) == take) {
      // Taking the lock orders this notify after the master's check of remaining_.
      { std::lock_guard done(mutex_); }
      batch_done_.notify_one();
    }
    unclaimed = unclaimed_.load(std::memory_order_acquire);
  }
}

}  // namespace engine
