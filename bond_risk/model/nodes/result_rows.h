// What bonds, trades and books publish, as rows of their result tables: a
// node's id, status, reason, values and (a bond's or book's) key-rate
// ladder. A ResultRows is a value the live engine's master fills after a
// recalculation so that a writer thread can persist it without reading the
// store.
//
// Model: at most one row per node: putting a node again replaces its row
// (its latest wins). Rows are kept by kind in contiguous columns as wide
// as the kind publishes (a trade's row is its id, status and three or four
// values), so copying a big event's rows costs bytes in proportion to what
// they say; a reason or ladder reuses its row's space when it fits, and
// clear() keeps every column's capacity for the next batch (fresh pages
// would cost a fault each to the one copying). A bond's row is given
// space for its curve's ladder when it is added. Memory is bounded by the
// nodes put since the last clear, however often each is.
// Threading: one owner at a time, which may lend a put's rows to a
// scheduler's workers (put); each worker then fills rows of its own.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/default_init.h"
#include "bond_risk/model/risk/ladders.h"
#include "bond_risk/model/store/store.h"
#include "engine/graph.h"
#include "engine/scheduler.h"

namespace bond_risk {

// One row, borrowed from the ResultRows it was read from (valid until that
// set next changes).
struct ResultRow {
  std::int64_t id = 0;
  Kind kind = Kind::bond;
  Status status = Status::ok;       // removed: the node's row is to be deleted
  std::span<const double> values;   // in value_names order; stored as NULL when the status publishes none (see publishes_values)
  std::string_view reason;          // "" when OK
  std::span<const KeyRate> key_rates;  // a bond's or book's ladder (see stores_key_rates)
};

class ResultRows {
 public:
  // Sets the rows of `nodes` (bonds, trades or books of `kind`, in any
  // order) to what they publish in `store` now, replacing any row of them
  // already here. A big event's rows are added in one growth per column
  // and, given `workers` and nodes in increasing order, filled in chunks on
  // its threads (the store is only read meanwhile); else on the caller's.
  void put(const Store& store, const engine::Graph& graph, Kind kind, std::span<const NodeIndex> nodes,
           engine::Scheduler* workers = nullptr);
  void put(const Store& store, const engine::Graph& graph, NodeRef node) {
    put(store, graph, kind_of(node), {&node.index, 1});
  }
  // Adds the rows of `older` whose nodes have no row here (newer rows win).
  void put_older(const ResultRows& older);

  std::size_t size() const;  // rows of every kind
  std::size_t size(Kind kind) const { return columns_[static_cast<std::size_t>(kind)].ids.size(); }
  bool empty() const { return size() == 0; }
  // Row r (< size(kind)) of `kind`, rows counted in the order first put.
  ResultRow row(Kind kind, std::size_t r) const;
  // The rows of `kind` (their r) by increasing id, valid until the set
  // next changes.
  std::span<const std::uint32_t> in_id_order(Kind kind);
  // No row left; capacity kept.
  void clear();

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  // A row's reason and ladder, for the rows that have either (most trades
  // have neither): reasons_[reason] and ladders_[ladder, ladder + size).
  struct Extras {
    std::uint32_t reason = kNone, ladder = 0, size = 0, capacity = 0;
  };
  struct Columns {
    std::vector<std::uint32_t> slot;  // per node index: its row, or kNone
    // Per row, written as each row is put (a big event's rows would cost a zeroing pass more).
    base::UninitVector<NodeIndex> nodes;
    base::UninitVector<std::int64_t> ids;
    base::UninitVector<Status> statuses;
    base::UninitVector<double> values;  // width per row
    std::vector<std::uint32_t> extras;  // per row: its Extras in extras_, or kNone
    std::vector<std::uint32_t> order;   // in_id_order's (reused)
    std::size_t width = 0;              // values per row: the kind's
  };
  // Gives each of `nodes` a row in `c` (of a kind with `count` nodes, each
  // publishing `width` values): blank rows added at the end for those that
  // have none, in one growth.
  void add_rows(Columns& c, std::span<const NodeIndex> nodes, std::size_t count, std::size_t width);
  // Fills node i's row from `store` (id, status, values, and a bond's
  // ladder where its space holds it): any thread, one per row. False: the
  // row's reason or ladder is left to finish_row, on the caller's thread.
  bool fill_row(const Store& store, Columns& c, Kind kind, NodeIndex i);
  void finish_row(const Store& store, const engine::Graph& graph, Columns& c, Kind kind, NodeIndex i);
  // Gives the bonds' rows from row `from` on ladder space for their curves' points.
  void reserve_bond_ladders(const Store& store, Columns& c, std::size_t from);
  // Row r's Extras, added if it has none.
  Extras& extras_of(Columns& c, std::uint32_t r);
  // Copies `text` or `ladder` into the space of row r's, a ladder's moving
  // to the end of ladders_ when it does not fit.
  void set_reason(Columns& c, std::uint32_t r, std::string_view text);
  void set_ladder(Columns& c, std::uint32_t r, std::span<const KeyRate> ladder);

  std::array<Columns, kKindCount> columns_;
  std::vector<Extras> extras_;
  std::vector<std::string> reasons_;  // the first reasons_used_ referred to by Extras
  std::size_t reasons_used_ = 0;
  std::vector<KeyRate> ladders_;      // likewise
  std::vector<KeyRate> ladder_;       // one ladder being read (reused)
  std::vector<std::vector<NodeIndex>> deferred_;  // per chunk of a parallel put: its rows for finish_row
};

}  // namespace bond_risk
