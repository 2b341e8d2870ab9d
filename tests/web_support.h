// Helpers for the tests of the desk page: an engine on a tiny preset with a
// `bond_risk web` gateway following it, and HTTP requests to either.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "base/json.h"
#include "base/unique_fd.h"
#include "tests/test_support.h"

namespace test {

// A TCP connection to a gateway, written and read as raw bytes (what a
// browser never sends: slow heads, huge heads, streams nobody reads).
class RawClient {
 public:
  // `receive_buffer` > 0: the socket's SO_RCVBUF, set before connecting.
  RawClient(const std::string& host, int port, int receive_buffer = 0);
  // Writes all of `bytes`; false once the gateway closed the connection.
  bool send(const std::string& bytes);
  // What the gateway sends until it closes the connection, `limit` passes or
  // `max_bytes` came.
  std::string receive(std::chrono::milliseconds limit, std::size_t max_bytes = 1 << 20);

 private:
  base::UniqueFd fd_;
};

// A process's resident memory in kB (/proc/PID/status VmRSS).
long rss_kb(int pid);

// A free TCP port on 127.0.0.1 (bound and released: another program may take it first, rarely).
int free_port();

// An engine serving a fresh tiny database and a gateway following it.
struct Desk {
  TempDir dir;
  std::string db = dir.path("desk.db"), sock = dir.path("desk.sock");
  std::unique_ptr<EngineProcess> engine;
  std::unique_ptr<Process> web;
  std::string host;
  int port = 0;

  // `with_engine` false starts only the gateway (start_engine() later);
  // `generate` the arguments of `bond_risk generate` but --out.
  explicit Desk(bool with_engine = true, const std::vector<std::string>& web_args = {},
                const std::vector<std::string>& web_env = {}, const std::string& generate = "--preset tiny");
  void start_engine();
  // `send ARGS` through the engine's socket, its reply parsed.
  base::Json send(const std::string& args) const;
  // GET `path` on the gateway: status and body (status -1 when it cannot connect).
  std::pair<int, std::string> get(const std::string& path, const std::vector<std::pair<std::string, std::string>>& headers = {}) const;
  base::Json snapshot(const std::string& book = "") const;
  std::string log() const { return slurp(dir.path("web.log")); }
};

}  // namespace test
