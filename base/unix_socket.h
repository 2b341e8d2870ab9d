// File descriptors and Unix domain sockets, as RAII objects.
#pragma once

#include <optional>
#include <string>

#include "base/unique_fd.h"

namespace base {

// Listens on `path` (mode 0600). Holds `path`.lock while it lives, so a
// second engine is refused. Only a stale socket (a socket file no engine
// answers on, left by a crash) is replaced; any other file at `path` is
// refused, never deleted.
// Owns the lock file's descriptor and, until release_socket(), the listening
// socket. Not thread-safe: the serving thread (the socket server's loop)
// makes, uses and destroys it.
class UnixListener {
 public:
  explicit UnixListener(const std::string& path);
  ~UnixListener();  // removes the socket file
  UnixListener(const UnixListener&) = delete;
  UnixListener& operator=(const UnixListener&) = delete;

  int fd() const { return socket_.get(); }
  // Hands the listening socket over to its new owner (an event loop).
  int release_socket();
  const std::string& path() const { return path_; }

 private:
  static void remove_stale_socket(const std::string& path);

  std::string path_;
  UniqueFd lock_;
  UniqueFd socket_;
};

// Connects to the engine listening on `path`; throws std::runtime_error
// saying so when none is.
UniqueFd connect_unix(const std::string& path);

// Writes all of `data`; false if the peer has gone.
bool write_all(int fd, const std::string& data);

// The lines of a stream of bytes read from `fd` (not owned), each without
// its newline, whole however the bytes arrive.
// Not thread-safe: one thread reads through it (another may write to the same
// fd meanwhile, as send's writer does); the fd's owner must outlive it.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}
  // One read of what `fd` has (waiting for it if it blocks): false at the
  // stream's end. Throws std::runtime_error on a read error.
  bool fill();
  // The next complete line already read, or nullopt.
  std::optional<std::string> next();
  // The next line, reading as long as needed; nullopt at the stream's end.
  std::optional<std::string> read_line();

 private:
  int fd_;
  std::string unread_;
  std::size_t start_ = 0;  // of the first line not yet returned
};

}  // namespace base
