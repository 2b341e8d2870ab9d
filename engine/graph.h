// A dependency graph of nodes in tiers.
//
// Each node type has a tier (1 = no inputs) and a batch calculation. A node
// subscribes to nodes of lower tiers; edges are kept in both directions.
// Marking a node dirty marks everything downstream of it, so a flush (see
// flush.h) recalculates exactly the nodes a change affects; a full flush is
// mark_all_dirty() followed by a flush.
//
// The graph is not thread-safe: it is built and marked by one (master)
// thread. Batch calculations of one tier may run concurrently on disjoint
// index sets.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/edge_list.h"
#include "engine/node_ref.h"

namespace engine {

class Graph {
 public:
  // Calculates the given nodes of one type. Must read only nodes it
  // subscribes to and write only the nodes it is given.
  using BatchFn = std::function<void(std::span<const NodeIndex>)>;

  // Adds a node type of `tier` (>= 1); returns its id (0, 1, 2, ... in the
  // order of the calls). `cost` is the work of one node relative to the
  // cheapest type: a flush's chunks hold about grain / cost nodes, so that a
  // few heavy nodes still spread over the workers.
  // With `track_causes`, the graph also records which publishers made each
  // node of the type dirty (see changed_inputs), for types that can update
  // from the change instead of recalculating whole.
  TypeId add_type(std::string name, unsigned tier, BatchFn calc, std::size_t cost = 1, bool track_causes = false);

  std::size_t cost(TypeId type) const;

  // Adds `count` nodes to `type` (new nodes are dirty); returns the index of
  // the first one.
  NodeIndex add_nodes(TypeId type, std::size_t count = 1);

  // `subscriber` is recalculated whenever `publisher` is. Throws
  // std::logic_error unless publisher's tier is below subscriber's.
  void subscribe(NodeRef subscriber, NodeRef publisher);

  // Removes one subscribe(subscriber, publisher) edge, if present.
  void unsubscribe(NodeRef subscriber, NodeRef publisher);

  std::span<const NodeRef> subscribers(NodeRef publisher) const;
  std::span<const NodeRef> publishers(NodeRef subscriber) const;

  // Marks `node` and everything downstream of it dirty.
  void mark_dirty(NodeRef node);
  void mark_all_dirty();

  // For a dirty node of a type that tracks causes: the publishers whose
  // marking made it dirty since it was last calculated, each once; nullopt
  // when it must be recalculated whole (it was marked itself, or by
  // mark_all_dirty, or its type tracks no causes).
  std::optional<std::span<const NodeRef>> changed_inputs(NodeRef node) const;

  // Dirty nodes of `type`, in the order they were marked.
  std::span<const NodeIndex> dirty(TypeId type) const;
  void clear_dirty(TypeId type);
  std::size_t dirty_count() const;

  std::size_t type_count() const { return types_.size(); }
  unsigned tier(TypeId type) const;
  unsigned max_tier() const;
  const BatchFn& calculation(TypeId type) const;

 private:
  struct Type {
    std::string name;
    unsigned tier;
    BatchFn calc;
    std::size_t cost;
    std::vector<EdgeList> downstream;  // subscribers per node
    std::vector<EdgeList> upstream;    // publishers per node
    std::vector<unsigned char> is_dirty;
    std::vector<NodeIndex> dirty_list;
    bool track_causes = false;
    std::vector<std::vector<NodeRef>> causes;  // tracked types: per node, the publishers that marked it
    std::vector<unsigned char> whole;          // tracked types: per node, marked itself
  };

  struct Mark {
    NodeRef node;
    NodeRef cause;  // the publisher it was reached from; node itself for a root
  };

  Type& at(TypeId type);
  const Type& at(TypeId type) const;

  std::vector<Type> types_;
  std::vector<Mark> stack_;  // mark_dirty's work list, kept to reuse its memory
};

}  // namespace engine
