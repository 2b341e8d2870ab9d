// bin/bond_risk_mpi: `bond_risk scenarios` spread over MPI ranks.
//
//   mpirun -np N bin/bond_risk_mpi scenarios --db PATH [--set NAME] [--threads N]
//
// By scenario: every rank loads and flushes the whole graph, then revalues
// its block of each set's scenarios (rank r of N: scenarios [r n / N,
// (r + 1) n / N)). Rank 0 gathers the P&L in rank order, which is scenario
// order, and reports and writes the tables exactly as `bond_risk scenarios`
// does. Each scenario's P&L is computed by the same code on the same inputs
// whichever rank runs it, and every reduction (book totals, VaR, ES) runs
// on rank 0 in scenario order: the results are the same bits for any N.
//
// A rank that fails (an unreadable database, no memory) prints its error
// with its rank and aborts the whole job; none waits forever for it.
#include <sys/resource.h>

#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include "base/cli_args.h"
#include "base/progress.h"
#include "bond_risk/cli/scenario_run.h"
#include "bond_risk/cli/settings.h"
#include "bond_risk/db/loader.h"
#include "bond_risk/db/result_writer.h"
#include "bond_risk/db/scenario_sets.h"
#include "bond_risk/live/live_model.h"
#include "bond_risk/mpi/pnl_codec.h"
#include "bond_risk/mpi/world.h"
#include "engine/timing.h"

namespace bond_risk::mpi {

namespace {

base::CommandSpec spec() {
  return {"scenarios",
          "[--db PATH] [--set NAME] [--threads N] [--conf PATH]   (run with mpirun -np N)",
          "bond_risk scenarios over MPI ranks: every rank loads the graph and revalues its share of each\n"
          "set's scenarios; rank 0 gathers the P&L, computes VaR and ES and writes the tables of\n"
          "DB.results.db, the same as one process writes. Without --threads (or NUM_THREADS) each rank\n"
          "takes its share of this machine's cores. Prints each rank's load, revaluation and gather times.",
          scenarios_options(),
          "bond_risk_mpi"};
}

// What one rank spent, and its peak resident memory.
struct RankTimes {
  double load = 0, revalue = 0, gather = 0;
  std::size_t scenarios = 0;
  long peak_rss_kb = 0;
};

std::string text(const RankTimes& t) {
  std::ostringstream out;
  out << t.load << " " << t.revalue << " " << t.gather << " " << t.scenarios << " " << t.peak_rss_kb;
  return out.str();
}

long peak_rss_kb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// The rank's block of `n` scenarios.
std::pair<std::size_t, std::size_t> block(const World& world, std::size_t n) {
  const auto r = static_cast<std::size_t>(world.rank()), size = static_cast<std::size_t>(world.size());
  return {r * n / size, (r + 1) * n / size};
}

int scenarios(const World& world, std::span<char* const> args) {
  const bool root = world.rank() == 0;
  const base::CommandSpec command = spec();
  const base::ParsedArgs a = base::parse_args(command, args);
  if (a.help) {
    if (root) std::cout << base::help_text(command);
    return 0;
  }
  if (!a.positional.empty()) throw base::UsageError("scenarios: unexpected argument '" + a.positional[0] + "'");
  Settings settings = load_settings(a, [](const char* key) { return std::getenv(key); });
  if (!a.has("threads") && !std::getenv("NUM_THREADS")) {
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency()) / static_cast<std::size_t>(world.local_size());
    settings.scheduler.threads = cores > 1 ? cores : 0;  // one core: the master alone
  }
  base::Database db(settings.db, base::Database::Mode::read_only);
  const std::vector<std::string> sets = a.has("set") ? std::vector{a.get("set", "")} : scenario_set_names(db);
  if (sets.empty()) throw std::runtime_error(db.path() + " has no scenario sets (see bond_risk scenarios --help)");

