// Run settings, gathered in rising precedence from built-in defaults, the
// conf file, environment variables (trad4's names) and command-line flags.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "base/cli_args.h"
#include "bond_risk/db/synchronous.h"
#include "engine/scheduler.h"

namespace bond_risk {

inline constexpr const char* kDefaultConf = "conf/bond_risk.conf";

// The --conf option, as every subcommand that reads settings offers it.
inline const base::OptionSpec kConfOption{"conf", "PATH",
                                          "conf file of KEY=VALUE lines (default " + std::string(kDefaultConf) + ")"};

// --socket and --db, as the commands that talk to a running engine offer them.
inline const base::OptionSpec kSocketOption{"socket", "PATH",
                                            "the engine's socket (CONTROL_SOCKET; default: the database path + .sock)"};
inline const base::OptionSpec kServedDbOption{"db", "PATH", "database the engine serves, to find its socket (APP_DB)"};

struct Settings {
  std::string db = "data/bond_risk_440k.db";  // APP_DB, --db
  // NUM_THREADS (default: online CPUs), SCHEDULER, WAIT_POLICY, SPIN_US,
  // CPU_AFFINITY (default: all), MASTER_CPU
  engine::SchedulerOptions scheduler;
  bool batch = false;         // BATCH_MODE, --batch
  std::string socket;         // CONTROL_SOCKET, --socket; default: the database path + ".sock"
  bool timing_debug = true;   // TIMING_DEBUG: per-tier scheduling statistics in the text output
  std::size_t grain = 4096;   // GRAIN, --grain: work per chunk, in outright-trade units
  bool key_rates = true;      // KEY_RATES, --key-rates: flushes compute key-rate ladders
  bool quote_analytics = true;  // QUOTE_ANALYTICS, --quote-analytics: flushes compute bonds' quote analytics
  std::size_t flushes = 1;    // FLUSHES, --flushes: full flushes at start-up (the first and its repeats)
  Synchronous synchronous = Synchronous::full;  // SYNCHRONOUS, --synchronous: the serving engine's commits
};

// Returns the value of an environment variable, or nullptr.
using EnvLookup = std::function<const char*(const char*)>;

// The conf file is flags' --conf, else kDefaultConf if it exists. Throws
// UsageError naming the setting, its source and what it must be.
Settings load_settings(const base::ParsedArgs& flags, const EnvLookup& env);

// A subcommand's flags, parsed by its spec, and the settings they, the
// process's environment and the conf file give.
struct Invocation {
  base::ParsedArgs args;
  Settings settings;
};
// The preamble every subcommand that reads settings shares: nullopt after
// --help, which printed the help (the command then exits 0). Throws
// UsageError naming what is wrong.
std::optional<Invocation> invocation(const base::CommandSpec& spec, std::span<char* const> argv);

// The control socket of the engine serving settings.db.
std::string control_socket(const Settings& settings);

// The "KEY  meaning" lines for --help.
std::string settings_help();

}  // namespace bond_risk
