#include "bond_risk/model/store/id_index.h"

#include <algorithm>

namespace bond_risk {

void IdIndex::reserve(std::size_t count) {
  // Up to 4 slots per node: dense enough data sets fit whole, at 32 bytes a node at most.
  direct_limit_ = std::max<std::uint64_t>(direct_limit_, 4 * static_cast<std::uint64_t>(count));
}

bool IdIndex::insert(std::int64_t id, engine::NodeRef node) {
  if (!is_direct(id)) return sparse_.emplace(id, node).second;
  const auto slot = static_cast<std::size_t>(id);
  if (slot >= direct_.size()) direct_.resize(std::max(slot + 1, 2 * direct_.size()), {kFree, 0});
  if (direct_[slot].type != kFree) return false;
  direct_[slot] = node;
  return true;
}

const engine::NodeRef* IdIndex::find(std::int64_t id) const {
  if (!is_direct(id)) {
    const auto it = sparse_.find(id);
    return it == sparse_.end() ? nullptr : &it->second;
  }
  const auto slot = static_cast<std::size_t>(id);
  return slot < direct_.size() && direct_[slot].type != kFree ? &direct_[slot] : nullptr;
}

void IdIndex::replace(std::int64_t id, engine::NodeRef node) {
  if (is_direct(id)) {
    direct_.at(static_cast<std::size_t>(id)) = node;
  } else {
    sparse_.at(id) = node;
  }
}

}  // namespace bond_risk
