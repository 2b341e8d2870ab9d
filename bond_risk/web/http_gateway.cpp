#include "bond_risk/web/http_gateway.h"

#include <netdb.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <httplib.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "base/unique_fd.h"
#include "bond_risk/web/metrics.h"
#include "bond_risk/web/page_files.h"
#include "bond_risk/web/request_head.h"

namespace bond_risk::web {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kKeepAlive = std::chrono::seconds(5);  // a comment line on a quiet stream finds a closed browser
constexpr std::size_t kOtherRequestThreads = 16;
constexpr auto kHeadTimeout = std::chrono::seconds(5);       // from accept to the head's empty line
constexpr auto kResponseTimeout = std::chrono::seconds(10);  // to send a whole response (streams: no bound)
constexpr auto kStallTimeout = std::chrono::seconds(5);      // a read or write that cannot go on for this long ends the connection
constexpr std::size_t kMaxWaitingHeads = 512;                // a new connection past this closes the oldest still sending its head
constexpr std::size_t kMaxQueued = 256;                      // checked requests waiting for a thread; more get 503
constexpr int kSendBuffer = 32 * 1024;                       // per connection (the kernel doubles it): a stream nobody reads blocks soon

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot read " + path + " (Chart.js, Debian package libjs-chart.js): run scripts/install-deps.sh");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const char* reason(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 421: return "Misdirected Request";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
  }
}

// A whole response refusing a request: `error` as text.
std::string refusal(int status, const std::string& error) {
  const std::string body = error + "\n";
  return "HTTP/1.1 " + std::to_string(status) + " " + reason(status) + "\r\nContent-Type: text/plain\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

// Sends a refusal on a connection whose request goes no further, as far as
// the socket takes it at once (a short text always fits), and closes it.
void refuse(base::UniqueFd fd, int status, const std::string& error) {
  const std::string response = refusal(status, error);
  [[maybe_unused]] const ssize_t sent = ::send(fd.get(), response.data(), response.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  ::shutdown(fd.get(), SHUT_WR);
}

base::UniqueFd listen_on(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string name = host.starts_with("[") && host.ends_with("]") ? host.substr(1, host.size() - 2) : host;
  if (::getaddrinfo(name.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return {};
  const std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addresses(found, &::freeaddrinfo);
  for (const addrinfo* a = found; a; a = a->ai_next) {
    base::UniqueFd fd(::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol));
    const int yes = 1;
    if (fd.get() < 0 || ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes) != 0 ||
        ::bind(fd.get(), a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd.get(), SOMAXCONN) != 0) {
      continue;
    }
    return fd;
  }
  return {};
}

int bound_port(int fd) {
  sockaddr_storage addr{};
  socklen_t size = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &size) != 0) return 0;
  char port[16] = "";
  if (::getnameinfo(reinterpret_cast<sockaddr*>(&addr), size, nullptr, 0, port, sizeof port, NI_NUMERICSERV) != 0) return 0;
  return std::atoi(port);
}

// cpp-httplib's handling of one request (routing, the response) on a
// connection whose head the gateway read and checked (not a stream).
class Router : public httplib::Server {
 public:
  using httplib::Server::process_request;
};

