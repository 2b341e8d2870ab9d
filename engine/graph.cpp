#include "engine/graph.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace engine {

namespace {

// A type with at least this share of its live nodes dirty has its
// subscriber types marked dirty whole rather than its edges walked.
constexpr std::size_t kWholeShareNum = 7, kWholeShareDen = 8;

}  // namespace

TypeId Graph::add_type(std::string name, unsigned tier, BatchFn calc, TypeOptions options) {
  if (tier == 0) throw std::logic_error("node type " + name + ": tiers start at 1");
  if (static_cast<bool>(options.save_value) != (options.value_bytes > 0)) {
    throw std::logic_error("node type " + name + ": value_bytes and save_value go together");
  }
  options.cost = std::max<std::size_t>(options.cost, 1);
  Type& t = types_.emplace_back();
  t.name = std::move(name);
  t.tier = tier;
  t.calc = std::move(calc);
  t.options = std::move(options);
  const auto id = static_cast<TypeId>(types_.size() - 1);
  by_tier_.insert(std::upper_bound(by_tier_.begin(), by_tier_.end(), id,
                                   [&](TypeId a, TypeId b) { return types_[a].tier < types_[b].tier; }),
                  id);
  return id;
}

Graph::Type& Graph::at(TypeId type) {
  if (type >= types_.size()) throw std::out_of_range("unknown node type " + std::to_string(type));
  return types_[type];
}

const Graph::Type& Graph::at(TypeId type) const {
  if (type >= types_.size()) throw std::out_of_range("unknown node type " + std::to_string(type));
  return types_[type];
}

NodeIndex Graph::add_nodes(TypeId type, std::size_t count) {
  Type& t = at(type);
  const auto first = static_cast<NodeIndex>(t.state.size());
  const std::size_t size = first + count;
  t.downstream.resize(size);
  t.upstream.resize(size);
  t.state.resize(size, kDirty);
  for (std::size_t i = first; i < size; ++i) t.dirty_list.push_back(static_cast<NodeIndex>(i));
  t.dirty += count;
  t.live += count;
  t.walked = t.dirty_list.size();  // new nodes have no subscribers yet
  if (t.options.incremental) {
    t.causes.resize(size);
    t.whole.resize(size, 1);
  }
  return first;
}

void Graph::subscribe(NodeRef subscriber, NodeRef publisher) {
  Type& sub = at(subscriber.type);
  Type& pub = at(publisher.type);
  if (pub.tier >= sub.tier) {
    throw std::logic_error(sub.name + " (tier " + std::to_string(sub.tier) + ") cannot subscribe to " +
                           pub.name + " (tier " + std::to_string(pub.tier) + ")");
  }
  if (subscriber.index >= sub.state.size() || publisher.index >= pub.state.size()) {
    throw std::out_of_range("subscribe: node index out of range");
  }
  if (sub.state[subscriber.index] == kRetired || pub.state[publisher.index] == kRetired) {
    throw std::logic_error("subscribe: a retired node takes no edges");
  }
  pub.downstream.push_back(publisher.index, subscriber);
  sub.upstream.push_back(subscriber.index, publisher);
  if (std::find(pub.subscriber_types.begin(), pub.subscriber_types.end(), subscriber.type) == pub.subscriber_types.end()) {
    pub.subscriber_types.push_back(subscriber.type);
  }
}

void Graph::unsubscribe(NodeRef subscriber, NodeRef publisher) {
  Type& pub = at(publisher.type);
  Type& sub = at(subscriber.type);
  if (publisher.index >= pub.state.size() || subscriber.index >= sub.state.size()) {
    throw std::out_of_range("unsubscribe: node index out of range");
  }
  pub.downstream.erase_one(publisher.index, subscriber);
  sub.upstream.erase_one(subscriber.index, publisher);
}

std::span<const NodeRef> Graph::subscribers(NodeRef publisher) const {
  const Type& t = at(publisher.type);
  if (publisher.index >= t.state.size()) throw std::out_of_range("subscribers: node index out of range");
  return t.downstream.view(publisher.index);
}

std::span<const NodeRef> Graph::publishers(NodeRef subscriber) const {
  const Type& t = at(subscriber.type);
  if (subscriber.index >= t.state.size()) throw std::out_of_range("publishers: node index out of range");
  return t.upstream.view(subscriber.index);
}

