// Names of nodes in an engine::Graph: a node type and an index into that
// type's contiguous storage.
#pragma once

#include <compare>
#include <cstdint>

namespace engine {

using TypeId = std::uint32_t;
using NodeIndex = std::uint32_t;

struct NodeRef {
  TypeId type;
  NodeIndex index;
  friend auto operator<=>(NodeRef, NodeRef) = default;  // by type, then index
};

}  // namespace engine
