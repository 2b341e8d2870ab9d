// What a bond, trade or book publishes, as one row of its result table: its
// id, status, reason and values. A value: the live engine's master copies
// rows after a recalculation so that a writer thread can persist them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bond_risk/model/risk/ladders.h"
#include "bond_risk/model/store/published_values.h"
#include "bond_risk/model/store/store.h"
#include "engine/graph.h"

namespace bond_risk {

struct ResultRow {
  std::int64_t id = 0;
  Kind kind = Kind::bond;
  Status status = Status::ok;  // removed: the node's row is to be deleted
  PublishedValues values;      // stored as NULL when the status publishes none (see publishes_values)
  std::string reason;
  std::vector<KeyRate> key_rates;  // a bond's or book's ladder (see stores_key_rates)
};

ResultRow result_row(const Store& store, const engine::Graph& graph, NodeRef node);

}  // namespace bond_risk
