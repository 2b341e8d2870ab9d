#include "bond_risk/live/control_server.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <unordered_map>

#include "base/unique_fd.h"
#include "base/unix_socket.h"
#include "bond_risk/live/command_executor.h"
#include "bond_risk/live/job_runner.h"
#include "bond_risk/live/repeating_timer.h"
#include "bond_risk/protocol/messages.h"

namespace bond_risk {

namespace {

using Socket = asio::local::stream_protocol::socket;

constexpr std::size_t kMaxLine = 1 << 20;        // a longer line is garbage: the client is dropped
constexpr std::size_t kPauseReading = 1 << 20;   // queued reply bytes past which a client's lines wait
constexpr std::size_t kMaxQueued = 16 << 20;     // queued bytes past which a client is dropped
// A reader that waits for each reply is never dropped: its lines wait while
// more than kPauseReading is queued, and no reply is longer than kMaxReplyBytes.
static_assert(kPauseReading + protocol::kMaxReplyBytes < kMaxQueued);
constexpr std::size_t kMaxWatched = 10'000;      // nodes one connection may follow
constexpr std::size_t kMaxWatchedTotal = 100'000;  // ... and every connection together
constexpr std::size_t kUpdatesPerTurn = 256;      // update lines built between two looks at the sockets
constexpr std::size_t kLongReadsWaiting = 16;     // scenario and var requests queued for the job runner
constexpr std::size_t kLinesPerTurn = 64;        // a client's lines in one batch; the rest wait their turn
constexpr auto kExternalPoll = std::chrono::milliseconds(100);
constexpr std::size_t kPublishSlice = 16384;     // result rows copied between two looks at the sockets

// One client connection: its unread bytes, its queued replies and the
// nodes it watches. Replies are written when the socket can take them, so
// a slow reader delays nobody but itself. An update line is built once per
// node and change, whoever watches it, and shared.
struct Session {
  explicit Session(Socket s) : socket(std::move(s)) {}
  Socket socket;
  std::array<char, 65536> buffer{};
  std::string unread;                          // bytes after the last complete line
  std::deque<std::string> queued;              // reply lines, in order
  std::size_t queued_bytes = 0;                // of queued and writing
  std::map<std::int64_t, std::uint64_t> watched;  // node id -> a hash of its last values sent (0: none yet)
  std::map<std::int64_t, std::shared_ptr<const std::string>> updates;  // the latest unsent update per node id
  std::string writing;                         // the bytes of the write in flight
  bool reading = false, read_closed = false, closed = false;
  bool backlog = false;                        // complete lines wait in `unread` for a later batch
  bool held = false;                           // a line that runs apart awaits its reply: take no more
  bool limits = false;                         // it watches the limits' alerts
};

// The sessions following a node, and whether its update is queued.
struct Watchers {
  std::vector<std::shared_ptr<Session>> sessions;
  bool queued = false;
};

class Server {
 public:
  Server(LiveModel& model, base::Database& db, const std::string& path, Synchronous synchronous)
      : db_(db), executor_(model, db, synchronous), listener_(path), acceptor_(io_), signals_(io_), poll_(io_, kExternalPoll) {
    acceptor_.assign(asio::local::stream_protocol(), listener_.release_socket());
    base::UniqueFd wake(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
    if (wake.get() < 0) throw std::runtime_error("cannot create an eventfd for the job runner's replies");
    finished_signal_ = base::UniqueFd(dup(wake.get()));
    if (finished_signal_.get() < 0) throw std::runtime_error("cannot duplicate the job runner's eventfd");
    finished_wake_.assign(wake.release());
    for (int signal : {SIGINT, SIGTERM, SIGUSR1, SIGHUP}) signals_.add(signal);
  }

  void run() {
    std::cerr << "bond_risk: serving " << db_.path() << " on " << listener_.path() << "\n";
    accept();
    wait_signal();
    poll_external();
    wait_finished();
    io_.run();
    std::cerr << "bond_risk: stopped serving " << listener_.path() << "\n";
  }

 private:
  void accept() {
    acceptor_.async_accept([this](std::error_code ec, Socket socket) {
      if (ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space) {
        // Out of descriptors: the listener stays readable, so back off rather than spin.
        if (!fd_limit_logged_) std::cerr << "bond_risk: cannot accept a client (" << ec.message() << "); retrying\n";
        fd_limit_logged_ = true;
        retry_accept_.expires_after(std::chrono::milliseconds(50));
        retry_accept_.async_wait([this](std::error_code wait_ec) {
          if (!wait_ec && !stopping_) accept();
        });
        return;
      }
      if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;  // stopping
      if (!ec) {
        auto session = std::make_shared<Session>(std::move(socket));
        sessions_.push_back(session);
        read(session);
      }
      accept();
    });
  }

  void wait_signal() {
    signals_.async_wait([this](std::error_code ec, int signal) {
      if (ec || stopping_) return;
      if (signal == SIGUSR1 || signal == SIGHUP) {
        executor_.sync_external(true);  // SIGHUP, like SIGUSR1: re-read what other programs changed
        push_alerts();
        notify_watchers();
        wait_signal();
      } else {
        stop();
      }
    });
  }

  void poll_external() {
    poll_.start([this] {
      executor_.sync_external(false);
      push_alerts();
      notify_watchers();
      publish_slice();  // rows left behind, or every row again if the results file was lost
    });
  }

  void read(const std::shared_ptr<Session>& s) {
    if (s->reading || s->read_closed || s->closed || s->backlog || s->held || s->queued_bytes > kPauseReading) return;
    s->reading = true;
    s->socket.async_read_some(asio::buffer(s->buffer), [this, s](std::error_code ec, std::size_t n) {
      s->reading = false;
      if (s->closed) return;
      if (ec) {
        // The client sent all it will; it may still read replies (a watcher
        // does), unless it closed the connection whole: then its watches go.
        s->read_closed = true;
        pollfd hangup{s->socket.native_handle(), POLLOUT, 0};
        if (::poll(&hangup, 1, 0) == 1 && (hangup.revents & (POLLHUP | POLLERR))) return close(s);
        if (s->watched.empty() && !s->limits && s->queued.empty() && s->writing.empty() && pending_for(s) == 0) close(s);
        return;
      }
      s->unread.append(s->buffer.data(), n);
      take_lines(s);
      if (!s->backlog && s->unread.size() > kMaxLine) return drop(s, "line longer than 1 MiB; connection closed");
      schedule_batch();
      read(s);
    });
  }

  // Moves a client's complete lines into the next batch, a turn's worth at
  // most: a client that pipelines thousands of commands shares the engine
  // with the others batch by batch instead of holding it for all of them.
  // A line that runs apart (scenario, var) is the last taken until its
  // reply is queued, so a connection's replies keep the order of its lines.
  void take_lines(const std::shared_ptr<Session>& s) {
    std::size_t start = 0, taken = 0;
    for (std::size_t nl; !s->held && taken < kLinesPerTurn && (nl = s->unread.find('\n', start)) != std::string::npos;
         start = nl + 1, ++taken) {
      batch_.push_back({s, s->unread.substr(start, nl - start)});
      s->held = runs_apart(batch_.back().line);
    }
    s->unread.erase(0, start);
    s->backlog = s->unread.find('\n') != std::string::npos;
  }

  std::size_t pending_for(const std::shared_ptr<Session>& s) const {
    std::size_t n = 0;
    for (const auto& p : batch_) n += p.session == s;
    return n;
  }

  // Lines that arrived together from every client make one batch (one commit).
  void schedule_batch() {
    if (batch_scheduled_) return;
    batch_scheduled_ = true;
    asio::post(io_, [this] {
      batch_scheduled_ = false;
      execute();
    });
  }

  void execute() {
    std::vector<Pending> batch = std::move(batch_);
    batch_.clear();
    if (batch.empty()) return;
    std::vector<std::string> lines;
    for (const Pending& p : batch) lines.push_back(p.line);
    const std::vector<Reply> replies = executor_.execute(lines);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      Session& s = *batch[i].session;
      if (s.closed) continue;
      if (replies[i].unwatch_all) unwatch_all(s);
      for (std::int64_t id : replies[i].unwatch) unwatch(s, id);
      s.limits = (s.limits || replies[i].watch_limits) && !replies[i].unwatch_limits && !replies[i].unwatch_all;
      if (replies[i].deferred) {
        run_apart(batch[i].session, replies[i].deferred);
        continue;
      }
      enqueue(batch[i].session, replies[i].watch.empty() ? replies[i].line : watch(batch[i].session, replies[i]));
      if (s.held && runs_apart(batch[i].line)) release(batch[i].session);  // answered at once (an error, a kept reply)
    }
    executor_.complete();  // the replies are on their way: the rest of their recalculation
    push_alerts();
    notify_watchers();
    publish_slice();
    if (executor_.shutdown_requested()) return stop();
    for (const auto& s : std::vector(sessions_)) {  // the next turn of clients with lines waiting
      if (!s->backlog) continue;
      take_lines(s);
      schedule_batch();
      read(s);
    }
  }

