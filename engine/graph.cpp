#include "engine/graph.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace engine {

TypeId Graph::add_type(std::string name, unsigned tier, BatchFn calc, TypeOptions options) {
  if (tier == 0) throw std::logic_error("node type " + name + ": tiers start at 1");
  if (static_cast<bool>(options.save_value) != (options.value_bytes > 0)) {
    throw std::logic_error("node type " + name + ": value_bytes and save_value go together");
  }
  options.cost = std::max<std::size_t>(options.cost, 1);
  Type t;
  t.name = std::move(name);
  t.tier = tier;
  t.calc = std::move(calc);
  t.options = std::move(options);
  types_.push_back(std::move(t));
  return static_cast<TypeId>(types_.size() - 1);
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
  const auto first = static_cast<NodeIndex>(t.downstream.size());
  const std::size_t size = first + count;
  t.downstream.resize(size);
  t.upstream.resize(size);
  t.is_dirty.resize(size, 1);
  for (std::size_t i = first; i < size; ++i) t.dirty_list.push_back(static_cast<NodeIndex>(i));
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
  if (subscriber.index >= sub.upstream.size() || publisher.index >= pub.downstream.size()) {
    throw std::out_of_range("subscribe: node index out of range");
  }
  pub.downstream[publisher.index].push_back(subscriber);
  sub.upstream[subscriber.index].push_back(publisher);
}

void Graph::unsubscribe(NodeRef subscriber, NodeRef publisher) {
  at(publisher.type).downstream.at(publisher.index).erase_one(subscriber);
  at(subscriber.type).upstream.at(subscriber.index).erase_one(publisher);
}

std::span<const NodeRef> Graph::subscribers(NodeRef publisher) const {
  return at(publisher.type).downstream.at(publisher.index).view();
}

std::span<const NodeRef> Graph::publishers(NodeRef subscriber) const {
  return at(subscriber.type).upstream.at(subscriber.index).view();
}

void Graph::mark_dirty(NodeRef node) {
  at(node.type).is_dirty.at(node.index);  // range check before the walk
  stack_.push_back({node, node});
  while (!stack_.empty()) {
    const auto [n, cause] = stack_.back();
    stack_.pop_back();
    Type& t = types_[n.type];
    if (t.options.incremental && !t.whole[n.index]) {
      std::vector<NodeRef>& causes = t.causes[n.index];
      if (cause != n) causes.push_back(cause);  // each publisher reaches it once: a dirty publisher stops the walk
      if (cause == n || 2 * causes.size() >= t.upstream[n.index].view().size()) {
        t.whole[n.index] = 1;  // marked itself, or half its inputs changed: a whole recalculation costs no more
        causes.clear();
      }
    }
    if (t.is_dirty[n.index]) continue;  // its downstream is dirty already
    t.is_dirty[n.index] = 1;
    t.dirty_list.push_back(n.index);
    for (NodeRef sub : t.downstream[n.index].view()) stack_.push_back({sub, n});
  }
}

void Graph::mark_all_dirty() {
  for (Type& t : types_) {
    std::fill(t.is_dirty.begin(), t.is_dirty.end(), 1);
    std::fill(t.whole.begin(), t.whole.end(), 1);
    for (auto& c : t.causes) c.clear();
    t.dirty_list.resize(t.is_dirty.size());
    std::iota(t.dirty_list.begin(), t.dirty_list.end(), NodeIndex{0});
  }
}

std::optional<std::span<const NodeRef>> Graph::changed_inputs(NodeRef node) const {
  const Type& t = at(node.type);
  if (!t.options.incremental || t.whole.at(node.index)) return std::nullopt;
  return std::span<const NodeRef>(t.causes[node.index]);
}

void Graph::save_previous_values() {
  for (const Type& t : types_) {
    if (!t.options.incremental) continue;
    for (NodeIndex i : t.dirty_list) {
      if (t.whole[i]) continue;
      for (NodeRef in : t.causes[i]) {
        Type& pub = types_[in.type];
        if (!pub.options.save_value) continue;
        if (pub.saved_slot.size() <= in.index) pub.saved_slot.resize(pub.downstream.size(), kNotSaved);
        if (pub.saved_slot[in.index] != kNotSaved) continue;  // an input of several nodes
        pub.saved_slot[in.index] = static_cast<std::uint32_t>(pub.saved_nodes.size());
        pub.saved_nodes.push_back(in.index);
        pub.saved.resize(pub.saved_nodes.size() * pub.options.value_bytes);
        pub.options.save_value(in.index, pub.saved.data() + pub.saved.size() - pub.options.value_bytes);
      }
    }
  }
}

void Graph::drop_previous_values() {
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
  if (t.dirty_list.size() == t.is_dirty.size() && !t.options.incremental) {
    // Every node was dirty (a full flush): one memset instead of a scattered
    // write per node, which the master would otherwise do alone between tiers.
    std::fill(t.is_dirty.begin(), t.is_dirty.end(), 0);
  } else {
    for (NodeIndex i : t.dirty_list) {
      t.is_dirty[i] = 0;
      if (t.options.incremental) {
        t.whole[i] = 0;
        t.causes[i].clear();
      }
    }
  }
  t.dirty_list.clear();
}

std::size_t Graph::dirty_count() const {
  std::size_t n = 0;
  for (const Type& t : types_) n += t.dirty_list.size();
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
