#include "bond_risk/cli/scenario_run.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "bond_risk/db/loader.h"
#include "base/timing.h"

namespace bond_risk {

namespace {

std::string money(double v) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(0) << v;
  return out.str();
}

}  // namespace

std::vector<base::OptionSpec> scenarios_options() {
  return {
      {"db", "PATH", "database to load (APP_DB)"},
      {"set", "NAME", "the scenario set to run (default: every set in the database)"},
      {"threads", "N", "worker threads 0..4096 (NUM_THREADS)"},
      kConfOption,
  };
}

std::vector<std::string> sets_to_run(const base::ParsedArgs& args, base::Database& db) {
  std::vector<std::string> sets = args.has("set") ? std::vector{args.get("set", "")} : scenario_set_names(db);
  if (sets.empty()) throw std::runtime_error(db.path() + " has no scenario sets (see bond_risk scenarios --help)");
  for (const std::string& name : sets) {
    if (const std::string why = unknown_set(db, name); !why.empty()) throw base::UsageError(why);
  }
  return sets;
}

std::unique_ptr<LiveModel> scenario_model(base::Database& db, const Settings& settings,
                                          const std::vector<std::int64_t>* books, bool warn) {
  Loaded loaded = load(db, books);
  if (warn) {
    for (const std::string& w : loaded.warnings) std::cerr << "bond_risk: warning: " << w << "\n";
  }
  loaded.store.with_key_rates = false;  // the base state needs values only
  loaded.store.with_quote_analytics = false;
  auto model = std::make_unique<LiveModel>(std::move(loaded.store), settings.scheduler, settings.grain);
  model->flush_all();
  return model;
}

void report_set(base::Database& results, const std::string& name, const ScenarioSet& set, const BookList& books,
                const std::vector<ScenarioPnl>& pnl, double seconds) {
  const std::vector<std::string> failed = left_out(set.scenarios, pnl);
  for (const std::string& why : failed) std::cerr << "bond_risk: warning: set " << name << ": " << why << "\n";
  std::cout << "Set " << name << " (" << (set.historical ? "historical" : "stress") << "): "
            << set.scenarios.size() - failed.size() << " scenarios of " << books.size() << " books revalued in " << seconds
            << " seconds (" << seconds / std::max<std::size_t>(1, set.scenarios.size()) * 1e3 << " ms a scenario).\n";
  const base::Stopwatch write_watch;
  write_scenario_results(results, set, books, pnl);  // for a set without a usable scenario: its old rows gone
  if (set.historical) {
    if (const std::string why = no_var_reason(set, pnl); !why.empty()) throw std::runtime_error(why);
    const SetRisk risk = set_risk(books.size(), pnl);
    std::cout << "Total: 1-day VaR 99% " << money(risk.total.var_99) << ", expected shortfall 97.5% "
              << money(risk.total.es_975) << " (over " << risk.scenarios << " days).\n";
    if (const std::string note = few_scenarios_note(risk.scenarios); !note.empty()) {
      std::cerr << "bond_risk: warning: set " << name << ": " << note << "\n";
    }
  } else {
    std::vector<std::pair<double, std::string>> worst;
    for (std::size_t k = 0; k < pnl.size(); ++k) {
      if (pnl[k].error.empty()) worst.emplace_back(pnl[k].total, set.scenarios[k].name);
    }
    std::sort(worst.begin(), worst.end());
    for (std::size_t k = 0; k < std::min<std::size_t>(3, worst.size()); ++k) {
      std::cout << "Worst total P&L: " << worst[k].second << " " << money(worst[k].first) << "\n";
    }
  }
  std::cout << "Wrote scenario_pnl" << (set.historical ? " and scenario_var" : "") << " of set " << name << " to "
            << results.path() << " in " << write_watch.seconds() << " seconds.\n";
}

}  // namespace bond_risk