  RankTimes times;
  const engine::Stopwatch load_watch;
  Loaded loaded = load(db);
  if (root) {
    for (const std::string& w : loaded.warnings) std::cerr << "bond_risk: warning: " << w << "\n";
  }
  loaded.store.with_key_rates = false;
  LiveModel model(std::move(loaded.store), settings.scheduler, settings.grain);
  model.flush_all();
  const ScenarioBase base(model.store());
  times.load = load_watch.seconds();
  if (root) {
    std::cout << "Loaded " << model.store().size() << " objects from " << settings.db << " on each of " << world.size()
              << " ranks (" << settings.scheduler.threads << " worker threads each); rank 0 in " << times.load
              << " seconds.\n";
  }

  std::optional<base::Database> results;
  if (root) {
    results.emplace(results_path(settings.db), base::Database::Mode::create);
    create_result_tables(*results);
  }
  for (const std::string& name : sets) {
    const ScenarioSet set = base::usage_checked([&] { return read_scenario_set(db, model.store(), name); });
    if (root) {
      for (const std::string& p : set.problems) std::cerr << "bond_risk: warning: set " << name << ": " << p << "\n";
    }
    world.barrier();  // every rank starts the set together: the wall time is the job's
    const engine::Stopwatch set_watch;
    const auto [first, last] = block(world, set.scenarios.size());
    std::vector<ScenarioPnl> mine;
    {
      std::optional<base::ProgressBar> progress;
      if (root) progress.emplace("Scenarios " + name + " (rank 0's share)", last - first);
      mine = revalue_all(base, std::span(set.scenarios).subspan(first, last - first), model.scheduler(),
                         [&](std::size_t done) { if (progress) progress->update(done); });
    }
    times.revalue += set_watch.seconds();
    times.scenarios += last - first;
    const engine::Stopwatch gather_watch;
    const std::vector<std::string> gathered = world.gather(encode(mine));
    times.gather += gather_watch.seconds();
    if (!root) continue;
    std::vector<ScenarioPnl> pnl;
    for (const std::string& bytes : gathered) decode(bytes, pnl);
    if (pnl.size() != set.scenarios.size()) throw std::runtime_error("the ranks returned " + std::to_string(pnl.size()) + " results for " + std::to_string(set.scenarios.size()) + " scenarios");
    report_set(*results, name, set, base.book_list(), pnl, set_watch.seconds());
  }

  times.peak_rss_kb = peak_rss_kb();
  const std::vector<std::string> all = world.gather(text(times));
  if (root) {
    std::cout << "rank  load s  revalue s  gather s  scenarios  peak RSS MB\n";
    for (std::size_t r = 0; r < all.size(); ++r) {
      std::istringstream in(all[r]);
      RankTimes t;
      in >> t.load >> t.revalue >> t.gather >> t.scenarios >> t.peak_rss_kb;
      std::printf("%4zu %7.3f %10.3f %9.3f %10zu %12.1f\n", r, t.load, t.revalue, t.gather, t.scenarios, t.peak_rss_kb / 1024.0);
    }
  }
  return 0;
}

constexpr const char* kUsage = R"(usage: mpirun -np N bond_risk_mpi scenarios [OPTIONS]

bond_risk's batch risk over MPI ranks (OpenMPI).

commands:
  scenarios  revalue every book under a scenario set, each rank its share of the scenarios

Run 'bond_risk_mpi scenarios --help' for its options.
)";

}  // namespace

}  // namespace bond_risk::mpi

int main(int argc, char** argv) {
  bond_risk::mpi::World world(&argc, &argv);
  const std::span<char* const> all(argv, static_cast<std::size_t>(argc));
  try {
    if (all.size() < 2 || std::string_view(all[1]) != "scenarios") {
      const bool help = all.size() >= 2 && (std::string_view(all[1]) == "--help" || std::string_view(all[1]) == "-h");
      if (world.rank() == 0) (help ? std::cout : std::cerr) << bond_risk::mpi::kUsage;
      return help ? 0 : 2;
    }
    return bond_risk::mpi::scenarios(world, all.subspan(2));
  } catch (const base::UsageError& e) {
    if (world.rank() == 0) std::cerr << "bond_risk_mpi: " << e.what() << "\n";
    return 2;  // every rank found the same mistake
  } catch (const std::exception& e) {
    world.abort(std::string("error: ") + e.what());
  }
}
