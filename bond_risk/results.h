// Reading results out of the store: reasons in words, and the result tables.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "bond_risk/progress.h"
#include "bond_risk/sqlite.h"
#include "bond_risk/store.h"
#include "engine/graph.h"

namespace bond_risk {

// Why `node` is not OK ("" when it is): its invalid data, the date that put
// it past the curve horizon or expired it, or the inputs that made it STALE.
std::string reason(const Store& store, const engine::Graph& graph, NodeRef node);

// A 64-bit FNV-1a hash of every node's status and published values, bit
// for bit: equal digests mean equal results (benchmarks compare runs by it).
std::uint64_t results_digest(const Store& store);

// Writes (INSERT OR REPLACE) the result rows of `nodes`, given per Kind, in
// the caller's transaction; calendars and curves have no result table.
void write_results(Database& db, const Store& store, const engine::Graph& graph,
                   const std::array<std::vector<NodeIndex>, kKindCount>& nodes, ProgressBar* progress = nullptr);

// Replaces the rows of the five result tables (created if missing) with every
// node's status, reason and values, in one transaction: the tables are never
// left half-written.
void write_all_results(Database& db, const Store& store, const engine::Graph& graph);

}  // namespace bond_risk
