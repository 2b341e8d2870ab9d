#include <cstdlib>
#include <iostream>

#include "base/progress.h"
#include "bond_risk/cli/commands.h"
#include "bond_risk/cli/scenario_run.h"
#include "bond_risk/cli/settings.h"
#include "bond_risk/db/scenario_sets.h"
#include "bond_risk/live/live_model.h"
#include "base/timing.h"

namespace bond_risk {

namespace {

const base::CommandSpec kSpec = {
    "scenarios",
    "[--db PATH] [--set NAME] [--threads N] [--conf PATH]",
    "Revalues the whole graph under every scenario of a set (docs/model.md \"Scenarios\"): each shifted curve\n"
    "is built again and every bond on it repriced, and each book's P&L is the change of its value (pv\n"
    "for outright books, mtm_pnl for repo books, with the repo books' margin change beside it), over\n"
    "the members that are OK in the base state. Scenarios run in parallel on NUM_THREADS workers, each\n"
    "on its own copy of the curves and prices it changes. Writes each book's and the total's P&L per\n"
    "scenario to the scenario results database beside DB (table scenario_pnl of DB.scenarios.db) and,\n"
    "for a historical set, 1-day VaR at 99% and expected shortfall at 97.5% per book and in total\n"
    "(table scenario_var).\n"
    "A scenario with a malformed shift row (a curve id or idx that is not a whole number, a shift that is\n"
    "not a finite number, an unknown curve or point, a point given twice) is left out with a warning\n"
    "naming the row; the rest of the set runs. A historical set with no usable scenario is an error (exit\n"
    "1, no VaR written); under 100 scenarios its VaR is the worst loss, with a warning. Sets live in the\n"
    "tables scenario_set, scenario and scenario_shift of the database (see schema/bond_risk.sql);\n"
    "bond_risk generate adds 'ladder' and 'historical'.",
    scenarios_options(),
};

void run_set(base::Database& db, base::Database& results, LiveModel& model, const ScenarioBase& base,
             const std::string& name) {
  const ScenarioSet set = read_scenario_set(db, model.store(), name);
  for (const std::string& p : set.problems) std::cerr << "bond_risk: warning: set " << name << ": " << p << "\n";
  const base::Stopwatch watch;
  std::vector<ScenarioPnl> pnl;
  {
    base::ProgressBar progress("Scenarios " + name, set.scenarios.size());
    pnl = revalue_all(base, set.scenarios, model.scheduler(), [&](std::size_t done) { progress.update(done); });
  }
  report_set(results, name, set, base.book_list(), pnl, watch.seconds());
}

}  // namespace

int scenarios_command(std::span<char* const> args) {
  const std::optional<Invocation> invoked = invocation(kSpec, args);
  if (!invoked) return 0;
  const base::ParsedArgs& a = invoked->args;
  const Settings& settings = invoked->settings;
  if (!a.positional.empty()) throw base::UsageError("scenarios: unexpected argument '" + a.positional[0] + "'");
  base::Database db(settings.db, base::Database::Mode::read_only);
  const std::vector<std::string> sets = sets_to_run(a, db);

  const base::Stopwatch load_watch;
  const std::unique_ptr<LiveModel> model = scenario_model(db, settings);
  const ScenarioBase base(model->store());
  std::cout << "Loaded " << model->store().size() << " objects from " << settings.db << " and flushed them in "
            << load_watch.seconds() << " seconds.\n";

  const std::unique_ptr<base::Database> results = open_scenario_results(settings.db);
  for (const std::string& name : sets) base::usage_checked([&] { run_set(db, *results, *model, base, name); });
  return 0;
}

}  // namespace bond_risk
