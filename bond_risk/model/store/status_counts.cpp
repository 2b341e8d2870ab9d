#include "bond_risk/model/store/status_counts.h"

namespace bond_risk {

std::array<std::size_t, kStatusCount> count_statuses(const Store& store, Kind kind) {
  std::array<std::size_t, kStatusCount> counts{};
  for (const NodeState& s : store.states[static_cast<std::size_t>(kind)]) {
    if (s.status != Status::removed) ++counts[static_cast<int>(s.status)];
  }
  return counts;
}

base::Json status_counts_json(const Store& store) {
  base::Json out = base::Json::object();
  for (std::size_t k = 0; k < kKindCount; ++k) {
    const auto counts = count_statuses(store, static_cast<Kind>(k));
    base::Json& kind = out[std::string(kind_name(static_cast<Kind>(k)))];
    for (int s = 0; s < kStatusCount; ++s) kind[std::string(status_name(static_cast<Status>(s)))] = counts[s];
  }
  return out;
}

}  // namespace bond_risk
