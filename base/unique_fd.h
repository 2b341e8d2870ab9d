// A file descriptor as an RAII object.
#pragma once

namespace base {

// Owns a file descriptor; closes it on destruction.
// Not thread-safe to move, reset or release: one owning thread does that;
// get() may be read from any thread while it does not change (the job
// runner writes to the socket server's eventfd through one).
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  int release();

 private:
  int fd_ = -1;
};

}  // namespace base
