// The pthreads master/worker pool.
//
// The master (the thread calling run()) publishes a batch of jobs under a
// mutex; workers claim them with an atomic counter, in runs of neighbouring
// jobs that shrink as the batch drains (guided self-scheduling); run() returns
// when the last job has finished (a barrier). Only as many workers are woken
// as there are jobs and CPUs to run them (parallelism()), one per CPU the
// workers are pinned to in turn, so that with more workers than CPUs the
// woken ones do not queue on one CPU while another idles. Each takes job
// after job until none is left. How idle workers wait is the WaitPolicy: parked on a
// condition variable, spinning, or spinning for a while and then parked;
// under block, a batch another follows (a flush's next tier) is waited for
// as under hybrid, so that a flush wakes its workers once, not per tier.
// The master spins for a batch's end for up to `spin` before it parks, under
// every policy (until the end under busy, or when the workers leave one of
// the process's CPUs free): a parked master's wake-up, with the workers
// spinning for its next batch on every CPU, costs more than most of a
// flush's batches take. Nothing ever sleeps for a fixed time.
// Owns its worker threads (stopped and joined on destruction); `job` is
// borrowed for one run(). The master constructs it, calls run() and destroys
// it: master_cpu pins that thread while the pool lives.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "engine/scheduler.h"
#include "engine/thread.h"

namespace engine {

class WorkerPool final : public Scheduler {
 public:
  // Starts options.threads workers and returns once every one of them is
  // waiting for work, so that no thread start-up falls into a batch. Throws
  // std::runtime_error naming the thread that could not be created (after
  // stopping those that were).
  explicit WorkerPool(const SchedulerOptions& options);
  ~WorkerPool() override;

  std::size_t workers() const override { return threads_.size(); }
  std::size_t parallelism() const override { return parallelism_; }

 private:
  BatchStats run_batch(std::size_t count, const std::function<void(std::size_t)>& job, bool another_follows) override;
  void work(std::size_t slot);
  // Claims and runs the current batch's jobs, without the lock, until none is unclaimed.
  void run_jobs(std::uint64_t& joined);
  // Spins until a job is unclaimed or the pool stops; busy: indefinitely,
  // otherwise at most spin_. True if there may be work.
  bool spin_for_work() const;
  void wait_for_batch_end();
  void stop();

  const WaitPolicy policy_;
  const std::size_t parallelism_;
  const std::chrono::microseconds spin_;
  const bool master_cpu_spare_;  // the workers leave one of this process's CPUs free for the master

  std::mutex mutex_;
  // Idle workers park here by the CPU they are pinned to: worker i on slot i % size (one slot when unpinned).
  std::vector<std::condition_variable> work_available_;
  std::size_t next_slot_ = 0;  // the slot the next wake-up goes to, guarded by mutex_
  std::condition_variable batch_done_;  // also: a worker has started
  std::size_t started_ = 0;              // workers that have reached their loop
  // The batch: written by the master under mutex_ before it stores unclaimed_ (release), and read by a
  // worker without the lock once its claim (acquire) has succeeded; the atomics are also read while spinning.
  const std::function<void(std::size_t)>* job_ = nullptr;
  std::size_t count_ = 0;
  std::atomic<std::size_t> unclaimed_{0};  // jobs not yet taken; the next job is count_ - unclaimed_
  std::atomic<std::size_t> remaining_{0};  // jobs not yet finished
  std::uint64_t epoch_ = 0;                // batches published so far
  std::atomic<std::size_t> participants_{0};  // workers that took a job of the current batch
  std::atomic<bool> followed_{false};      // the last batch published said another follows
  std::atomic<bool> stopping_{false};

  ScopedPin master_pin_;
  std::vector<Thread> threads_;
};

}  // namespace engine