// One accepted connection as cpp-httplib reads and writes it: the head the
// gateway read first, then the socket, each read or write waiting at most
// kStallTimeout and never past `deadline`. Closes the socket when destroyed.
class Connection final : public httplib::Stream {
 public:
  Connection(base::UniqueFd fd, std::string received, Clock::time_point deadline)
      : fd_(std::move(fd)), received_(std::move(received)), deadline_(deadline) {}
  ~Connection() override { ::shutdown(fd_.get(), SHUT_WR); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  bool is_readable() const override { return read_ < received_.size() || wait(POLLIN); }
  bool is_writable() const override { return wait(POLLOUT); }

  ssize_t read(char* ptr, std::size_t size) override {
    if (read_ < received_.size()) {
      const std::size_t n = std::min(size, received_.size() - read_);
      std::memcpy(ptr, received_.data() + read_, n);
      read_ += n;
      return static_cast<ssize_t>(n);
    }
    return retry(POLLIN, [&] { return ::recv(fd_.get(), ptr, size, 0); });
  }
  ssize_t write(const char* ptr, std::size_t size) override {
    return retry(POLLOUT, [&] { return ::send(fd_.get(), ptr, size, MSG_NOSIGNAL); });
  }
  // All of `text`; false when the time is up or the client has gone.
  bool write_all(std::string_view text) {
    for (ssize_t n = 0; !text.empty(); text.remove_prefix(static_cast<std::size_t>(n))) {
      if ((n = write(text.data(), text.size())) <= 0) return false;
    }
    return true;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override { address(::getpeername, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { address(::getsockname, ip, port); }
  socket_t socket() const override { return fd_.get(); }

 private:
  // Waits until the socket is ready for `events`: false when the time is up.
  bool wait(short events) const {
    const auto until = std::min(Clock::now() + kStallTimeout, deadline_);
    for (;;) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now()).count();
      if (left <= 0) return false;
      pollfd p{fd_.get(), events, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(left));
      if (ready > 0) return true;  // ready, or failed: the call that follows says which
      if (ready == 0 || errno != EINTR) return false;
    }
  }
  // `call` (a non-blocking recv or send) once the socket is ready for it.
  template <typename Call>
  ssize_t retry(short events, Call call) const {
    while (wait(events)) {
      const ssize_t n = call();
      if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return n;
    }
    return -1;
  }
  template <typename Name>
  void address(Name name, std::string& ip, int& port) const {
    sockaddr_storage addr{};
    socklen_t size = sizeof addr;
    char host[NI_MAXHOST] = "", service[16] = "";
    if (name(fd_.get(), reinterpret_cast<sockaddr*>(&addr), &size) == 0 &&
        ::getnameinfo(reinterpret_cast<sockaddr*>(&addr), size, host, sizeof host, service, sizeof service,
                      NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
      ip = host, port = std::atoi(service);
    }
  }

  base::UniqueFd fd_;
  std::string received_;
  std::size_t read_ = 0;
  Clock::time_point deadline_;
};

// A connection still sending its head.
struct Waiting {
  base::UniqueFd fd;
  std::string received;
  Clock::time_point deadline;
};

// The worker threads; joined (after their last job) when destroyed.
struct Workers {
  explicit Workers(std::size_t n) : pool(n) {}
  ~Workers() { pool.shutdown(); }
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;
  httplib::ThreadPool pool;
};

}  // namespace

struct HttpGateway::Impl {
  // One browser's stream: the version its last message reflected.
  struct Stream {
    std::string book;
    std::uint64_t version = 0;
    Clock::time_point last_sent{};
  };

  Impl(DeskState& s, GatewayOptions o)
      : state(s), options(std::move(o)), chart_js(read_file(options.chart_js)), wake(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    listener = listen_on(options.host, options.port);
    port = listener.get() < 0 ? 0 : bound_port(listener.get());
    if (port <= 0 || wake.get() < 0) {
      throw std::runtime_error("cannot listen on " + options.host + ":" + std::to_string(options.port) +
                               " (address in use, or not this machine's?): choose another with --listen ADDR:PORT");
    }
    rules.token = options.token;
    rules.hosts = accepted_hosts(options.host, port);
    router.Get("/", [this](const httplib::Request& req, httplib::Response& res) {
      if (!options.token.empty() && req.has_param("token")) {
        res.set_header("Set-Cookie", std::string(kTokenCookie) + "=" + options.token + "; HttpOnly; SameSite=Strict; Path=/");
      }
      res.set_content(kIndexHtml, "text/html; charset=utf-8");
    });
    router.Get("/desk.js", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(kDeskJs, "text/javascript; charset=utf-8");
    });
    router.Get("/desk.css", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(kDeskCss, "text/css; charset=utf-8");
    });
    router.Get("/chart.js", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(chart_js, "text/javascript; charset=utf-8");
    });
    router.Get("/api/snapshot", [this](const httplib::Request& req, httplib::Response& res) {
      std::uint64_t version = 0;
      res.set_header("Cache-Control", "no-store");
      res.set_content(state.message(0, req.get_param_value("ladder"), &version), "application/json");
    });
    router.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      res.set_header("Cache-Control", "no-store");
      res.set_content(metrics_text(state.health(), streams.load(), state.books()), kMetricsContentType);
    });
    router.Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
      const DeskState::Health health = state.health();
      res.set_header("Cache-Control", "no-store");
      if (!health.connected) res.status = 503;
      res.set_content(health.connected          ? "ok\n"
                      : health.error.empty() ? "the gateway has not reached the engine yet\n"
                                             : "the engine is unreachable: " + health.error + "\n",
                      "text/plain; charset=utf-8");
    });
  }

  // Accepts connections and reads their heads on this thread, all at once
  // (a slow client costs a socket and its bytes, never a thread); a checked
  // request goes to a worker thread. Until stop().
  void run() {
    Workers workers(options.max_streams + kOtherRequestThreads);
    std::deque<Waiting> waiting;  // oldest first
    std::vector<pollfd> polled;
    auto accept_again = Clock::now();
    for (;;) {
      const auto now = Clock::now();
      while (!waiting.empty() && waiting.front().deadline <= now) {  // deadlines go in accept order
        refuse(std::move(waiting.front().fd), 408,
               "the request's head took longer than " + std::to_string(kHeadTimeout.count()) + " s to arrive");
        waiting.pop_front();
      }
      polled.assign({{wake.get(), POLLIN, 0}, {now >= accept_again ? listener.get() : -1, POLLIN, 0}});
      for (const Waiting& w : waiting) polled.push_back({w.fd.get(), POLLIN, 0});
      auto until = waiting.empty() ? now + std::chrono::seconds(1) : waiting.front().deadline;
      if (now < accept_again) until = std::min(until, accept_again);
      const auto timeout = std::chrono::ceil<std::chrono::milliseconds>(until - now).count();
      if (::poll(polled.data(), polled.size(), static_cast<int>(std::max<std::int64_t>(timeout, 0))) < 0 && errno != EINTR) {
        throw std::runtime_error(std::string("the gateway cannot wait for its connections: ") + std::strerror(errno));
      }
      if (polled[0].revents != 0) return;  // stop()
      // The heads first (the list's positions are those of polled[2...]), then new connections.
      std::size_t i = 2;
      for (auto it = waiting.begin(); it != waiting.end(); ++i) {
        it = polled[i].revents != 0 && !read_head(*it, workers.pool) ? waiting.erase(it) : std::next(it);
      }
      if (polled[1].revents != 0 && !accept_all(waiting)) accept_again = Clock::now() + std::chrono::milliseconds(100);
    }
  }

  // Takes every connection waiting on the listener; false when out of descriptors.
  bool accept_all(std::deque<Waiting>& waiting) {
    for (;;) {
      base::UniqueFd fd(::accept4(listener.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
      if (fd.get() < 0) {
        if (errno == EMFILE || errno == ENFILE) {
          if (waiting.empty()) return false;
          waiting.pop_front();  // the oldest head still coming makes room
          continue;
        }
        if (errno == EINTR || errno == ECONNABORTED) continue;
        return true;  // none left (another failure: tried again at the next poll)
      }
      if (waiting.size() == kMaxWaitingHeads) waiting.pop_front();
      waiting.push_back({std::move(fd), std::string(), Clock::now() + kHeadTimeout});
    }
  }

  // Reads what `w` sent: false once the connection is handed on or closed.
  bool read_head(Waiting& w, httplib::TaskQueue& workers) {
    char buffer[4096];
    const std::size_t room = kMaxHeadBytes + 1 - std::min(w.received.size(), kMaxHeadBytes);
    const ssize_t got = ::recv(w.fd.get(), buffer, std::min(sizeof buffer, room), 0);
    if (got < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    if (got == 0) return false;  // closed before its head ended
    w.received.append(buffer, static_cast<std::size_t>(got));
    const std::size_t end = head_end(w.received);
    if (end == 0 && w.received.size() <= kMaxHeadBytes) return true;
    const CheckedHead head = check_head(std::string_view(w.received).substr(0, end == 0 ? w.received.size() : end), rules);
    if (head.status != 0) {
      refuse(std::move(w.fd), head.status, head.error);
      return false;
    }
    if (busy.load() >= options.max_streams + kOtherRequestThreads + kMaxQueued) {
      refuse(std::move(w.fd), 503, "the gateway is busy: try again in a moment");
      return false;
    }
    ::setsockopt(w.fd.get(), SOL_SOCKET, SO_SNDBUF, &kSendBuffer, sizeof kSendBuffer);
    const auto deadline = head.path == "/stream" ? Clock::time_point::max() : Clock::now() + kResponseTimeout;
    auto connection = std::make_shared<Connection>(std::move(w.fd), head.head, deadline);
    ++busy;
    workers.enqueue([this, connection, path = head.path, book = query_param(head.query, "ladder")] {
      if (path == "/stream") {
        serve_stream(*connection, book);
      } else {
        bool closed = false;
        router.process_request(*connection, true, closed, {});
      }
      --busy;
    });
    return false;
  }

  // A Server-Sent Events stream, until the client goes, its writes stall or the gateway stops.
  void serve_stream(Connection& c, std::string book) {
    if (++streams > options.max_streams) {
      --streams;
      c.write_all(refusal(503, "too many streams open (at most " + std::to_string(options.max_streams) +
                                   "; the gateway's --max-streams)"));
      return;
    }
    Stream s{std::move(book)};
    if (!s.book.empty()) state.show_positions(s.book);
    if (c.write_all("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
                    "Connection: close\r\n\r\n")) {
      while (send_next(s, c)) {
      }
    }
    if (!s.book.empty()) state.hide_positions(s.book);
    --streams;
  }

  // Waits for the next change (at most kKeepAlive) and sends what changed
  // since the stream's last message, no sooner than min_interval after it.
  bool send_next(Stream& s, Connection& c) {
    const std::uint64_t version = state.wait_past(s.version, kKeepAlive);
    if (state.stopping()) return false;
    if (version == s.version) return c.write_all(": keep-alive\n\n");
    std::this_thread::sleep_until(s.last_sent + options.min_interval);
    std::string message = "data: ";
    message.append(state.message(s.version, s.book, &s.version)).append("\n\n");
    s.last_sent = Clock::now();
    return c.write_all(message);
  }

  DeskState& state;
  GatewayOptions options;
  std::string chart_js;
  base::UniqueFd wake;  // readable once stop() was called
  base::UniqueFd listener;
  HeadRules rules;
  Router router;
  std::atomic<std::size_t> streams{0};
  std::atomic<std::size_t> busy{0};  // requests handed to the workers and not done
  int port = 0;
};

HttpGateway::HttpGateway(DeskState& state, GatewayOptions options) : impl_(std::make_unique<Impl>(state, std::move(options))) {}

HttpGateway::~HttpGateway() = default;

int HttpGateway::port() const { return impl_->port; }

void HttpGateway::run() { impl_->run(); }

void HttpGateway::stop() {
  impl_->state.stop();
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(impl_->wake.get(), &one, sizeof one);
}

}  // namespace bond_risk::web
