// A dependency graph of nodes in tiers.
//
// Each node type has a tier (1 = no inputs) and a batch calculation. A node
// subscribes to nodes of lower tiers; edges are kept in both directions, in
// contiguous arrays per type (edge_arena.h). Marking a node dirty marks
// everything downstream of it, tier by tier, so that a flush (flush.h)
// recalculates exactly the nodes a change affects, each type's in index
// order; a full flush is mark_all_dirty() followed by a flush. When a mark
// leaves nearly all of a type dirty, the types that subscribe to it are
// marked dirty whole, without walking its edges: a big event costs a full
// flush, not a walk of every edge. A retired node (a trade removed for good)
// is never dirty again and never calculated.
//
// Dirty sets are bitmaps (bitmap.h), one per type. While few of a type's
// nodes are dirty they are also listed as they are marked, so that a small
// event costs in proportion to its size; past an eighth of the type (or
// when a big event is about to mark that many) the list is dropped, a mark
// is a branch-free OR of one bit, and dirty() lists the set again, in index
// order, from the bitmap. A list still kept is put in index order by a
// sort, or by a scan of the bitmap where that takes fewer steps.
//
// A big event need not read every edge it crosses. A node whose many
// subscribers lie in runs (consecutive nodes of one type: a curve's bonds)
// marks them a word at a time. When many of a type are fresh (an eighth,
// or the type is no longer listed), a subscriber type that can read its own
// inputs for less (a few hundred books whose members lie in runs) pulls its
// marks: it counts the fresh bits of each node's inputs instead of being
// reached edge by edge. Either way the same nodes are marked, with the same
// changed inputs (a pull lists them in input order rather than marking
// order).
//
// Incremental nodes (a sum over many members, say) need not recalculate
// whole when a few inputs change: during a flush such a node asks which of
// its inputs changed (changed_inputs) and what each published before this
// flush (previous); what they publish now it reads as usual. The graph
// records the changed inputs as it marks, saves their previous values when
// the flush starts and drops them when it ends, so no caller copies
// anything. A node marked itself, by mark_all_dirty, or with at least half
// of its inputs changed is recalculated whole instead.
//
// subscribe() and unsubscribe() mark nothing: a caller that gives a dirty
// node a clean subscriber marks the subscriber, and one that takes an input
// from an incremental node marks that node itself (as retire() does).
//
// Between flushes check() verifies, in time linear in nodes and edges (the
// edges sorted once), that every mark agrees with the edges and with the
// others:
// - edges: each subscriber lists its publisher as often as the publisher
//   lists it, from a lower tier, with the subscriber's type among the
//   publisher's subscriber types; a retired node has none; each arena's
//   run and increasing flags hold of their slice, and its edge counts of
//   its slices;
// - marks: no retired node is dirty; no node is fresh (a mark walks what
//   it reaches before it returns); every live subscriber of a dirty node
//   is dirty; kept counts are the bitmaps' counts;
// - lists: a listed type lists every dirty node once (and otherwise only
//   retired ones); a listed, ordered one exactly the dirty nodes, in
//   increasing index order;
// - changed inputs: a live incremental node is whole or counts causes only
//   while dirty, and a dirty one is one of them; a node not whole has
//   logged exactly its count of causes, each a distinct dirty publisher of
//   it; no previous value is kept.
// It throws std::logic_error naming the first violation, or if called
// during a flush (or after one that threw, until one completes). The flush
// never calls it: it is for tests and debugging.
//
// The graph is not thread-safe: it is built and marked by one (master)
// thread. Batch calculations of one tier may run concurrently on disjoint
// index sets, and may call the const accessors.
// Owns its types' nodes, edges and dirty sets and the calculations given to
// add_type(); what those capture (build_graph's: the Store and the graph) is
// the caller's and must outlive the graph's flushes.
#pragma once

#include <cstddef>
#include <cstring>
#include <functional>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/bitmap.h"
#include "engine/edge_arena.h"
#include "engine/node_ref.h"

