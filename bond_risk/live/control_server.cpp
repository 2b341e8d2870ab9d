#include "bond_risk/live/control_server.h"

#include <poll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>

#include "bond_risk/db/change_log.h"
#include "bond_risk/db/loader.h"
#include "bond_risk/db/schema.h"
#include "base/unix_socket.h"

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

std::vector<std::string> split_words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::string error_reply(const std::string& message) {
  return "{\"ok\":false,\"error\":" + json_string(message) + "}\n";
}

std::string recalculation_json(const LiveModel::Recalculation& r) {
  std::string out = ",\"recalculated\":{";
  for (std::size_t k = 0; k < kKindCount; ++k) {
    out += std::string(k ? "," : "") + json_string(std::string(kind_name(static_cast<Kind>(k)))) + ":" +
           std::to_string(r.nodes[k]);
  }
  return out + "},\"recalc_us\":" + json_number(r.seconds * 1e6);
}

class Server {
 public:
  Server(LiveModel& model, base::Database& db, const std::string& path, const sigset_t& signals)
      : model_(model), db_(db), changes_(db), listener_(path), signals_(::signalfd(-1, &signals, SFD_CLOEXEC)) {
    if (signals_.get() < 0) throw std::runtime_error(std::string("signalfd: ") + std::strerror(errno));
  }

  void run() {
    std::cerr << "bond_risk: serving " << db_.path() << " on " << listener_.path() << "\n";
    while (!stopping_) {
      std::vector<pollfd> fds = {{signals_.get(), POLLIN, 0}, {listener_.fd(), POLLIN, 0}};
      std::vector<int> ids;
      for (const auto& [id, c] : clients_) {
        fds.push_back({c.fd.get(), POLLIN, 0});
        ids.push_back(id);
      }
      if (::poll(fds.data(), fds.size(), 100) < 0 && errno != EINTR) {
        throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
      }
      bool check_changes = changes_.external_commit();
      if (fds[0].revents & POLLIN) {
        signalfd_siginfo info{};
        if (::read(signals_.get(), &info, sizeof info) > 0) {
          if (info.ssi_signo == SIGUSR1) {
            check_changes = true;
          } else {
            stopping_ = true;
          }
        }
      }
      if (check_changes && changes_.pending()) {
        base::Transaction tx(db_, true);
        reload();
        tx.commit();
      }
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
      base::write_all(c.fd.get(), error_reply("line longer than 1 MiB; connection closed"));
      clients_.erase(id);
    }
  }

  // Applies a batch in one transaction, then replies to each line in order.
  void execute(const std::vector<Pending>& batch) {
    std::vector<std::string> replies(batch.size());
    std::vector<std::size_t> awaiting;  // replies of state-changing commands, waiting for the recalculation
    auto settle = [&] {
      if (awaiting.empty()) return;
      const std::string recalc = recalculation_json(model_.recalculate(&db_));
      for (std::size_t i : awaiting) replies[i] += recalc;
      awaiting.clear();
    };
    {
      base::Transaction tx(db_, true);  // the write lock first: no other program commits between the check and ours
      if (changes_.pending()) reload();  // changes made by other programs come before these commands
      for (std::size_t i = 0; i < batch.size(); ++i) {
        const std::vector<std::string> words = split_words(batch[i].line);
        if (words.empty()) continue;
        if (words[0] == "shutdown") {
          stopping_ = true;
          replies[i] = "{\"ok\":true,\"shutdown\":true";
          continue;
        }
        if (words[0] == "reload") {
          settle();
          replies[i] = "{\"ok\":true" + recalculation_json(reload());
          continue;
        }
        const bool changes = LiveModel::changes_state(words[0]);
        if (!changes) settle();  // a read sees every change before it
        try {
          if (changes) db_.cached("SAVEPOINT command").run();
          const std::string fields = model_.execute(words, &db_);
          replies[i] = "{\"ok\":true" + (fields.empty() ? "" : "," + fields);
          if (changes) {
            db_.cached("INSERT INTO event_log (time, command, result) "
                       "VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?, ?)")
                .bind(1, std::string_view(batch[i].line))
                .bind(2, std::string_view(fields))
                .run();
            db_.cached("RELEASE command").run();
            awaiting.push_back(i);
          }
        } catch (const CommandError& e) {
          if (changes) {
            db_.cached("ROLLBACK TO command").run();
            db_.cached("RELEASE command").run();
          }
          replies[i] = error_reply(e.what());
        }
      }
      settle();
      changes_.consume();  // this transaction's own changes
      tx.commit();
    }
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (replies[i].empty()) continue;
      if (replies[i].back() != '\n') replies[i] += "}\n";
      const auto it = clients_.find(batch[i].client);
      if (it != clients_.end() && !base::write_all(it->second.fd.get(), replies[i])) clients_.erase(it);
    }
  }

  // Applies the changes other programs made to the input tables and
  // recalculates what they affect, inside the caller's transaction.
  LiveModel::Recalculation reload() {
    const std::vector<ChangeLog::Change> changes = changes_.changes();
    const LiveModel::Recalculation r = model_.apply_external(changes, db_);
    changes_.consume();
    std::cerr << "bond_risk: applied " << changes.size() << " changes made to " << db_.path() << " by other programs\n";
    return r;
  }

  LiveModel& model_;
  base::Database& db_;
  ChangeLog changes_;
  base::UnixListener listener_;
  base::UniqueFd signals_;
  std::map<int, Client> clients_;
  int next_client_ = 0;
  bool stopping_ = false;
};

}  // namespace

void serve(LiveModel& model, base::Database& db, const std::string& socket_path, const sigset_t& signals) {
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL");
  db.exec(kSchemaSql);
  Server(model, db, socket_path, signals).run();
}

}  // namespace bond_risk
