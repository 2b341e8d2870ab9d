// Reading results out of the store: reasons in words, and the result tables.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bond_risk/progress.h"
#include "bond_risk/sqlite.h"
#include "bond_risk/store.h"
#include "engine/graph.h"

namespace bond_risk {

// Why `node` is not OK ("" when it is): its invalid data, the date that put
// it past the curve horizon or expired it, or the inputs that made it STALE.
std::string reason(const Store& store, const engine::Graph& graph, NodeRef node);

// A node's published values, in the order of value_names: a book's sums,
// then how many members it left out. None for calendars and curves.
struct PublishedValues {
  std::array<double, 4> values{};
  std::size_t count = 0;
  std::span<const double> span() const& { return {values.data(), count}; }
  std::span<const double> span() const&& = delete;  // would dangle in a range-for over a temporary
};
PublishedValues published_values(const Store& store, NodeRef node);

// The names of a kind's published values, which are also the columns of its
// result table: {"pv", "pv01", "pnl"} for an outright trade.
std::span<const std::string_view> value_names(Kind kind);

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