namespace engine {

// Writes the values `nodes` publish (value_bytes each) to `out`, one after
// another. The nodes come in the order their subscribers' changes name
// them, not by index: a saver may fetch ahead.
using SaveFn = std::function<void(std::span<const NodeIndex> nodes, std::byte* out)>;

// Calculates the given nodes of one type. Must read only nodes it
// subscribes to and write only the nodes it is given.
using BatchFn = std::function<void(std::span<const NodeIndex>)>;

// Which part of its nodes' calculations a flush runs (flush.h): all of
// it, or a first pass over every tier and then the rest over every tier,
// so that a caller may answer between the two.
enum class Pass { whole, first, rest };

// A node too heavy for one thread (a curve's daily arrays) may be
// calculated in parts the workers share: in `steps` steps, step s of a node
// in parts(node, s) parts, each run by run(node, s, part) on any thread. A
// flush that hands the node's tier to a scheduler runs step 0's parts of
// every dirty node of the type (beside the tier's other chunks), then step
// 1's once all of those have finished, and so on; parts() is asked on the
// master once the earlier steps have run, so it may read what they wrote.
// The parts of one step must write disjoint data. How a node is cut must
// depend on its data alone, never on the threads, and the type's batch
// calculation (which a tier the master calculates itself uses) must give
// the bits the steps give, so that results are the same for every NUM_THREADS.
// Both are given the pass the type runs (TypeOptions::first and rest: in
// each pass, its own parts; Pass::whole for a type without them).
using PartsFn = std::function<std::size_t(NodeIndex node, std::size_t step, Pass pass)>;
using PartFn = std::function<void(NodeIndex node, std::size_t step, std::size_t part, Pass pass)>;
struct Split {
  std::size_t steps = 0;  // 0: nodes are calculated whole, in chunks
  PartsFn parts;
  PartFn run;
};

struct TypeOptions {
  // The work of one node relative to the cheapest type: a flush's chunks
  // hold about grain / cost nodes, so that a few heavy nodes still spread
  // over the workers.
  std::size_t cost = 1;
  // Nodes of this type update from their changed inputs when they can
  // (see changed_inputs and previous).
  bool incremental = false;
  // For types that incremental nodes subscribe to: the size of a node's
  // published value, which must be trivially copyable, and their saver.
  std::size_t value_bytes = 0;
  SaveFn save_values = nullptr;
  // Set (steps > 0): a flush by the scheduler calculates the type's nodes in parts.
  Split split{};
  // Set (both or neither): the calculation in two passes. `first` computes
  // what the first passes of the tiers above read, `rest` the remainder;
  // a node's first, then its rest once every tier's first has run, leave
  // the bits its whole calculation leaves. A type without them is
  // calculated whole in a first pass and not at all in the rest. A split
  // type's parts say what each pass runs (Split).
  // `first_cost`: the first pass's work, as `cost` (0: cost).
  BatchFn first = nullptr, rest = nullptr;
  std::size_t first_cost = 0;
};

class Graph {
 public:
  using BatchFn = engine::BatchFn;

  // Adds a node type of `tier` (>= 1); returns its id (0, 1, 2, ... in the
  // order of the calls).
  TypeId add_type(std::string name, unsigned tier, BatchFn calc, TypeOptions options = {});

  std::size_t cost(TypeId type) const;
  // Its cost in `pass`: the first pass's first_cost, when it has one.
  std::size_t cost(TypeId type, Pass pass) const;

  // Adds `count` nodes to `type` (new nodes are dirty); returns the index of
  // the first one.
  NodeIndex add_nodes(TypeId type, std::size_t count = 1);

  // `subscriber` is recalculated whenever `publisher` is. Throws
  // std::logic_error unless publisher's tier is below subscriber's.
  void subscribe(NodeRef subscriber, NodeRef publisher);

  // subscribe() for many edges at once, in order: what a graph's initial
  // build should use. for_each_edge(add) calls add(subscriber, publisher)
  // for every edge; it is called twice (to count, then to add) and must
  // give the same edges both times. Checks every pair first and throws,
  // adding none, if one is invalid.
  template <class ForEachEdge>
    requires(!std::ranges::range<ForEachEdge>)
  void subscribe_all(ForEachEdge for_each_edge);
  void subscribe_all(std::span<const std::pair<NodeRef, NodeRef>> edges) {
    subscribe_all([edges](auto add) {
      for (const auto& [subscriber, publisher] : edges) add(subscriber, publisher);
    });
  }

  // Removes one subscribe(subscriber, publisher) edge, if present.
  void unsubscribe(NodeRef subscriber, NodeRef publisher);

  std::span<const NodeRef> subscribers(NodeRef publisher) const;
  std::span<const NodeRef> publishers(NodeRef subscriber) const;

