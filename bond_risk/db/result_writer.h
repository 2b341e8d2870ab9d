// Writing the result tables (schema/bond_risk.sql's *_result): one row per
// bond, trade and book with its status, reason and published values.
#pragma once

#include <array>
#include <vector>

#include "base/progress.h"
#include "base/sqlite.h"
#include "bond_risk/model/store.h"
#include "engine/graph.h"

namespace bond_risk {

// Writes (INSERT OR REPLACE) the result rows of `nodes`, given per Kind, in
// the caller's transaction; calendars and curves have no result table.
void write_results(base::Database& db, const Store& store, const engine::Graph& graph,
                   const std::array<std::vector<NodeIndex>, kKindCount>& nodes, base::ProgressBar* progress = nullptr);

// Replaces the rows of the five result tables (created if missing) with every
// node's status, reason and values, in one transaction: the tables are never
// left half-written.
void write_all_results(base::Database& db, const Store& store, const engine::Graph& graph);

}  // namespace bond_risk