void Graph::set_dirty(Type& t, NodeIndex n, NodeRef cause) {
  if (t.options.incremental && !t.whole[n]) {
    std::vector<NodeRef>& causes = t.causes[n];
    const bool root = cause.type == static_cast<TypeId>(&t - types_.data()) && cause.index == n;
    if (!root) causes.push_back(cause);  // each publisher reaches it once: a walked publisher is not walked again
    if (root || 2 * causes.size() >= t.upstream.view(n).size()) {
      t.whole[n] = 1;  // marked itself, or half its inputs changed: a whole recalculation costs no more
      causes.clear();
    }
  }
  if (t.state[n] != kClean) return;
  t.state[n] = kMarked;
  t.ordered = t.ordered && (t.dirty_list.empty() || t.dirty_list.back() < n);
  t.dirty_list.push_back(n);
  ++t.dirty;
}

void Graph::set_all_dirty(Type& t) {
  if (t.live == t.state.size()) {
    // No retired node (the usual case): every index, in order, without a branch per node.
    std::fill(t.state.begin(), t.state.end(), static_cast<unsigned char>(kMarked));
    t.dirty_list.resize(t.state.size());
    std::iota(t.dirty_list.begin(), t.dirty_list.end(), NodeIndex{0});
    t.walked = std::min(t.walked, t.dirty_list.size());
    t.ordered = true;
  } else {
    for (NodeIndex i = 0; i < t.state.size(); ++i) {
      if (t.state[i] == kClean) {
        t.state[i] = kMarked;
        t.dirty_list.push_back(i);
      }
    }
    t.ordered = false;
  }
  t.dirty = t.live;
  if (t.options.incremental) {
    for (NodeIndex i = 0; i < t.state.size(); ++i) {
      t.whole[i] = 1;
      t.causes[i].clear();
    }
  }
}

void Graph::walk(TypeId id, NodeIndex n) {
  Type& t = types_[id];
  t.state[n] = kDirty;
  for (NodeRef sub : t.downstream.view(n)) set_dirty(types_[sub.type], sub.index, {id, n});
}

void Graph::propagate() {
  for (TypeId id : by_tier_) {
    Type& t = types_[id];
    const std::size_t fresh = t.dirty_list.size() - t.walked;
    if (fresh == 0) continue;
    if (t.dirty * kWholeShareDen >= t.live * kWholeShareNum) {
      // Nearly all of it changed: everything that subscribes to it is dirty, whole.
      for (TypeId sub : t.subscriber_types) set_all_dirty(types_[sub]);
      std::replace(t.state.begin(), t.state.end(), static_cast<unsigned char>(kMarked), static_cast<unsigned char>(kDirty));
    } else if (fresh * 8 >= t.state.size()) {
      // Many: walk them in index order, so that their edges are read in order.
      for (NodeIndex n = 0; n < t.state.size(); ++n) {
        if (t.state[n] == kMarked) walk(id, n);
      }
    } else {
      for (std::size_t k = t.walked; k < t.dirty_list.size(); ++k) {
        if (t.state[t.dirty_list[k]] == kMarked) walk(id, t.dirty_list[k]);
      }
    }
    t.walked = t.dirty_list.size();
  }
}

void Graph::compact_edges() {
  for (Type& t : types_) {
    t.downstream.compact();
    t.upstream.compact();
  }
}

void Graph::mark_dirty(NodeRef node) {
  Type& t = at(node.type);
  if (node.index >= t.state.size()) throw std::out_of_range("mark_dirty: node index out of range");
  if (t.state[node.index] == kRetired) return;
  set_dirty(t, node.index, node);
  propagate();
}

void Graph::mark_all_dirty() {
  for (Type& t : types_) {
    set_all_dirty(t);
    t.walked = t.dirty_list.size();
  }
}

void Graph::retire(NodeRef node) {
  Type& t = at(node.type);
  if (node.index >= t.state.size()) throw std::out_of_range("retire: node index out of range");
  if (t.state[node.index] == kRetired) return;
  const std::vector<NodeRef> ins(publishers(node).begin(), publishers(node).end());
  const std::vector<NodeRef> outs(subscribers(node).begin(), subscribers(node).end());
  for (NodeRef p : ins) unsubscribe(node, p);
  for (NodeRef s : outs) {
    unsubscribe(s, node);
    mark_dirty(s);
  }
  if (t.state[node.index] != kClean) --t.dirty;
  t.state[node.index] = kRetired;
  t.ordered = false;  // its dirty_list entry, if any, must be dropped  // its dirty_list entry, if any, is skipped and dropped
  --t.live;
}

