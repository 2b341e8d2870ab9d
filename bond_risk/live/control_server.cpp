#include "bond_risk/live/control_server.h"

#include <poll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <map>

#include "base/unix_socket.h"
#include "bond_risk/live/command_executor.h"
#include "bond_risk/live/replies.h"

namespace bond_risk {

namespace {

constexpr std::size_t kMaxLine = 1 << 20;  // a longer line is garbage: the client is dropped

struct Client {
  base::UniqueFd fd;
  std::string buffer;  // bytes after the last complete line
};

struct Pending {
  int client;  // key in the client map
  std::string line;
};

class Server {
 public:
  Server(LiveModel& model, base::Database& db, const std::string& path, const sigset_t& signals)
      : db_(db), executor_(model, db), listener_(path), signals_(::signalfd(-1, &signals, SFD_CLOEXEC)) {
    if (signals_.get() < 0) throw std::runtime_error(std::string("signalfd: ") + std::strerror(errno));
  }

  void run() {
    std::cerr << "bond_risk: serving " << db_.path() << " on " << listener_.path() << "\n";
    while (!stopping_ && !executor_.shutdown_requested()) {
      std::vector<pollfd> fds = {{signals_.get(), POLLIN, 0}, {listener_.fd(), POLLIN, 0}};
      std::vector<int> ids;
      for (const auto& [id, c] : clients_) {
        fds.push_back({c.fd.get(), POLLIN, 0});
        ids.push_back(id);
      }
      if (::poll(fds.data(), fds.size(), 100) < 0 && errno != EINTR) {
        throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
      }
      bool signalled = false;
      if (fds[0].revents & POLLIN) {
        signalfd_siginfo info{};
        if (::read(signals_.get(), &info, sizeof info) > 0) {
          if (info.ssi_signo == SIGUSR1) {
            signalled = true;
          } else {
            stopping_ = true;
          }
        }
      }
      executor_.sync_external(signalled);
      if (fds[1].revents & POLLIN) accept_clients();
      std::vector<Pending> batch;
      for (std::size_t i = 2; i < fds.size(); ++i) {
        if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) read_client(ids[i - 2], batch);
      }
      if (!batch.empty()) execute(batch);
    }
    std::cerr << "bond_risk: stopped serving " << listener_.path() << "\n";
  }

 private:
  void accept_clients() {
    for (;;) {
      const int fd = ::accept4(listener_.fd(), nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return;
      timeval timeout{1, 0};  // a client that never reads its replies cannot stall the engine
      ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
      clients_.emplace(next_client_++, Client{base::UniqueFd(fd), {}});
    }
  }

  // Reads what a client sent; complete lines join the batch.
  void read_client(int id, std::vector<Pending>& batch) {
    Client& c = clients_.at(id);
    char buf[65536];
    const ssize_t n = ::recv(c.fd.get(), buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) {
      clients_.erase(id);  // a partial last line is dropped with the client
      return;
    }
    c.buffer.append(buf, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t nl; (nl = c.buffer.find('\n', start)) != std::string::npos; start = nl + 1) {
      batch.push_back({id, c.buffer.substr(start, nl - start)});
    }
    c.buffer.erase(0, start);
    if (c.buffer.size() > kMaxLine) {
      base::write_all(c.fd.get(), error_line("line longer than 1 MiB; connection closed") + "\n");
      clients_.erase(id);
    }
  }

  // Executes a batch, then replies to each line in order.
  void execute(const std::vector<Pending>& batch) {
    std::vector<std::string> lines;
    for (const Pending& p : batch) lines.push_back(p.line);
    const std::vector<std::string> replies = executor_.execute(lines);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (replies[i].empty()) continue;
      const auto it = clients_.find(batch[i].client);
      if (it != clients_.end() && !base::write_all(it->second.fd.get(), replies[i] + "\n")) clients_.erase(it);
    }
  }

  base::Database& db_;
  CommandExecutor executor_;
  base::UnixListener listener_;
  base::UniqueFd signals_;
  std::map<int, Client> clients_;
  int next_client_ = 0;
  bool stopping_ = false;
};

}  // namespace

void serve(LiveModel& model, base::Database& db, const std::string& socket_path, const sigset_t& signals) {
  Server(model, db, socket_path, signals).run();
}

}  // namespace bond_risk
