#include <csignal>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "bond_risk/lab/bandwidth.h"
#include "bond_risk/cli/commands.h"
#include "bond_risk/cli/flush_report.h"
#include "bond_risk/cli/settings.h"
#include "bond_risk/db/database_lock.h"
#include "bond_risk/db/event_log.h"
#include "bond_risk/db/loader.h"
#include "bond_risk/db/result_writer.h"
#include "bond_risk/live/control_server.h"
#include "bond_risk/live/live_model.h"
#include "bond_risk/model/store/published_values.h"
#include "engine/scheduler.h"

namespace bond_risk {

namespace {

base::CommandSpec spec() {
  return {
      "run",
      "[--db PATH] [--threads N] [--batch] [--conf PATH] [--json PATH] [--grain N] [--flushes K]\n"
      "                     [--scheduler S] [--wait W] [--spin-us N] [--affinity CPUS] [--master-cpu N]\n"
      "                     [--key-rates 0|1] [--memory-floor] [--synchronous S]",
      "Loads the database and runs the full flush: every node calculated once, tier by tier, by a master\n"
      "thread and NUM_THREADS workers. Prints the time per tier and the counts per type and status.\n"
      "With --batch it then writes every node's status and results to the results database beside it\n"
      "(DB.results.db for DB.db, never synced: a file from before a reboot is replaced; one\n"
      "transaction) and exits.\n"
      "Without --batch it keeps running: it serves commands on a Unix socket (CONTROL_SOCKET, default the\n"
      "database path + .sock; see bond_risk send --help), recalculates what each one affects, acknowledges\n"
      "it once its input is durable and writes the results behind it to DB.results.db (never synced), until\n"
      "'bond_risk send shutdown', SIGINT or SIGTERM (SIGUSR1 and SIGHUP: re-read other programs' changes).\n"
      "Either way the database file is locked: a second engine or batch run on it is refused.\n\n"
      "Settings, in rising precedence: defaults, the conf file (" +
          std::string(kDefaultConf) + " or --conf), environment variables, flags:\n" + settings_help(),
      {
          {"db", "PATH", "database to load (APP_DB)"},
          {"threads", "N", "worker threads 0..4096; 0 = the master calculates alone (NUM_THREADS)"},
          {"batch", "", "write the results to the database and exit (BATCH_MODE=1)"},
          kConfOption,
          {"json", "PATH", "also write the run's figures as JSON to PATH"},
          {"grain", "N", "work per chunk in outright-trade units; less than this runs on the master (GRAIN)"},
          {"flushes", "K", "run the full flush K times and print their median, min and mean (FLUSHES)"},
          {"key-rates", "0|1", "1: flushes also compute key-rate ladders of bonds and books (default); 0: not (KEY_RATES)"},
          {"quote-analytics", "0|1", "1: flushes also compute bonds' yields, durations, z-spreads, cs01 (default); 0: not (QUOTE_ANALYTICS)"},
          {"memory-floor", "", "measure the memory bandwidth; print the flush's floor (bytes / bandwidth) and ratio"},
          {"scheduler", "S", "pthreads or tbb (SCHEDULER)"},
          {"wait", "W", "pthreads idle wait: block, busy or hybrid (WAIT_POLICY)"},
          {"spin-us", "N", "microseconds to spin before parking: hybrid, and block between a flush's tiers (SPIN_US)"},
          {"affinity", "CPUS",
           "pthreads: pin worker i to the i-th CPU of a list like 0,1 or 0-15, or all (the default); --affinity '' "
           "pins none (CPU_AFFINITY)"},
          {"master-cpu", "N", "pthreads: pin the master thread to CPU N (MASTER_CPU)"},
          {"socket", "PATH", "control socket when serving (CONTROL_SOCKET; default DB.sock)"},
          {"synchronous", "S", "serving: FULL (durable, default), NORMAL or OFF; see SYNCHRONOUS (SYNCHRONOUS)"},
      },
  };
}

}  // namespace

int run_command(std::span<char* const> args) {
  const base::CommandSpec cmd = spec();
  const std::optional<Invocation> invoked = invocation(cmd, args);
  if (!invoked) return 0;
  const base::ParsedArgs& a = invoked->args;
  const Settings& settings = invoked->settings;
  if (!a.positional.empty()) throw base::UsageError("run: unexpected argument '" + a.positional[0] + "'");

  std::signal(SIGPIPE, SIG_IGN);  // a reader of standard error that went away must not kill the engine

  // Declared before the database so that it is released after it (see database_lock.h).
  const std::string socket = control_socket(settings);
  const DatabaseLock lock(settings.db, settings.batch ? "a batch run (bond_risk run --batch) writing its results"
                                                      : "the engine serving " + socket +
                                                            " (stop it with: bond_risk send --socket " + socket +
                                                            " shutdown)");
  base::Database db(settings.db, base::Database::Mode::read_write);
  RunReport report;
  report.db = settings.db;
  report.scheduler = settings.scheduler;
  report.grain = settings.grain;
  const base::Stopwatch load_watch;
  Loaded loaded = load(db);
  loaded.store.with_key_rates = settings.key_rates;
  loaded.store.with_quote_analytics = settings.quote_analytics;
  LiveModel model(std::move(loaded.store), settings.scheduler, settings.grain);
  report.load_seconds = load_watch.seconds();
  for (const std::string& w : loaded.warnings) std::cerr << "bond_risk: warning: " << w << "\n";

  report.flush = model.flush_all();
  report.flush_seconds.push_back(report.flush.seconds);
  for (std::size_t k = 1; k < settings.flushes; ++k) report.flush_seconds.push_back(model.flush_all().seconds);
  report.digest = results_digest(model.store());
  report.bytes = full_flush_bytes(model.store());
  if (a.has("memory-floor")) {
    // As many threads as calculate at once (with workers, the master only waits).
    report.bandwidth_threads =
        std::max<std::size_t>(1, std::min(settings.scheduler.threads, engine::runnable_threads(settings.scheduler)));
    report.bandwidth = measure_bandwidth(report.bandwidth_threads);
  }
  print_report(std::cout, report, model.store(), model.graph(), settings.timing_debug);
  if (a.has("json")) write_json(a.get("json", ""), report, model.store());

  if (settings.batch) {
    const base::Stopwatch write_watch;
    const std::string results = write_all_results(settings.db, model.store(), model.graph(), last_event(db));
    std::cout << "Wrote results of " << model.store().size() << " objects to " << results << " in "
              << write_watch.seconds() << " seconds.\n"
              << "Next: bond_risk show BOOK (a book's stored results, by name or id), bond_risk run --db " << settings.db
              << " (serve it: then bond_risk send COMMAND), make web (the desk page), bond_risk --help.\n";
  } else {
    std::cout.flush();
    serve(model, db, socket, settings.synchronous);
  }
  return 0;
}

}  // namespace bond_risk
