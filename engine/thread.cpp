#include "engine/thread.h"

#include <sched.h>

#include <system_error>

namespace engine {

namespace {

cpu_set_t single_cpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return set;
}

// Frees a pthread_attr_t however the constructor leaves.
struct Attr {
  pthread_attr_t attr;
  Attr() { pthread_attr_init(&attr); }
  ~Attr() { pthread_attr_destroy(&attr); }
};

}  // namespace

Thread::Thread(std::function<void()> body, std::size_t stack_bytes, std::optional<int> cpu)
    : body_(std::make_unique<std::function<void()>>(std::move(body))) {
  Attr a;
  if (int rc = pthread_attr_setstacksize(&a.attr, stack_bytes); rc != 0) {
    throw std::system_error(rc, std::generic_category(), "pthread_attr_setstacksize");
  }
  if (cpu) {
    const cpu_set_t set = single_cpu(*cpu);
    if (int rc = pthread_attr_setaffinity_np(&a.attr, sizeof set, &set); rc != 0) {
      throw std::system_error(rc, std::generic_category(), "pthread_attr_setaffinity_np");
    }
  }
  if (int rc = pthread_create(&handle_, &a.attr, &Thread::trampoline, body_.get()); rc != 0) {
    throw std::system_error(rc, std::generic_category(), "pthread_create");
  }
  joinable_ = true;
}

Thread::Thread(Thread&& other) noexcept
    : body_(std::move(other.body_)), handle_(other.handle_), joinable_(other.joinable_) {
  other.joinable_ = false;
}

Thread::~Thread() {
  if (joinable_) pthread_join(handle_, nullptr);
}

void* Thread::trampoline(void* arg) {
  (*static_cast<std::function<void()>*>(arg))();
  return nullptr;
}

ScopedPin::ScopedPin(std::optional<int> cpu) {
  if (!cpu) return;
  if (pthread_getaffinity_np(pthread_self(), sizeof previous_, &previous_) != 0) {
    throw std::system_error(errno, std::generic_category(), "pthread_getaffinity_np");
  }
  const cpu_set_t set = single_cpu(*cpu);
  if (int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set); rc != 0) {
    throw std::system_error(rc, std::generic_category(), "cannot pin the master thread to CPU " + std::to_string(*cpu));
  }
  pinned_ = true;
}

ScopedPin::~ScopedPin() {
  if (pinned_) pthread_setaffinity_np(pthread_self(), sizeof previous_, &previous_);
}

}  // namespace engine
