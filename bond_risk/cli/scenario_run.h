// What `bond_risk scenarios` and `bond_risk_mpi scenarios` share: their
// options, the sets they run, the base state they revalue from, and what
// they do with a set's P&L once revalued (in one process, or gathered from
// the ranks): print the summary (VaR and ES for a historical set, the worst
// totals for a stress set) and write the result tables.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/cli_args.h"
#include "base/sqlite.h"
#include "bond_risk/cli/settings.h"
#include "bond_risk/db/scenario_sets.h"
#include "bond_risk/live/live_model.h"
#include "bond_risk/model/risk/scenarios.h"

namespace bond_risk {

// --db, --set, --threads, --conf.
std::vector<base::OptionSpec> scenarios_options();

// The sets to run: --set, else every set of `db`; throws if there is none.
std::vector<std::string> sets_to_run(const base::ParsedArgs& args, base::Database& db);

// `db`'s graph (only the books `books` names, when given: see load()),
// loaded and flushed without key-rate ladders: the values scenarios start
// from. Prints the load's warnings when `warn`.
std::unique_ptr<LiveModel> scenario_model(base::Database& db, const Settings& settings,
                                          const std::vector<std::int64_t>* books = nullptr, bool warn = true);

// `pnl` in the set's scenario order; `seconds` the revaluation's wall time.
// Throws std::runtime_error, once the set's old rows are replaced, when a
// historical set has no usable scenario (no_var_reason).
void report_set(base::Database& results, const std::string& name, const ScenarioSet& set, const BookList& books,
                const std::vector<ScenarioPnl>& pnl, double seconds);

}  // namespace bond_risk
