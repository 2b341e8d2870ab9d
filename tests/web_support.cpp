#include "tests/web_support.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <regex>

#include "base/unique_fd.h"

namespace test {

int free_port() {
  const base::UniqueFd fd(::socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof addr;
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &size) != 0) {
    throw std::runtime_error("cannot find a free port");
  }
  return ntohs(addr.sin_port);
}

RawClient::RawClient(const std::string& host, int port, int receive_buffer) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  ::inet_pton(AF_INET, host.c_str(), &addr.sin_addr);
  if (receive_buffer > 0) ::setsockopt(fd_.get(), SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
  if (::connect(fd_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    throw std::runtime_error("cannot connect to " + host + ":" + std::to_string(port));
  }
}

bool RawClient::send(const std::string& bytes) {
  for (std::size_t at = 0; at < bytes.size();) {
    const ssize_t n = ::send(fd_.get(), bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
    if (n <= 0) return false;
    at += static_cast<std::size_t>(n);
  }
  return true;
}

std::string RawClient::receive(std::chrono::milliseconds limit, std::size_t max_bytes) {
  const auto until = std::chrono::steady_clock::now() + limit;
  std::string out;
  char buffer[65536];
  while (out.size() < max_bytes) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    pollfd p{fd_.get(), POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    const ssize_t n = ::recv(fd_.get(), buffer, sizeof buffer, 0);
    if (n <= 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
  }
  return out;
}

long rss_kb(int pid) {
  const std::string status = slurp("/proc/" + std::to_string(pid) + "/status");
  const std::size_t at = status.find("VmRSS:");
  return at == std::string::npos ? -1 : std::stol(status.substr(at + 6));
}

Desk::Desk(bool with_engine, const std::vector<std::string>& web_args, const std::vector<std::string>& web_env,
           const std::string& generate) {
  if (run_cli("generate " + generate + " --out " + db).exit_code != 0) throw std::runtime_error("generate failed");
  if (with_engine) start_engine();
  std::vector<std::string> argv = {std::getenv("BOND_RISK_BIN"), "web", "--socket", sock};
  if (web_args.empty()) argv.insert(argv.end(), {"--listen", "127.0.0.1:0"});
  argv.insert(argv.end(), web_args.begin(), web_args.end());
  web = std::make_unique<Process>(argv, dir.path("web.log"), web_env);
  // The gateway prints its URL once it listens.
  const std::regex url(R"(http://([0-9.]+):([0-9]+)/)");
  std::smatch m;
  if (!eventually([&] {
        const std::string text = log();
        if (!std::regex_search(text, m, url)) return false;
        host = m[1], port = std::stoi(m[2]);
        return true;
      })) {
    throw std::runtime_error("the gateway printed no URL: " + log());
  }
  if (host == "0.0.0.0") host = "127.0.0.1";
}

void Desk::start_engine() {
  engine = std::make_unique<EngineProcess>(db, sock, dir.path("engine.log"));
  if (!engine->ready()) throw std::runtime_error("the engine did not start: " + slurp(dir.path("engine.log")));
}

base::Json Desk::send(const std::string& args) const {
  const CliResult r = run_cli("send --socket " + sock + " " + args);
  return base::Json::parse(r.out.substr(0, r.out.find('\n')));
}

std::pair<int, std::string> Desk::get(const std::string& path,
                                      const std::vector<std::pair<std::string, std::string>>& headers) const {
  httplib::Client client(host, port);
  httplib::Headers h(headers.begin(), headers.end());
  const httplib::Result r = client.Get(path, h);
  if (!r) return {-1, ""};
  return {r->status, r->body};
}

base::Json Desk::snapshot(const std::string& book) const {
  const auto [status, body] = get("/api/snapshot?ladder=" + book);
  if (status != 200) throw std::runtime_error("/api/snapshot answered " + std::to_string(status) + ": " + body);
  return base::Json::parse(body);
}

}  // namespace test
