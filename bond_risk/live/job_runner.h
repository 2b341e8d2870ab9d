// Runs the engine's long reads (a scenario, VaR over a set) away from the
// master thread, so that one client's request never makes the others wait
// behind it. Jobs run one at a time on the runner's own thread, in the
// order submitted; at most `capacity` wait, so a flood of requests costs a
// bounded queue, and a full one is refused at once.
//
// Threading: submit() and the destructor are called from one thread (the
// master); a job runs on the runner's thread and must reach the master's
// state only through what it captured. Ownership: the runner owns its
// jobs until they have run.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <stop_token>
#include <thread>

namespace bond_risk {

class JobRunner {
 public:
  // A job: `stop` is requested when the runner is destroyed, and a long job
  // should give up soon after.
  using Job = std::function<void(std::stop_token stop)>;

  explicit JobRunner(std::size_t capacity);
  ~JobRunner();  // asks the running job to stop, drops those waiting, joins
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;

  // Queues `job`; false, without it, when `capacity` jobs already wait.
  bool submit(Job job);

 private:
  void run(std::stop_token stop);

  const std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable_any wake_;
  std::deque<Job> waiting_;
  std::jthread thread_;  // last: started once the rest is built
};

}  // namespace bond_risk