  // Hands recalculated rows to the result writer a slice at a time, after
  // the replies' first write and between batches: a big event's rows never
  // hold up the next command by more than one slice, and wait while the
  // writer could not write them before they change again.
  void publish_slice() {
    if (publishing_) return;
    if (!executor_.publish_results(kPublishSlice, Handover::when_wanted)) return;
    publishing_ = true;
    asio::post(io_, [this] {
      publishing_ = false;
      publish_slice();
    });
  }

  // Hands a deferred reply to the job runner; its line is queued when it
  // is done (wait_finished), or at once if the runner's queue is full.
  void run_apart(const std::shared_ptr<Session>& s, std::shared_ptr<const Deferred> deferred) {
    const bool queued = runner_.submit([this, session = std::weak_ptr(s), deferred](std::stop_token stop) {
      Finished done{session, deferred, answer(*deferred, stop)};
      {
        const std::lock_guard lock(finished_mutex_);
        finished_.push_back(std::move(done));
      }
      const std::uint64_t one = 1;
      [[maybe_unused]] const ssize_t n = ::write(finished_signal_.get(), &one, sizeof one);  // a full counter still wakes
    });
    if (queued) return;
    enqueue(s, protocol::error_line("busy: " + std::to_string(kLongReadsWaiting) +
                          " scenario and var requests already wait for their turn; retry in a moment"));
    release(s);
  }

