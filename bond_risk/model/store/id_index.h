// Database id -> node, for the hundreds of thousands of look-ups a load
// makes. Ids are usually small and dense (1..N): those live in a direct
// table, indexed by id, which look-ups in id order walk with the cache's
// help; any other id (negative or far beyond the node count) goes to a hash
// map, so no id pattern can blow up memory or time.
// A plain value that owns its tables (part of a Store). Not thread-safe to
// change; find() may run on several threads at once while nothing inserts
// (the loader's two readers do so).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "engine/node_ref.h"

namespace bond_risk {

class IdIndex {
 public:
  // Sizes the direct table for about `count` nodes.
  void reserve(std::size_t count);
  // Inserts id -> node; returns false (and changes nothing) if id is present.
  bool insert(std::int64_t id, engine::NodeRef node);
  const engine::NodeRef* find(std::int64_t id) const;
  // Points a present id at another node (the node moved).
  void replace(std::int64_t id, engine::NodeRef node);

 private:
  static constexpr engine::TypeId kFree = ~engine::TypeId{0};  // type of an empty direct slot
  bool is_direct(std::int64_t id) const { return id >= 0 && static_cast<std::uint64_t>(id) < direct_limit_; }

  std::vector<engine::NodeRef> direct_;  // grows on demand up to direct_limit_
  std::uint64_t direct_limit_ = 1 << 16;
  std::unordered_map<std::int64_t, engine::NodeRef> sparse_;
};

}  // namespace bond_risk
