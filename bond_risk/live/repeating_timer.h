#pragma once
// A task run every period on an Asio event loop until stop(), for the
// socket server's poll of other programs' changes.
//
// stop() is final: the task never runs again, even if its wait had already
// expired and its completion was queued when stop() ran (cancel() cannot
// recall such a completion: it arrives without an error, and a timer that
// re-armed itself then would keep the loop, and the process, alive for
// ever). Not thread-safe: use it from the loop's thread only.
// Borrows `io`, which must outlive it; owns its task.

// The C++ library's headers first: Asio reads the library's configuration
// (whether it has aligned_alloc) as it finds it, and every file that
// includes Asio must find the same, or memory Asio allocates in one file
// is freed the other way in another (AddressSanitizer: alloc-dealloc-mismatch).
#include <chrono>
#include <functional>
#include <utility>

// The socket server's loop is one thread: Asio needs no locks of its own.
#ifndef ASIO_DISABLE_THREADS
#define ASIO_DISABLE_THREADS
#endif
#include <asio.hpp>

namespace bond_risk {

class RepeatingTimer {
 public:
  RepeatingTimer(asio::io_context& io, std::chrono::milliseconds period) : timer_(io), period_(period) {}

  // Runs `task` one period from now, and again a period after each run.
  void start(std::function<void()> task) {
    task_ = std::move(task);
    arm();
  }

  void stop() {
    stopped_ = true;
    timer_.cancel();
  }

 private:
  void arm() {
    timer_.expires_after(period_);
    timer_.async_wait([this](std::error_code ec) {
      if (ec || stopped_) return;
      task_();
      arm();
    });
  }

  asio::steady_timer timer_;
  std::chrono::milliseconds period_;
  std::function<void()> task_;
  bool stopped_ = false;
};

}  // namespace bond_risk
