#include "bond_risk/live/job_runner.h"

namespace bond_risk {

JobRunner::JobRunner(std::size_t capacity) : capacity_(capacity), thread_([this](std::stop_token stop) { run(stop); }) {}

JobRunner::~JobRunner() {
  thread_.request_stop();  // wakes the wait below, and tells the running job
}

bool JobRunner::submit(Job job) {
  {
    const std::lock_guard lock(mutex_);
    if (waiting_.size() >= capacity_) return false;
    waiting_.push_back(std::move(job));
  }
  wake_.notify_one();
  return true;
}

void JobRunner::run(std::stop_token stop) {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      if (!wake_.wait(lock, stop, [&] { return !waiting_.empty(); })) return;  // stopping
      job = std::move(waiting_.front());
      waiting_.pop_front();
    }
    job(stop);
  }
}

}  // namespace bond_risk