  // Queues the replies the job runner finished (its thread signals the eventfd).
  void wait_finished() {
    finished_wake_.async_read_some(asio::buffer(&finished_count_, sizeof finished_count_), [this](std::error_code ec, std::size_t) {
      if (ec || stopping_) return;
      std::vector<Finished> done;
      {
        const std::lock_guard lock(finished_mutex_);
        done.swap(finished_);
      }
      for (Finished& f : done) {
        if (f.answer.members && f.deferred->keep) f.deferred->keep(*f.answer.members);
        const std::shared_ptr<Session> s = f.session.lock();
        if (!s || s->closed) continue;
        enqueue(s, f.answer.line);
        release(s);
      }
      wait_finished();
    });
  }

  // A connection's line that ran apart is answered: its next lines go on.
  void release(const std::shared_ptr<Session>& s) {
    s->held = false;
    if (s->closed) return;
    take_lines(s);
    schedule_batch();
    read(s);
  }

  // Follows the nodes of a watch reply, unless that would take the
  // connection or every connection together past its bound; the reply line.
  std::string watch(const std::shared_ptr<Session>& s, const Reply& reply) {
    std::size_t added = 0;
    for (std::int64_t id : reply.watch) added += !s->watched.contains(id);
    if (s->watched.size() + added > kMaxWatched) {
      return protocol::error_line("watch refused: this connection would follow " + std::to_string(s->watched.size() + added) +
                        " nodes, at most " + std::to_string(kMaxWatched) + "; unwatch some first");
    }
    if (watched_total_ + added > kMaxWatchedTotal) {
      return protocol::error_line("watch refused: the engine's connections would follow " +
                        std::to_string(watched_total_ + added) + " nodes together, at most " +
                        std::to_string(kMaxWatchedTotal) + "; unwatch some or try later");
    }
    for (std::int64_t id : reply.watch) {
      if (!s->watched.emplace(id, 0).second) continue;
      ++watched_total_;
      Watchers& w = watchers_[id];
      w.sessions.push_back(s);
      queue_update(id, w);  // its first update
    }
    return reply.line;
  }

