// A joined-on-destruction POSIX thread with a chosen stack size and an
// optional CPU pin (std::thread offers neither).
// Owns `body` and its thread, joined on destruction (so the body must have
// been told to return first). One owning thread starts, moves and destroys
// it, never the thread itself; the body runs on the new thread.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>

namespace engine {

class Thread {
 public:
  // Starts `body`. Throws std::system_error if the thread cannot be created.
  Thread(std::function<void()> body, std::size_t stack_bytes, std::optional<int> cpu);
  ~Thread();
  Thread(Thread&& other) noexcept;
  Thread& operator=(Thread&&) = delete;
  Thread(const Thread&) = delete;

 private:
  static void* trampoline(void* arg);
  std::unique_ptr<std::function<void()>> body_;  // stable address for the new thread
  pthread_t handle_{};
  bool joinable_ = false;
};

// Pins the calling thread to `cpu` and restores its previous CPU set on destruction.
// Owns only the saved CPU set; destroy it on the thread that made it (the
// destructor restores the calling thread's set).
class ScopedPin {
 public:
  explicit ScopedPin(std::optional<int> cpu);
  ~ScopedPin();
  ScopedPin(const ScopedPin&) = delete;
  ScopedPin& operator=(const ScopedPin&) = delete;

 private:
  bool pinned_ = false;
  cpu_set_t previous_{};
};

}  // namespace engine
