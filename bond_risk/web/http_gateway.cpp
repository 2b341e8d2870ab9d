#include "bond_risk/web/http_gateway.h"

#include <httplib.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "bond_risk/web/page_files.h"

namespace bond_risk::web {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kKeepAlive = std::chrono::seconds(5);  // a comment line on a quiet stream finds a closed browser
constexpr std::size_t kOtherRequestThreads = 16;
constexpr const char* kCookie = "bond_risk_token";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot read " + path + " (Chart.js, Debian package libjs-chart.js): run scripts/install-deps.sh");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Compares in time independent of where the texts differ.
bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

bool carries(const httplib::Request& req, const std::string& token) {
  if (same_secret(req.get_param_value("token"), token)) return true;
  if (same_secret(req.get_header_value("Authorization"), "Bearer " + token)) return true;
  const std::string cookies = req.get_header_value("Cookie");
  const std::string wanted = std::string(kCookie) + "=";
  for (std::size_t at = 0; (at = cookies.find(wanted, at)) != std::string::npos; at += wanted.size()) {
    if (at != 0 && cookies[at - 1] != ' ' && cookies[at - 1] != ';') continue;
    const std::size_t end = std::min(cookies.find(';', at), cookies.size());
    if (same_secret(std::string_view(cookies).substr(at + wanted.size(), end - at - wanted.size()), token)) return true;
  }
  return false;
}

}  // namespace

struct HttpGateway::Impl {
  // One browser's stream: the version its last message reflected.
  struct Stream {
    explicit Stream(Impl& g, std::string b) : gateway(g), book(std::move(b)) {}
    ~Stream() { --gateway.streams; }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    Impl& gateway;
    std::string book;
    std::uint64_t version = 0;
    Clock::time_point last_sent{};
  };

  Impl(DeskState& s, GatewayOptions o) : state(s), options(std::move(o)), chart_js(read_file(options.chart_js)) {
    const std::size_t threads = options.max_streams + kOtherRequestThreads;
    // cpp-httplib owns and deletes the queue it is given.
    server.new_task_queue = [threads] { return std::make_unique<httplib::ThreadPool>(threads).release(); };
    server.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      if (options.token.empty() || carries(req, options.token)) return httplib::Server::HandlerResponse::Unhandled;
      res.status = 401;
      res.set_content("this gateway needs its token: open the page as /?token=TOKEN (the WEB_TOKEN it was started with)\n",
                      "text/plain");
      return httplib::Server::HandlerResponse::Handled;
    });
    server.Get("/", [this](const httplib::Request& req, httplib::Response& res) {
      if (!options.token.empty() && req.has_param("token")) {
        res.set_header("Set-Cookie", std::string(kCookie) + "=" + options.token + "; HttpOnly; SameSite=Strict; Path=/");
      }
      res.set_content(kIndexHtml, "text/html; charset=utf-8");
    });
    server.Get("/desk.js", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(kDeskJs, "text/javascript; charset=utf-8");
    });
    server.Get("/desk.css", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(kDeskCss, "text/css; charset=utf-8");
    });
    server.Get("/chart.js", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(chart_js, "text/javascript; charset=utf-8");
    });
    server.Get("/api/snapshot", [this](const httplib::Request& req, httplib::Response& res) {
      std::uint64_t version = 0;
      res.set_header("Cache-Control", "no-store");
      res.set_content(state.message(0, req.get_param_value("ladder"), &version), "application/json");
    });
    server.Get("/stream", [this](const httplib::Request& req, httplib::Response& res) { open_stream(req, res); });
    if (options.port == 0) {
      port = server.bind_to_any_port(options.host);
    } else if (server.bind_to_port(options.host, options.port)) {
      port = options.port;
    }
    if (port <= 0) {
      throw std::runtime_error("cannot listen on " + options.host + ":" + std::to_string(options.port) +
                               " (address in use, or not this machine's?): choose another with --listen ADDR:PORT");
    }
  }

  void open_stream(const httplib::Request& req, httplib::Response& res) {
    if (++streams > options.max_streams) {
      --streams;
      res.status = 503;
      res.set_content("too many streams open (at most " + std::to_string(options.max_streams) +
                          "; the gateway's --max-streams)\n",
                      "text/plain");
      return;
    }
    auto stream = std::make_shared<Stream>(*this, req.get_param_value("ladder"));
    res.set_header("Cache-Control", "no-store");
    res.set_chunked_content_provider("text/event-stream", [this, stream](std::size_t, httplib::DataSink& sink) {
      return send_next(*stream, sink);
    });
  }

  // Waits for the next change (at most kKeepAlive) and sends what changed
  // since the stream's last message, no sooner than min_interval after it.
  bool send_next(Stream& s, httplib::DataSink& sink) {
    const std::uint64_t version = state.wait_past(s.version, kKeepAlive);
    if (state.stopping()) return false;
    if (version == s.version) {
      const std::string ping = ": keep-alive\n\n";
      return sink.write(ping.data(), ping.size());
    }
    std::this_thread::sleep_until(s.last_sent + options.min_interval);
    std::string message = "data: ";
    message.append(state.message(s.version, s.book, &s.version)).append("\n\n");
    s.last_sent = Clock::now();
    return sink.write(message.data(), message.size());
  }

  DeskState& state;
  GatewayOptions options;
  std::string chart_js;
  httplib::Server server;
  std::atomic<std::size_t> streams{0};
  int port = 0;
};

HttpGateway::HttpGateway(DeskState& state, GatewayOptions options) : impl_(std::make_unique<Impl>(state, std::move(options))) {}

HttpGateway::~HttpGateway() = default;

int HttpGateway::port() const { return impl_->port; }

void HttpGateway::run() { impl_->server.listen_after_bind(); }

void HttpGateway::stop() {
  impl_->state.stop();
  impl_->server.stop();
}

}  // namespace bond_risk::web
