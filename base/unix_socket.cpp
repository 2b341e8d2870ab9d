#include "base/unix_socket.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace base {

namespace {

sockaddr_un address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) {
    throw std::runtime_error("socket path " + path + " is longer than " + std::to_string(sizeof addr.sun_path - 1) +
                             " bytes; choose a shorter CONTROL_SOCKET");
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

}  // namespace

UnixListener::UnixListener(const std::string& path) : path_(path) {
  const sockaddr_un addr = address(path);
  // O_NOFOLLOW: a symlink planted at the lock's path is not followed.
  lock_ = UniqueFd(::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (lock_.get() < 0) fail("cannot open " + path + ".lock (choose another socket path)");
  struct stat lock_stat {};
  if (::fstat(lock_.get(), &lock_stat) == 0 && lock_stat.st_uid != ::geteuid()) {
    throw std::runtime_error(path + ".lock belongs to user " + std::to_string(lock_stat.st_uid) +
                             ", not to you; choose another socket path");
  }
  if (::flock(lock_.get(), LOCK_EX | LOCK_NB) != 0) {
    throw std::runtime_error("another engine is serving " + path + " (it holds " + path +
                             ".lock); stop it first with: bond_risk send --socket " + path + " shutdown");
  }
  remove_stale_socket(path);
  socket_ = UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (socket_.get() < 0) fail("socket");
  const mode_t old_mask = ::umask(0177);  // the socket file is created 0600
  const int rc = ::bind(socket_.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  ::umask(old_mask);
  if (rc != 0) fail("cannot bind " + path);
  if (::listen(socket_.get(), 128) != 0) fail("cannot listen on " + path);
}

void UnixListener::remove_stale_socket(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    fail("cannot inspect " + path);
  }
  if (!S_ISSOCK(st.st_mode)) {
    throw std::runtime_error(path + " exists and is not a socket; refusing to replace it (choose another socket path)");
  }
  const UniqueFd probe(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const sockaddr_un addr = address(path);
  if (::connect(probe.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) {
    throw std::runtime_error("an engine answers on " + path + "; stop it first with: bond_risk send --socket " + path +
                             " shutdown");
  }
  ::unlink(path.c_str());  // a socket no engine answers: left by one that crashed
}

int UnixListener::release_socket() { return socket_.release(); }

UnixListener::~UnixListener() { ::unlink(path_.c_str()); }

UniqueFd connect_unix(const std::string& path) {
  const sockaddr_un addr = address(path);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) fail("socket");
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    throw std::runtime_error("no engine is listening on " + path + " (" + std::strerror(errno) +
                             "); start one with: bond_risk run --db DATABASE");
  }
  return fd;
}

bool write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

bool LineReader::fill() {
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd_, buffer, sizeof buffer);
    if (n > 0) {
      unread_.erase(0, start_);
      start_ = 0;
      unread_.append(buffer, static_cast<std::size_t>(n));
      return true;
    }
    if (n == 0) return false;
    if (errno != EINTR) throw std::runtime_error(std::string("cannot read from the socket: ") + std::strerror(errno));
  }
}

std::optional<std::string> LineReader::next() {
  const std::size_t nl = unread_.find('\n', start_);
  if (nl == std::string::npos) return std::nullopt;
  std::string line = unread_.substr(start_, nl - start_);
  start_ = nl + 1;
  return line;
}

std::optional<std::string> LineReader::read_line() {
  for (;;) {
    if (std::optional<std::string> line = next()) return line;
    if (!fill()) return std::nullopt;
  }
}

}  // namespace base
