// The values each kind of node publishes, listed once: the result tables'
// columns, the results digest, `get` replies and the tests all read them
// through published_values and value_names.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "bond_risk/model/store/store.h"

namespace bond_risk {

// A node's published values, in the order of value_names: a book's sums,
// then how many members it left out. None for calendars and curves. A
// value not published (a bond's yield with no rate left to it, a cs01 with
// no quote) is NaN: null in replies and tables.
inline constexpr std::size_t kMaxValues = 14;  // a bond's
struct PublishedValues {
  std::array<double, kMaxValues> values{};
  std::size_t count = 0;
  std::span<const double> span() const& { return {values.data(), count}; }
  std::span<const double> span() const&& = delete;  // would dangle in a range-for over a temporary
};
PublishedValues published_values(const Store& store, NodeRef node);
// The same written to `out`, which holds at least value_names(kind).size()
// values; returns how many.
std::size_t published_values(const Store& store, NodeRef node, std::span<double> out);

// Whether a node of `kind` with `status` publishes its values: OK and
// EXPIRED nodes do, and STALE books (their sums over the OK members).
bool publishes_values(Kind kind, Status status);

// A bond's values before conventions (price .. cs01); settlement_date,
// dirty_price and quote_yield follow them.
inline constexpr std::size_t kTrad4BondValues = 11;

// Whether the value called `name` is a date, held as days since
// 1970-01-01: replies and result tables show it as YYYY-MM-DD.
bool is_date_value(std::string_view name);

// The names of a kind's published values, which are also the columns of its
// result table: {"pv", "pv01", "pnl"} for an outright trade.
std::span<const std::string_view> value_names(Kind kind);

// A 64-bit FNV-1a hash of every node's status and published values, bit
// for bit: equal digests mean equal results (benchmarks compare runs by it).
// A bond with no convention hashes its first kTrad4BondValues values only
// (the rest are null for it, but quote_yield), so digests of databases
// without conventions compare with those from before them.
std::uint64_t results_digest(const Store& store);

}  // namespace bond_risk
