// How many nodes of each kind have each status of docs/model.md (removed trades
// left out): for the run report, its JSON and the `stats` reply.
#pragma once

#include <array>
#include <cstddef>

#include "base/json.h"
#include "bond_risk/model/store/store.h"

namespace bond_risk {

std::array<std::size_t, kStatusCount> count_statuses(const Store& store, Kind kind);

// {"calendar": {"OK": 1, "FAILED": 0, "STALE": 0, "EXPIRED": 0}, ...}
base::Json status_counts_json(const Store& store);

}  // namespace bond_risk
