#include "engine/worker_pool.h"

#include <stdexcept>
#include <string>
#include <system_error>

namespace engine {

WorkerPool::WorkerPool(std::size_t num_workers) {
  threads_.reserve(num_workers);
  try {
    for (std::size_t i = 0; i < num_workers; ++i) threads_.emplace_back([this] { work(); });
  } catch (const std::system_error& e) {
    const std::size_t started = threads_.size();
    stop_and_join();
    throw std::runtime_error("could not start worker thread " + std::to_string(started + 1) + " of " +
                             std::to_string(num_workers) + " (" + e.what() +
                             "); lower NUM_THREADS or raise the process limit (ulimit -u)");
  }
}

WorkerPool::~WorkerPool() { stop_and_join(); }

void WorkerPool::stop_and_join() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_available_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void WorkerPool::run(std::size_t count, const std::function<void(std::size_t)>& job) {
  if (count == 0) return;
  if (threads_.empty()) {
    for (std::size_t i = 0; i < count; ++i) job(i);
    return;
  }
  std::unique_lock lock(mutex_);
  job_ = &job;
  count_ = count;
  next_ = 0;
  remaining_ = count;
  lock.unlock();
  // Wake no more workers than there are jobs: a small batch leaves the rest asleep.
  if (count >= threads_.size()) {
    work_available_.notify_all();
  } else {
    for (std::size_t i = 0; i < count; ++i) work_available_.notify_one();
  }
  lock.lock();
  batch_done_.wait(lock, [this] { return remaining_ == 0; });
  job_ = nullptr;
  count_ = next_ = 0;
}

void WorkerPool::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    work_available_.wait(lock, [this] { return stopping_ || next_ < count_; });
    if (stopping_) return;
    const std::size_t i = next_++;
    const auto& job = *job_;
    lock.unlock();
    job(i);
    lock.lock();
    if (--remaining_ == 0) batch_done_.notify_one();
  }
}

}  // namespace engine
