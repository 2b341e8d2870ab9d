// bond_risk web: the desk page's gateway, a process of its own that follows
// a running engine through its socket and serves browsers.
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "base/cli_args.h"
#include "bond_risk/cli/commands.h"
#include "bond_risk/cli/settings.h"
#include "bond_risk/web/engine_feed.h"
#include "bond_risk/web/http_gateway.h"

namespace bond_risk {

namespace {

base::CommandSpec spec() {
  return {
      "web",
      "[--socket PATH | --db PATH] [--conf PATH] [--listen ADDR:PORT] [--max-streams N]",
      "Serves the desk's live risk page: every book's values and totals, the selected book's key-rate\n"
      "ladder and the event feed, updated as the engine's events arrive (at most 10 times a second per\n"
      "browser). A gateway of its own: it follows the running engine through its socket like any client\n"
      "(and reconnects by itself), so browsers never touch the engine's event loop. Read-only.\n\n"
      "Listens on 127.0.0.1:8080 unless told otherwise; any other address needs a token, set as\n"
      "WEB_TOKEN in the environment, which every request must carry (open the page as /?token=TOKEN).\n"
      "Prints the page's URL on standard output once it listens; stops on SIGINT or SIGTERM.",
      {
          kSocketOption,
          kServedDbOption,
          kConfOption,
          {"listen", "ADDR:PORT", "address and port to serve on (default 127.0.0.1:8080; port 0: any free port)"},
          {"max-streams", "N", "browsers' streams served at once (default 100; more get 503)"},
      },
  };
}

bool loopback(const std::string& host) { return host == "127.0.0.1" || host == "localhost" || host == "::1"; }

}  // namespace

int web_command(std::span<char* const> args) {
  const std::optional<Invocation> invoked = invocation(spec(), args);
  if (!invoked) return 0;
  const base::ParsedArgs& a = invoked->args;
  const Settings& settings = invoked->settings;

  web::GatewayOptions options;
  const std::string listen = a.get("listen", "127.0.0.1:8080");
  const std::size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0) throw base::UsageError("--listen must be ADDR:PORT, not '" + listen + "'");
  options.host = listen.substr(0, colon);
  options.port = static_cast<int>(base::parse_integer(listen.substr(colon + 1), 0, 65535, "--listen's port"));
  options.max_streams = static_cast<std::size_t>(base::parse_integer(a.get("max-streams", "100"), 1, 10000, "--max-streams"));
  if (const char* token = std::getenv("WEB_TOKEN")) options.token = token;
  if (!loopback(options.host) && options.token.empty()) {
    throw base::UsageError("listening on " + options.host +
                           " lets other machines in: set a token in WEB_TOKEN (every request must then carry it)");
  }

  // SIGINT and SIGTERM are taken by a thread of their own, which stops the server.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  web::DeskState state;
  web::HttpGateway gateway(state, options);
  const std::string socket = control_socket(settings);
  web::EngineFeed feed(socket, state);
  std::jthread signals([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    gateway.stop();
  });
  std::cout << "http://" << (options.host.find(':') != std::string::npos ? "[" + options.host + "]" : options.host) << ":"
            << gateway.port() << "/" << std::endl;
  std::cerr << "bond_risk web: serving the desk page for the engine on " << socket
            << (options.token.empty() ? "" : " (every request must carry WEB_TOKEN)") << "\n";
  gateway.run();
  if (!state.stopping()) {  // the server ended by itself: wake the signal thread
    pthread_kill(signals.native_handle(), SIGTERM);
  }
  std::cerr << "bond_risk web: stopped\n";
  return 0;
}

}  // namespace bond_risk
