// Reading results out of the store: reasons in words, and the result tables.
#pragma once

#include <cstdint>
#include <string>

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

// Replaces the rows of the five result tables (created if missing) with every
// node's status, reason and values, in one transaction: the tables are never
// left half-written.
void write_results(Database& db, const Store& store, const engine::Graph& graph);

}  // namespace bond_risk