  void unwatch(Session& s, std::int64_t id) {
    if (s.watched.erase(id) == 0) return;
    s.updates.erase(id);
    --watched_total_;
    const auto it = watchers_.find(id);
    std::erase_if(it->second.sessions, [&](const std::shared_ptr<Session>& w) { return w.get() == &s; });
    if (it->second.sessions.empty() && !it->second.queued) watchers_.erase(it);
  }

  void unwatch_all(Session& s) {
    while (!s.watched.empty()) unwatch(s, s.watched.begin()->first);
  }

  // Sends the alerts committed since to every connection that watches the
  // limits, in order (each is an event: none is conflated); a connection
  // that does not read them is dropped at kMaxQueued, as for any reply.
  // A batch's alerts are queued together: one write takes them all.
  void push_alerts() {
    const std::vector<std::string> alerts = executor_.take_alerts();
    if (alerts.empty()) return;
    for (const auto& s : std::vector(sessions_)) {
      if (s->limits && !s->closed) enqueue(s, alerts);
    }
  }

  void queue_update(std::int64_t id, Watchers& w) {
    if (w.queued) return;
    w.queued = true;
    to_update_.push_back(id);
  }

  // Queues the watched nodes whose values may have changed (nothing when
  // none did: an idle poll costs nothing), then builds their update lines.
  void notify_watchers() {
    if (executor_.watches().any()) {
      for (auto& [id, w] : watchers_) {
        if (executor_.watches().changed(id)) queue_update(id, w);
      }
      executor_.watches().forget();
    }
    build_updates();
  }

  // Builds the queued nodes' update lines, a turn's worth at a time between
  // looks at the sockets (so that thousands of watched nodes never hold up
  // another client's command), each line once for all its watchers; a
  // watcher whose last line had the same values gets none. Only the latest
  // unsent update of a node waits for a watcher.
  void build_updates() {
    if (updating_ || stopping_) return;
    std::vector<std::shared_ptr<Session>> touched;
    for (std::size_t built = 0; !to_update_.empty() && built < kUpdatesPerTurn;) {
      const std::int64_t id = to_update_.front();
      to_update_.pop_front();
      const auto it = watchers_.find(id);
      it->second.queued = false;
      if (it->second.sessions.empty()) {
        watchers_.erase(it);
        continue;
      }
      const std::string values = executor_.watches().update_values(id);
      ++built;
      const std::uint64_t hash = std::hash<std::string>{}(values) | 1;
      std::shared_ptr<const std::string> line;
      for (const std::shared_ptr<Session>& s : it->second.sessions) {
        std::uint64_t& last = s->watched[id];
        if (last == hash) continue;
        last = hash;
        if (!line) {
          line = std::make_shared<const std::string>(protocol::update_line(values, executor_.served_event()) + "\n");
        }
        s->updates[id] = line;
        touched.push_back(s);
      }
    }
    for (const std::shared_ptr<Session>& s : touched) write(s);
    if (to_update_.empty()) return;
    updating_ = true;
    asio::post(io_, [this] {
      updating_ = false;
      build_updates();
    });
  }

  void enqueue(const std::shared_ptr<Session>& s, const std::string& line) { enqueue(s, std::span(&line, 1)); }
  // Lines queued together go out in one write.
  void enqueue(const std::shared_ptr<Session>& s, std::span<const std::string> lines) {
    for (const std::string& line : lines) {
      s->queued.push_back(line + "\n");
      s->queued_bytes += line.size() + 1;
    }
    if (s->queued_bytes > kMaxQueued) return drop(s, "more than 16 MiB of replies unread; connection closed");
    write(s);
  }

