// bin/bond_risk: dispatches to the subcommands and turns errors into one
// line on standard error and an exit code (2 for usage, 1 otherwise).
#include <cstring>
#include <iostream>
#include <span>
#include <string>
#include <string_view>

#include "base/cli_args.h"
#include "bond_risk/cli/commands.h"
#include "bond_risk/protocol/command.h"

namespace {

// An error message on one line: a newline or other control byte in what the
// user typed is shown escaped.
std::string one_line(std::string_view message) {
  std::string out;
  for (char c : message) {
    if (static_cast<unsigned char>(c) < 0x20) {
      out += c == '\n' ? "\\n" : "\\x" + std::string(1, "0123456789abcdef"[(c >> 4) & 15]) + "0123456789abcdef"[c & 15];
    } else {
      out += c;
    }
  }
  return out;
}

constexpr const char* kUsage = R"(usage: bond_risk COMMAND [OPTIONS]

A multithreaded dependency-graph bond risk calculator.

commands:
  generate   write a synthetic data set (bond_risk generate --preset 440k --out data/bond_risk_440k.db)
  run        load a database and run the full flush; then serve commands (--batch: write the results and exit)
  send       send commands to a running engine (see bond_risk send --help)
  show       print the stored results of nodes by id or name
  import     import a desk's bond list (bond_risk import bonds --csv FILE): all of it or nothing
  scenarios  revalue every book under a scenario set; P&L per scenario, VaR and expected shortfall
  plot       draw stored results with gnuplot (a book's key-rate ladder, a P&L distribution, the explain's waterfall)
  explain    print the P&L day's explain the database holds (a book's or the total's moves by cause)
  web        serve the desk's live risk page to browsers, following a running engine
  bench-events  latency percentiles of events on a running engine
  bench-load    one experiment of bench/run_events.sh against a serving engine (rates, bursts, memory, ...)

Run 'bond_risk COMMAND --help' for a command's options; 'bond_risk --version' for the
version and the git commit this binary was built from.
)";

// Set by the Makefile from the file VERSION and `git rev-parse` ("unknown" outside a git checkout).
#if !defined(BOND_RISK_VERSION) || !defined(BOND_RISK_COMMIT)
#error "build bond_risk with make: it defines BOND_RISK_VERSION and BOND_RISK_COMMIT"
#endif

}  // namespace

int main(int argc, char** argv) {
  const std::span<char* const> all(argv, static_cast<std::size_t>(argc));
  if (all.size() < 2 || std::string_view(all[1]) == "--help" || std::string_view(all[1]) == "-h" ||
      std::string_view(all[1]) == "help") {
    std::cout << kUsage;
    return all.size() < 2 ? 2 : 0;
  }
  if (std::string_view(all[1]) == "--version") {
    std::cout << "bond_risk " << BOND_RISK_VERSION << " (commit " << BOND_RISK_COMMIT << ")\n";
    return 0;
  }
  const std::string_view command = all[1];
  const std::span<char* const> args = all.subspan(2);
  try {
    if (command == "generate") return bond_risk::generate_command(args);
    if (command == "run") return bond_risk::run_command(args);
    if (command == "show") return bond_risk::show_command(args);
    if (command == "import") return bond_risk::import_command(args);
    if (command == "send") return bond_risk::send_command(args);
    if (command == "plot") return bond_risk::plot_command(args);
    if (command == "scenarios") return bond_risk::scenarios_command(args);
    if (command == "bench-events") return bond_risk::bench_events_command(args);
    if (command == "bench-load") return bond_risk::bench_load_command(args);
    if (command == "web") return bond_risk::web_command(args);
    // The engine's command of that name, read from the database.
    if (command == bond_risk::command_info(bond_risk::CommandId::explain).name) return bond_risk::explain_command(args);
    std::cerr << "bond_risk: unknown command '" << command << "' (commands: generate, run, send, show, scenarios, plot, explain, web, bench-events, bench-load; see bond_risk --help)\n";
    return 2;
  } catch (const base::UsageError& e) {
    std::cerr << "bond_risk: " << one_line(e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "bond_risk: error: " << one_line(e.what()) << "\n";
    return 1;
  }
}
