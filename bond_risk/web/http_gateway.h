// The desk page's HTTP side: serves the page, Chart.js and a Server-Sent
// Events stream of a DeskState to browsers (cpp-httplib).
//
// Routes: /, /desk.js, /desk.css, /chart.js (the installed libjs-chart.js
// file); /stream?ladder=NAME, one `data: {json}` message per change,
// conflated to at most one per `min_interval` (a stream that falls behind
// gets the latest values, never a queue), with book NAME's ladder and, while
// the stream is open, its largest positions (DeskState::show_positions);
// /api/snapshot?ladder=NAME, the same message with everything, once (the
// positions only while a stream shows that book); /metrics, the gateway's and the engine's
// figures for Prometheus (metrics.h); /healthz, 200 "ok" while the feed
// reaches the engine, else 503 and why. Read-only: nothing is sent to the engine.
//
// With a token, every request must carry it: ?token=T, the header
// "Authorization: Bearer T", or the cookie the page gets when opened with
// ?token=T.
//
// The gateway accepts connections and reads every request's head itself on
// run()'s thread, all of them at once with a deadline, and checks it
// (request_head.h: size, header count, Host, token) before cpp-httplib sees
// it: a slow or greedy client costs a socket, never a thread. A checked
// request runs on a worker thread (max_streams streams, plus threads for the
// other requests); each read or write that cannot go on for 5 s ends its
// connection (a stream nobody reads frees its place), and a response that is
// not a stream must be sent within 10 s. One request per connection.
// Owns its listening socket and worker threads (joined when destroyed);
// borrows `state`, which must outlive it. One thread constructs, runs and
// destroys it; stop() may come from any thread (web's signal thread).
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "bond_risk/web/desk_state.h"

namespace bond_risk::web {

struct GatewayOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: any free port
  std::string token;  // "" serves anyone who can connect
  std::size_t max_streams = 100;
  std::chrono::milliseconds min_interval{100};
  std::string chart_js = "/usr/share/javascript/chart.js/chart.min.js";
};

class HttpGateway {
 public:
  // Reads Chart.js and binds the address; throws std::runtime_error saying
  // what is missing or taken. `state` must outlive the gateway.
  HttpGateway(DeskState& state, GatewayOptions options);
  ~HttpGateway();
  HttpGateway(const HttpGateway&) = delete;
  HttpGateway& operator=(const HttpGateway&) = delete;

  int port() const;  // the bound port
  // Serves until stop() (from any thread, also before run()).
  void run();
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bond_risk::web
