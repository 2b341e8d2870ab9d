// What `bond_risk scenarios` and `bond_risk_mpi scenarios` share: their
// options, and what they do with a set's P&L once revalued (in one process,
// or gathered from the ranks): print the summary (VaR and ES for a
// historical set, the worst totals for a stress set) and write the result
// tables.
#pragma once

#include <string>
#include <vector>

#include "base/cli_args.h"
#include "base/sqlite.h"
#include "bond_risk/db/scenario_sets.h"
#include "bond_risk/model/scenarios.h"

namespace bond_risk {

// --db, --set, --threads, --conf.
std::vector<base::OptionSpec> scenarios_options();

// `pnl` in the set's scenario order; `seconds` the revaluation's wall time.
void report_set(base::Database& results, const std::string& name, const ScenarioSet& set, const BookList& books,
                const std::vector<ScenarioPnl>& pnl, double seconds);

}  // namespace bond_risk