  // Marks `node` and everything downstream of it dirty (nothing, for a
  // retired node).
  void mark_dirty(NodeRef node);
  // The same for many nodes at once: downstream is walked once for them all
  // (a quote tick's bonds), not once per node.
  void mark_dirty(std::span<const NodeRef> nodes);
  void mark_all_dirty();
  // Marks `nodes` for the next flush but walks downstream of them only
  // through their subscribers of type `reach` (and on from those, as
  // usual): for a change its caller knows moves nothing their other
  // subscribers read. Until that flush begins such a node is held: it is
  // not in dirty() or dirty_count() (its caller knows it), and a mark that
  // reaches it marks it and all its subscribers as usual. Throws
  // std::logic_error if `reach` is incremental (it would learn a cause twice).
  void mark_dirty_through(std::span<const NodeRef> nodes, TypeId reach);

  // Takes `node` out for good: it loses its edges, is no longer dirty and is
  // never marked or calculated again. Its subscribers are marked dirty.
  void retire(NodeRef node);
  bool retired(NodeRef node) const;

  // During a flush, for a dirty incremental node: the publishers whose
  // marking made it dirty since it was last calculated, each once, in
  // marking order (input order when pulled); nullopt when it must be
  // recalculated whole (see the top of this file). Throws std::logic_error
  // outside a flush.
  std::optional<std::span<const NodeRef>> changed_inputs(NodeRef node) const;

  // During a flush, for a publisher in some changed_inputs: the value it
  // published before this flush (T must be its type's value type); nullopt
  // when its type saves no values.
  template <class T>
  std::optional<T> previous(NodeRef publisher) const {
    static_assert(std::is_trivially_copyable_v<T>);
    const std::byte* saved = previous_bytes(publisher, sizeof(T));
    if (!saved) return std::nullopt;
    T value;
    std::memcpy(&value, saved, sizeof value);
    return value;
  }

  // Called by flush() before its first tier: saves the previous values of
  // every changed input of a dirty incremental node; and after its last
  // tier: drops those values.
  void prepare_flush();
  void finish_flush();

  // Dirty nodes of `type`, in index order.
  std::span<const NodeIndex> dirty(TypeId type);
  void clear_dirty(TypeId type);
  std::size_t dirty_count() const;

  // Verifies the invariants listed at the top of this file.
  void check() const;

  std::size_t type_count() const { return types_.size(); }
  unsigned tier(TypeId type) const;
  unsigned max_tier() const;
  // The names of the types of `tier`, in type order, joined by `separator`.
  std::string tier_types(unsigned tier, std::string_view separator) const;
  const BatchFn& calculation(TypeId type) const;
  // What `pass` runs of the type: its calculation (whole), its first pass
  // (else its calculation), or its rest (else an empty function).
  const BatchFn& calculation(TypeId type, Pass pass) const;
  // Which of its passes the type runs in a flush's `pass`: Pass::whole in a
  // first pass when it has none (and in a rest, whose calculation() is then empty).
  Pass type_pass(TypeId type, Pass pass) const;
  // Between prepare_flush() and finish_flush(): a flush, or its first pass, runs.
  bool flushing() const { return flushing_; }
  const Split& split(TypeId type) const;

 private:
  friend struct GraphTestAccess;  // tests/engine_test.cpp: corrupts a graph to see check() fail

  static constexpr std::uint32_t kNotSaved = ~std::uint32_t{0};

  struct Type {
    std::string name;
    unsigned tier = 1;
    BatchFn calc;
    TypeOptions options;
    EdgeArena downstream;  // subscribers per node
    EdgeArena upstream;    // publishers per node
    std::size_t size = 0;  // nodes, retired or not
    std::size_t live = 0;  // nodes not retired
    Bitmap dirty;          // to be recalculated
    Bitmap fresh;          // dirty, and their subscribers not marked yet
    Bitmap retired;
    std::size_t dirty_count = 0, fresh_count = 0;  // when counted
    bool counted = true;                           // false after branch-free marks: recount()
    base::HugeVector<NodeIndex> dirty_list;  // if listed: in marking order until dirty(); may hold retired nodes
    std::size_t walked = 0;             // if listed: dirty_list entries before this one are not fresh
    bool listed = true;                 // dirty_list holds every dirty node (else: the bitmap says)
    bool ordered = true;                // dirty_list is in index order and holds only dirty nodes
    std::vector<TypeId> subscriber_types;
    std::vector<std::pair<NodeIndex, TypeId>> held;  // mark_dirty_through's nodes and reach, until a flush
    // Incremental types: per node, whether it is to be recalculated whole and
    // how many publishers marked it; the (node, publisher) marks in order;
    // during a flush, the marks grouped by node and the end of each node's.
    base::HugeVector<unsigned char> whole;
    base::HugeVector<std::uint32_t> cause_count;
    base::HugeVector<std::pair<NodeIndex, NodeRef>> cause_log;
    base::HugeVector<NodeRef> causes;
    base::HugeVector<std::uint32_t> cause_end;
    base::HugeVector<std::byte> saved;           // previous values of this flush, value_bytes each
    base::HugeVector<std::uint32_t> saved_slot;  // per node: its slot in `saved`, or kNotSaved
    base::HugeVector<NodeIndex> saved_nodes;
  };

