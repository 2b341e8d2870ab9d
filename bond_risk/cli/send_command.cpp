#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <thread>

#include "base/cli_args.h"
#include "bond_risk/cli/commands.h"
#include "bond_risk/cli/settings.h"
#include "base/unix_socket.h"

namespace bond_risk {

namespace {

const base::CommandSpec kSpec = {
    "send",
    "[--socket PATH] [--db PATH] [--conf PATH] [COMMAND ARGS...]",
    "Sends one command to the running engine and prints its JSON reply; with no command, sends the lines\n"
    "of standard input (one command each, pipelined) and prints one reply per line. Exits 1 if any reply\n"
    "is not ok.\n\n"
    "commands:\n"
    "  bump-curve CURVE BP               add BP basis points to every input rate of a curve (name or id)\n"
    "  set-rate CURVE IDX VALUE          set one input rate\n"
    "  roll-date YYYY-MM-DD [CALENDAR]   set today (of every calendar, or of one)\n"
    "  amend-trade ID field=value...     outright: quantity trade_price buy_sell bond_id trade_date name;\n"
    "                                    repo: notional start_cash rate start_date end_date buy_sell cash_ccy\n"
    "                                    bond_id calendar_id ir_curve_id name\n"
    "  add-outright field=value... [book=NAME]   bond_id trade_price quantity buy_sell required\n"
    "  add-repo field=value... [book=NAME]       bond_id end_date notional start_cash rate buy_sell cash_ccy\n"
    "                                            required; calendar, curve and start_date default from the bond\n"
    "  remove-trade ID                   remove a trade (its books recalculate)\n"
    "  get ID|NAME                       a node's type, status, reason and values\n"
    "  book NAME                         a book's totals and member count\n"
    "  stats                             counts, events applied, recalculation latency percentiles\n"
    "  reload                            re-read the database after changes by other programs (also noticed\n"
    "                                    by itself within 100 ms, and on SIGUSR1)\n"
    "  shutdown                          stop the engine",
    {
        {"socket", "PATH", "the engine's socket (CONTROL_SOCKET; default: the database path + .sock)"},
        {"db", "PATH", "database the engine serves, to find its socket (APP_DB)"},
        {"conf", "PATH", "conf file of KEY=VALUE lines (default " + std::string(kDefaultConf) + ")"},
    },
};

bool is_ok(const std::string& reply) { return reply.rfind("{\"ok\":true", 0) == 0; }

}  // namespace

int send_command(std::span<char* const> args) {
  const std::optional<base::ParsedArgs> parsed = base::parse_command(kSpec, args);
  if (!parsed) return 0;
  const base::ParsedArgs& a = *parsed;
  const Settings settings = load_settings(a, [](const char* key) { return std::getenv(key); });
  const base::UniqueFd fd = base::connect_unix(control_socket(settings));

  std::jthread writer;
  if (a.positional.empty()) {
    // Pipelined: lines go out while replies come back, so the engine can commit them together.
    writer = std::jthread([&fd] {
      for (std::string line; std::getline(std::cin, line);) {
        if (!base::write_all(fd.get(), line + "\n")) break;
      }
      ::shutdown(fd.get(), SHUT_WR);
    });
  } else {
    std::string line;
    for (const std::string& word : a.positional) line += (line.empty() ? "" : " ") + word;
    if (!base::write_all(fd.get(), line + "\n")) throw std::runtime_error("the engine closed the connection");
    ::shutdown(fd.get(), SHUT_WR);
  }
  bool all_ok = true;
  std::string pending;
  char buf[65536];
  for (ssize_t n; (n = ::read(fd.get(), buf, sizeof buf)) > 0;) {
    pending.append(buf, static_cast<std::size_t>(n));
    for (std::size_t nl; (nl = pending.find('\n')) != std::string::npos; pending.erase(0, nl + 1)) {
      const std::string reply = pending.substr(0, nl);
      all_ok &= is_ok(reply);
      std::cout << reply << "\n";
    }
  }
  return all_ok ? 0 : 1;
}

}  // namespace bond_risk
