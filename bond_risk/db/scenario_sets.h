// Scenario sets in the database (schema/bond_risk.sql: scenario_set,
// scenario, scenario_shift) and their results (schema/scenarios.sql:
// scenario_pnl, scenario_var), kept in the scenario results database beside
// the input database: DB.scenarios.db for DB.db. Unlike the live results
// (db/result_writer.h), that file is synced at every commit and never
// replaced: a run's rows stay until a run of the same set replaces them.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/sqlite.h"
#include "bond_risk/model/risk/scenarios.h"
#include "bond_risk/model/store/store.h"

namespace bond_risk {

// The names of the sets in `db`, in name order.
std::vector<std::string> scenario_set_names(base::Database& db);
// "" when `db` has set `name`; else why not, naming the sets it has (checked
// before any work on the set: a misspelt name is answered at once).
std::string unknown_set(base::Database& db, const std::string& name);

// Reads set `name` (only its scenario `only`, when given), its shifts
// resolved against `store`'s curves. Throws std::invalid_argument naming the
// sets there are when `name` has no scenarios, and std::runtime_error when
// the database has no scenario tables.
ScenarioSet read_scenario_set(base::Database& db, const Store& store, const std::string& name,
                              const std::optional<std::string>& only = std::nullopt);

// How many scenarios set `name` has (0 for no such set).
std::int64_t scenario_count(base::Database& db, const std::string& name);

// The set scenario `name` belongs to, if there is one.
std::optional<std::string> set_of_scenario(base::Database& db, const std::string& name);

// DB.scenarios.db for DB.db; PATH.scenarios.db for any other PATH.
inline std::string scenario_results_path(const std::string& db_path) {
  return base::companion_path(db_path, "scenarios");
}

// Opens the scenario results database of the input database at `db_path`
// for writing, with its tables, at synchronous FULL with a rollback
// journal; a missing file is created owner-only (0600), and a symbolic link
// there is refused (base::Database::Mode::create).
std::unique_ptr<base::Database> open_scenario_results(const std::string& db_path);

// Attaches the scenario results database of `db` (an input database) as
// schema `scenarios`; false when there is none yet.
inline bool attach_scenario_results(base::Database& db) { return base::attach_companion(db, "scenarios"); }

// Moves to the scenario results database of `db_path` (created if missing)
// the sets whose rows an older version kept in the results database at
// `results_path`, which has the scenario tables (the sets it holds already
// keep theirs), in one transaction, waiting for another writer of it up to
// the busy timeout. Called before that file is replaced; throws, saying
// what to do, if it cannot be done.
void adopt_scenario_results(const std::string& db_path, const std::string& results_path);

// Replaces `set`'s rows in the scenario results database with `pnl` (one per
// scenario of the set, in order; those with an error are left out) and,
// for a historical set, the VaR and ES of each of `books` (in result order)
// and of the total. One transaction.
void write_scenario_results(base::Database& results, const ScenarioSet& set, const BookList& books,
                            const std::vector<ScenarioPnl>& pnl);

// The P&L of `book_id` (nullopt: the total) under each scenario of `set` as
// stored, in scenario id order; `schema` names the scenario results database
// in `db` ("main" when `db` is that database, "scenarios" when attached).
std::vector<double> stored_scenario_pnl(base::Database& db, const std::string& schema, const std::string& set,
                                        std::optional<std::int64_t> book_id);

}  // namespace bond_risk