  // The edges a subscribe_all() counts: new ones per node of each type,
  // and the (publisher, subscriber) types they join, in order of first edge.
  struct NewEdges {
    std::vector<std::vector<std::uint32_t>> down, up;
    std::vector<unsigned char> fed;  // [publisher type * types + subscriber type]
    std::vector<std::pair<TypeId, TypeId>> feeds;
  };

  Type& at(TypeId type);
  const Type& at(TypeId type) const;
  NewEdges new_edges() const;
  // Checks and counts one edge.
  void count_edge(NewEdges& counts, NodeRef subscriber, NodeRef publisher) const;
  // Makes room for the counted edges, then (after they are appended) settles.
  void reserve_edges(const NewEdges& counts);
  void settle_edges(const NewEdges& counts);
  // Throws unless subscriber may subscribe to publisher.
  void check_edge(NodeRef subscriber, NodeRef publisher) const;
  void add_subscriber_type(TypeId publisher, TypeId subscriber);
  // Sets one node dirty, reached from `cause` (the node itself for a root).
  void set_dirty(Type& t, NodeIndex n, NodeRef cause);
  // Sets every live node of `t` dirty, to be recalculated whole; `fresh`:
  // its subscribers are still to be marked.
  void set_all_dirty(Type& t, bool fresh);
  // Sets one node's dirty and fresh bits (set_dirty without the cause).
  void set_dirty_bit(Type& t, NodeIndex n);
  // set_dirty of nodes first .. first + count - 1, a word at a time when it can.
  void set_dirty_range(Type& t, NodeIndex first, std::size_t count, NodeRef cause);
  // Marks what is downstream of the fresh nodes, tier by tier.
  void propagate();
  // Throws std::out_of_range, naming `caller`, unless every node exists.
  void check_in_range(std::span<const NodeRef> nodes, const char* caller) const;
  // Marks the subscribers of node n of type id, but none of a `pulled` type.
  void walk(TypeId id, NodeIndex n, std::span<const unsigned char> pulled = {});
  // The walk of every fresh node of type id, skipping `pulled` types, when
  // the others are not incremental and about to get many marks: branch-free
  // marks. False (nothing done) otherwise.
  bool walk_plain(TypeId id, std::span<const unsigned char> pulled);
  // Whether reading every input of type sub costs less than walking the
  // fresh nodes of type pub; pull() does so, marking what they reach.
  bool pull_pays(TypeId sub, TypeId pub) const;
  void pull(TypeId sub, TypeId pub);
  static void recount(Type& t);
  // Makes dirty_list hold exactly the dirty nodes, in index order.
  static void order_dirty(Type& t);
  // Groups an incremental type's cause_log into causes (prepare_flush).
  static void group_causes(Type& t);
  const std::byte* previous_bytes(NodeRef publisher, std::size_t bytes) const;
  // Parts of check(): one type's edges and arenas, its marks and lists, its changed inputs.
  void check_edges(TypeId id) const;
  void check_marks(TypeId id) const;
  void check_causes(TypeId id) const;

  std::vector<Type> types_;
  std::vector<TypeId> by_tier_;  // type ids in tier order
  bool flushing_ = false;        // between prepare_flush() and finish_flush()
};

template <class ForEachEdge>
  requires(!std::ranges::range<ForEachEdge>)
void Graph::subscribe_all(ForEachEdge for_each_edge) {
  NewEdges counts = new_edges();
  for_each_edge([&](NodeRef subscriber, NodeRef publisher) { count_edge(counts, subscriber, publisher); });
  reserve_edges(counts);
  for_each_edge([this](NodeRef subscriber, NodeRef publisher) {
    types_[publisher.type].downstream.append(publisher.index, subscriber);
    types_[subscriber.type].upstream.append(subscriber.index, publisher);
  });
  settle_edges(counts);
}

}  // namespace engine
