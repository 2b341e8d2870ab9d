// A master/worker thread pool.
//
// The thread that calls run() is the master: it publishes a batch of jobs
// (numbered 0..count-1), the workers take them one at a time from a shared
// queue, and run() returns once every job has finished (a barrier). Idle
// workers sleep on a condition variable; nothing polls.
//
// With zero workers the master runs the jobs itself, in order. run() must
// only be called by one thread at a time. Jobs must not throw.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace engine {

class WorkerPool {
 public:
  // Starts `num_workers` threads. Throws std::runtime_error naming the
  // thread that could not be created (after joining those that were).
  explicit WorkerPool(std::size_t num_workers);
  ~WorkerPool();

  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  std::size_t workers() const { return threads_.size(); }

  // Runs job(0) .. job(count-1) and returns when all have finished.
  void run(std::size_t count, const std::function<void(std::size_t)>& job);

 private:
  void work();
  void stop_and_join();

  std::mutex mutex_;
  std::condition_variable work_available_;
  std::condition_variable batch_done_;
  const std::function<void(std::size_t)>* job_ = nullptr;
  std::size_t count_ = 0;      // jobs in the current batch
  std::size_t next_ = 0;       // next job to hand out
  std::size_t remaining_ = 0;  // jobs not yet finished
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace engine