  void write(const std::shared_ptr<Session>& s) {
    if (s->closed || !s->writing.empty()) return;
    if (s->queued.empty()) {
      for (auto& [id, update] : s->updates) s->queued.push_back(*update), s->queued_bytes += update->size();
      s->updates.clear();
    }
    if (s->queued.empty()) {
      if (s->read_closed && s->watched.empty() && !s->limits && pending_for(s) == 0) close(s);
      return;
    }
    while (!s->queued.empty() && s->writing.size() < 65536) {
      s->writing += s->queued.front();
      s->queued.pop_front();
    }
    asio::async_write(s->socket, asio::buffer(s->writing), [this, s](std::error_code ec, std::size_t) {
      if (s->closed) return;
      if (ec) return close(s);
      s->queued_bytes -= std::min(s->queued_bytes, s->writing.size());
      s->writing.clear();
      read(s);  // resumes a client paused for its unread replies
      write(s);
    });
  }

  // Closes a client that broke a bound, telling it why if it will listen.
  void drop(const std::shared_ptr<Session>& s, const std::string& why) {
    const std::string line = protocol::error_line(why) + "\n";
    ::send(s->socket.native_handle(), line.data(), line.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    close(s);
  }

  void close(const std::shared_ptr<Session>& s) {
    if (s->closed) return;
    s->closed = true;
    unwatch_all(*s);
    std::error_code ignored;
    s->socket.close(ignored);
    std::erase(sessions_, s);
  }

  // Ends the loop: every handler that completes from now on returns
  // without arming another wait (cancel() cannot recall one already due).
  void stop() {
    if (stopping_) return;
    stopping_ = true;
    std::error_code ignored;
    acceptor_.close(ignored);
    signals_.cancel(ignored);
    poll_.stop();
    retry_accept_.cancel();
    finished_wake_.close(ignored);
    // Replies already queued still go out, for at most a second: the loop
    // ends when the last write does.
    for (const auto& s : std::vector(sessions_)) {
      unwatch_all(*s);
      s->read_closed = true;
      s->socket.shutdown(Socket::shutdown_receive, ignored);
      if (s->writing.empty() && s->queued.empty()) close(s);
    }
    retry_accept_.expires_after(std::chrono::seconds(1));
    retry_accept_.async_wait([this](std::error_code) {
      for (const auto& s : std::vector(sessions_)) close(s);
    });
  }

  struct Pending {
    std::shared_ptr<Session> session;
    std::string line;
  };

  base::Database& db_;
  CommandExecutor executor_;
  base::UnixListener listener_;
  asio::io_context io_;
  asio::local::stream_protocol::acceptor acceptor_;
  asio::signal_set signals_;
  RepeatingTimer poll_;  // other programs' changes
  asio::steady_timer retry_accept_{io_};
  std::vector<std::shared_ptr<Session>> sessions_;
  std::vector<Pending> batch_;
  std::unordered_map<std::int64_t, Watchers> watchers_;  // by node id
  std::size_t watched_total_ = 0;                        // nodes followed, summed over connections
  std::deque<std::int64_t> to_update_;                   // watched nodes whose update lines are due
  bool updating_ = false;                                // build_updates is posted
  bool batch_scheduled_ = false;
  bool publishing_ = false;
  bool fd_limit_logged_ = false;
  bool stopping_ = false;
  // Replies the job runner finished, for the loop to queue: filled on the
  // runner's thread, which then signals finished_signal_ (the eventfd that
  // finished_wake_ reads; a duplicate, so closing the reader at stop()
  // leaves the runner's writes harmless).
  struct Finished {
    std::weak_ptr<Session> session;
    std::shared_ptr<const Deferred> deferred;
    DeferredAnswer answer;
  };
  std::mutex finished_mutex_;
  std::vector<Finished> finished_;
  base::UniqueFd finished_signal_;
  asio::posix::stream_descriptor finished_wake_{io_};
  std::uint64_t finished_count_ = 0;
  JobRunner runner_{kLongReadsWaiting};  // last: joined before what its jobs use goes
};

}  // namespace

void serve(LiveModel& model, base::Database& db, const std::string& socket_path, Synchronous synchronous) {
  Server(model, db, socket_path, synchronous).run();
}

}  // namespace bond_risk