bool Graph::retired(NodeRef node) const { return at(node.type).state.at(node.index) == kRetired; }

std::optional<std::span<const NodeRef>> Graph::changed_inputs(NodeRef node) const {
  const Type& t = at(node.type);
  if (!t.options.incremental || t.whole.at(node.index)) return std::nullopt;
  return std::span<const NodeRef>(t.causes[node.index]);
}

void Graph::prepare_flush() {
  for (Type& t : types_) {
    // Index order: a scan of the states when many are dirty, a sort otherwise.
    if (t.ordered) {
      // already
    } else if (t.dirty * 8 >= t.state.size()) {
      t.dirty_list.clear();
      for (NodeIndex i = 0; i < t.state.size(); ++i) {
        if (t.state[i] == kDirty || t.state[i] == kMarked) t.dirty_list.push_back(i);
      }
    } else {
      std::erase_if(t.dirty_list, [&](NodeIndex i) { return t.state[i] != kDirty && t.state[i] != kMarked; });
      std::sort(t.dirty_list.begin(), t.dirty_list.end());
    }
    t.ordered = true;
    t.walked = t.dirty_list.size();
  }
  for (const Type& t : types_) {
    if (!t.options.incremental) continue;
    for (NodeIndex i : t.dirty_list) {
      if (t.whole[i]) continue;
      for (NodeRef in : t.causes[i]) {
        Type& pub = types_[in.type];
        if (!pub.options.save_value) continue;
        if (pub.saved_slot.size() <= in.index) pub.saved_slot.resize(pub.state.size(), kNotSaved);
        if (pub.saved_slot[in.index] != kNotSaved) continue;  // an input of several nodes
        pub.saved_slot[in.index] = static_cast<std::uint32_t>(pub.saved_nodes.size());
        pub.saved_nodes.push_back(in.index);
        pub.saved.resize(pub.saved_nodes.size() * pub.options.value_bytes);
        pub.options.save_value(in.index, pub.saved.data() + pub.saved.size() - pub.options.value_bytes);
      }
    }
  }
}

void Graph::finish_flush() {
  for (Type& t : types_) {
    for (NodeIndex i : t.saved_nodes) t.saved_slot[i] = kNotSaved;
    t.saved_nodes.clear();
    t.saved.clear();
  }
}

const std::byte* Graph::previous_bytes(NodeRef publisher, std::size_t bytes) const {
  const Type& t = at(publisher.type);
  if (!t.options.save_value) return nullptr;
  if (bytes != t.options.value_bytes) {
    throw std::logic_error("previous: node type " + t.name + " publishes " + std::to_string(t.options.value_bytes) +
                           " bytes, not " + std::to_string(bytes));
  }
  if (publisher.index >= t.saved_slot.size() || t.saved_slot[publisher.index] == kNotSaved) return nullptr;
  return t.saved.data() + std::size_t{t.saved_slot[publisher.index]} * bytes;
}

std::span<const NodeIndex> Graph::dirty(TypeId type) const { return at(type).dirty_list; }

void Graph::clear_dirty(TypeId type) {
  Type& t = at(type);
  if (t.dirty == t.state.size() && !t.options.incremental) {
    // Every node was dirty (a full flush): one memset instead of a scattered
    // write per node, which the master would otherwise do alone between tiers.
    std::fill(t.state.begin(), t.state.end(), kClean);
  } else {
    for (NodeIndex i : t.dirty_list) {
      if (t.state[i] != kRetired) t.state[i] = kClean;
      if (t.options.incremental) {
        t.whole[i] = 0;
        t.causes[i].clear();
      }
    }
  }
  t.dirty_list.clear();
  t.dirty = 0;
  t.walked = 0;
  t.ordered = true;
}

std::size_t Graph::dirty_count() const {
  std::size_t n = 0;
  for (const Type& t : types_) n += t.dirty;
  return n;
}

unsigned Graph::tier(TypeId type) const { return at(type).tier; }
std::size_t Graph::cost(TypeId type) const { return at(type).options.cost; }
const Graph::BatchFn& Graph::calculation(TypeId type) const { return at(type).calc; }

unsigned Graph::max_tier() const {
  unsigned m = 0;
  for (const Type& t : types_) m = std::max(m, t.tier);
  return m;
}

}  // namespace engine
