#include "engine/graph.h"

#include <algorithm>
#include <array>
#include <bit>
#include <iterator>
#include <string>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace engine {

namespace {

// A type with at least this share of its live nodes dirty has its
// subscriber types marked dirty whole rather than its edges walked.
constexpr std::size_t kWholeShareNum = 7, kWholeShareDen = 8;

// A node with at least this many subscribers, in increasing order, has
// them marked run by run.
constexpr std::size_t kRangeWalk = 64;

// `count` nodes of a type of `size` are many (an eighth or more): past
// that, marks go to the bitmap without a list, and walks take the bulk paths.
constexpr bool many(std::size_t count, std::size_t size) { return count * 8 >= size; }

// `count` dirty nodes of a type of `size` are listed in index order by a
// sort (some count log count steps) or a scan of the bitmap (size / 64
// words, a step each): the scan once it takes no more steps than the sort.
constexpr bool scan_to_order(std::size_t count, std::size_t size) {
  return count * std::bit_width(count) * 64 >= size;
}

// Marks `bits` of word k dirty, and fresh those that were not dirty yet.
inline void mark_word(Bitmap::Word* dirty, Bitmap::Word* fresh, std::size_t k, Bitmap::Word bits) {
  fresh[k] |= bits & ~dirty[k];
  dirty[k] |= bits;
}

// Graph::check()'s failure.
[[noreturn]] void violation(const std::string& what) { throw std::logic_error("graph check: " + what); }

}  // namespace

TypeId Graph::add_type(std::string name, unsigned tier, BatchFn calc, TypeOptions options) {
  if (tier == 0) throw std::logic_error("node type " + name + ": tiers start at 1");
  if (static_cast<bool>(options.save_values) != (options.value_bytes > 0)) {
    throw std::logic_error("node type " + name + ": value_bytes and save_values go together");
  }
  if (options.split.steps > 0 && (!options.split.parts || !options.split.run)) {
    throw std::logic_error("node type " + name + ": a split needs its parts and run functions");
  }
  if (static_cast<bool>(options.first) != static_cast<bool>(options.rest)) {
    throw std::logic_error("node type " + name + ": first and rest go together");
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
  const auto first = static_cast<NodeIndex>(t.size);
  t.size += count;
  t.live += count;
  t.downstream.resize(t.size);
  t.upstream.resize(t.size);
  t.dirty.resize(t.size);
  t.fresh.resize(t.size);
  t.retired.resize(t.size);
  for (NodeIndex i = first; i < t.size; ++i) {
    t.dirty.set(i);  // new nodes are dirty; they have no subscribers yet
    if (t.listed) t.dirty_list.push_back(i);
  }
  t.dirty_count += count;
  t.walked = t.dirty_list.size();
  if (t.options.incremental) {
    t.whole.resize(t.size, 1);
    t.cause_count.resize(t.size, 0);
    t.cause_end.resize(t.size, 0);
  }
  return first;
}

void Graph::check_edge(NodeRef subscriber, NodeRef publisher) const {
  const Type& sub = at(subscriber.type);
  const Type& pub = at(publisher.type);
  if (pub.tier >= sub.tier) {
    throw std::logic_error(sub.name + " (tier " + std::to_string(sub.tier) + ") cannot subscribe to " +
                           pub.name + " (tier " + std::to_string(pub.tier) + ")");
  }
  if (subscriber.index >= sub.size || publisher.index >= pub.size) {
    throw std::out_of_range("subscribe: node index out of range");
  }
  if (sub.retired.test(subscriber.index) || pub.retired.test(publisher.index)) {
    throw std::logic_error("subscribe: a retired node takes no edges");
  }
}

void Graph::add_subscriber_type(TypeId publisher, TypeId subscriber) {
  std::vector<TypeId>& types = types_[publisher].subscriber_types;
  if (std::find(types.begin(), types.end(), subscriber) == types.end()) types.push_back(subscriber);
}

void Graph::subscribe(NodeRef subscriber, NodeRef publisher) {
  check_edge(subscriber, publisher);
  Type& sub = types_[subscriber.type];
  Type& pub = types_[publisher.type];
  pub.downstream.push_back(publisher.index, subscriber);
  sub.upstream.push_back(subscriber.index, publisher);
  add_subscriber_type(publisher.type, subscriber.type);
}

Graph::NewEdges Graph::new_edges() const {
  NewEdges counts;
  for (const Type& t : types_) {
    counts.down.emplace_back(t.size, 0);
    counts.up.emplace_back(t.size, 0);
  }
  counts.fed.resize(types_.size() * types_.size(), 0);
  return counts;
}

void Graph::count_edge(NewEdges& counts, NodeRef subscriber, NodeRef publisher) const {
  check_edge(subscriber, publisher);
  ++counts.down[publisher.type][publisher.index];
  ++counts.up[subscriber.type][subscriber.index];
  if (!std::exchange(counts.fed[publisher.type * types_.size() + subscriber.type], 1)) {
    counts.feeds.emplace_back(publisher.type, subscriber.type);
  }
}

void Graph::reserve_edges(const NewEdges& counts) {
  for (std::size_t t = 0; t < types_.size(); ++t) {
    types_[t].downstream.reserve(counts.down[t]);
    types_[t].upstream.reserve(counts.up[t]);
  }
}

void Graph::settle_edges(const NewEdges& counts) {
  for (Type& t : types_) {
    t.downstream.settle();
    t.upstream.settle();
  }
  for (const auto& [publisher, subscriber] : counts.feeds) add_subscriber_type(publisher, subscriber);
}

void Graph::unsubscribe(NodeRef subscriber, NodeRef publisher) {
  Type& pub = at(publisher.type);
  Type& sub = at(subscriber.type);
  if (publisher.index >= pub.size || subscriber.index >= sub.size) {
    throw std::out_of_range("unsubscribe: node index out of range");
  }
  pub.downstream.erase_one(publisher.index, subscriber);
  sub.upstream.erase_one(subscriber.index, publisher);
}

std::span<const NodeRef> Graph::subscribers(NodeRef publisher) const {
  const Type& t = at(publisher.type);
  if (publisher.index >= t.size) throw std::out_of_range("subscribers: node index out of range");
  return t.downstream.view(publisher.index);
}

std::span<const NodeRef> Graph::publishers(NodeRef subscriber) const {
  const Type& t = at(subscriber.type);
  if (subscriber.index >= t.size) throw std::out_of_range("publishers: node index out of range");
  return t.upstream.view(subscriber.index);
}

inline void Graph::set_dirty_bit(Type& t, NodeIndex n) {
  if (!t.listed && !t.options.incremental) {
    // Many: no list, no count, no branch. Only live nodes have edges, so n is live.
    mark_word(t.dirty.words().data(), t.fresh.words().data(), n / 64, Bitmap::Word{1} << (n % 64));
    t.counted = false;
    return;
  }
  if (t.dirty.test(n)) return;
  t.dirty.set(n);
  t.fresh.set(n);
  ++t.dirty_count;
  ++t.fresh_count;
  if (!t.listed) return;
  if (many(t.dirty_list.size(), t.size)) {
    t.listed = false;  // the bitmap says which, and dirty() lists them from it
    return;
  }
  t.ordered = t.ordered && (t.dirty_list.empty() || t.dirty_list.back() < n);
  t.dirty_list.push_back(n);
}

void Graph::set_dirty(Type& t, NodeIndex n, NodeRef cause) {
  if (t.options.incremental && !t.whole[n]) {
    const bool root = cause.type == static_cast<TypeId>(&t - types_.data()) && cause.index == n;
    if (root || 2 * (t.cause_count[n] + 1) >= t.upstream.view(n).size()) {
      t.whole[n] = 1;  // marked itself, or half its inputs changed: a whole recalculation costs no more
    } else {
      ++t.cause_count[n];  // each publisher reaches it once: a walked publisher is not walked again
      t.cause_log.push_back({n, cause});
    }
  }
  set_dirty_bit(t, n);
}

void Graph::set_all_dirty(Type& t, bool fresh) {
  auto& d = t.dirty.words();
  auto& f = t.fresh.words();
  const auto& r = t.retired.words();
  if (fresh) {
    for (std::size_t k = 0; k < d.size(); ++k) f[k] |= ~d[k];  // the newly dirty (masked below)
  }
  t.dirty.fill();
  for (std::size_t k = 0; k < d.size(); ++k) {
    d[k] &= ~r[k];
    f[k] &= d[k];
  }
  t.counted = false;
  if (t.live == t.size) {
    // No retired node (the usual case): every index, in order.
    t.dirty_list.resize(t.size);
    std::iota(t.dirty_list.begin(), t.dirty_list.end(), NodeIndex{0});
    t.listed = true;
    t.ordered = true;
    t.walked = t.size;  // the fresh bits say which are still to walk
  } else {
    t.listed = false;
  }
  if (t.options.incremental) {
    std::fill(t.whole.begin(), t.whole.end(), 1);
    std::fill(t.cause_count.begin(), t.cause_count.end(), 0);
    t.cause_log.clear();
  }
}

void Graph::recount(Type& t) {
  if (t.counted) return;
  t.dirty_count = t.dirty.count();
  t.fresh_count = t.fresh.count();
  t.counted = true;
}

void Graph::walk(TypeId id, NodeIndex n, std::span<const unsigned char> pulled) {
  const EdgeArena& edges = types_[id].downstream;
  auto skip = [&](TypeId type) { return !pulled.empty() && pulled[type]; };
  if (edges.view(n).size() >= kRangeWalk && edges.increasing(n)) {
    // A curve's bonds, say: runs marked a word at a time.
    edges.for_each_run(n, [&](NodeRef first, std::size_t count) {
      if (!skip(first.type)) set_dirty_range(types_[first.type], first.index, count, {id, n});
    });
    return;
  }
  for (NodeRef sub : edges.view(n)) {
    if (!skip(sub.type)) set_dirty(types_[sub.type], sub.index, {id, n});
  }
}

void Graph::set_dirty_range(Type& t, NodeIndex first, std::size_t count, NodeRef cause) {
  if (t.listed && many(t.dirty_list.size() + count, t.size)) t.listed = false;  // the bitmap says
  if (t.options.incremental || t.listed) {
    for (std::size_t k = 0; k < count; ++k) set_dirty(t, static_cast<NodeIndex>(first + k), cause);
    return;
  }
  Bitmap::Word* dirty = t.dirty.words().data();
  Bitmap::Word* fresh = t.fresh.words().data();
  const std::size_t last = first + count;  // count > 0: a run has a node
  for (std::size_t k = first / 64; k <= (last - 1) / 64; ++k) mark_word(dirty, fresh, k, Bitmap::mask(k, first, last));
  t.counted = false;
}

bool Graph::walk_plain(TypeId id, std::span<const unsigned char> pulled) {
  // Bitmaps by type on the stack: stores to their words cannot alias them,
  // so the loop below reloads nothing per edge.
  constexpr std::size_t kMaxTypes = 16;
  std::array<Bitmap::Word*, kMaxTypes> dirty{}, fresh{};
  if (types_.size() > kMaxTypes) return false;
  const std::vector<TypeId>& subs = types_[id].subscriber_types;
  // Worth it only for many marks: an eighth or more of each type it feeds
  // (else they stay listed, and a small event costs in proportion to its size).
  const Type& t = types_[id];
  const std::size_t marks = t.fresh_count * t.downstream.edges() / std::max<std::size_t>(t.live, 1);
  if (std::ranges::any_of(subs, [&](TypeId sub) {
        const Type& s = types_[sub];
        return !pulled[sub] && (s.options.incremental || !many(marks, s.size));
      })) {
    return false;
  }
  for (TypeId sub : subs) {
    if (pulled[sub]) continue;  // its bitmaps stay null: its edges are skipped
    Type& s = types_[sub];
    s.listed = false;  // many marks to come: the bitmap says which (dirty() lists them)
    s.counted = false;
    dirty[sub] = s.dirty.words().data();
    fresh[sub] = s.fresh.words().data();
  }
  const EdgeArena& edges = types_[id].downstream;
  types_[id].fresh.for_each([&](std::size_t n) {
    const std::span<const NodeRef> out = edges.view(static_cast<NodeIndex>(n));
    if (out.size() >= kRangeWalk) return walk(id, static_cast<NodeIndex>(n), pulled);
    for (NodeRef sub : out) {
      if (!dirty[sub.type]) continue;
      mark_word(dirty[sub.type], fresh[sub.type], sub.index / 64, Bitmap::Word{1} << (sub.index % 64));
    }
  });
  return true;
}

bool Graph::pull_pays(TypeId sub, TypeId pub) const {
  const Type& s = types_[sub];
  const Type& p = types_[pub];
  const std::size_t pull = s.size + s.upstream.loose_edges();  // slices, and the edges read one by one
  // The walk's edges into sub: at most all of sub's inputs.
  const std::size_t push =
      p.fresh_count * std::min(p.downstream.edges(), s.upstream.edges()) / std::max<std::size_t>(p.live, 1);
  return 2 * pull < push;
}

void Graph::pull(TypeId sub, TypeId pub) {
  Type& s = types_[sub];
  const Bitmap& fresh = types_[pub].fresh;
  // Calls fn(publisher) for each fresh publisher of type pub among n's inputs, in input order.
  auto for_each_fresh = [&](NodeIndex n, std::span<const NodeRef> in, auto fn) {
    if (s.upstream.run(n)) {
      if (in[0].type == pub) fresh.for_each(in[0].index, in[0].index + in.size(), [&](std::size_t i) { fn(i); });
      return;
    }
    for (NodeRef e : in) {
      if (e.type == pub && fresh.test(e.index)) fn(e.index);
    }
  };
  for (NodeIndex n = 0; n < s.size; ++n) {
    const std::span<const NodeRef> in = s.upstream.view(n);  // a retired node has none
    if (in.empty()) continue;
    std::size_t changed = 0;
    if (s.upstream.run(n)) {
      if (in[0].type == pub) changed = fresh.count(in[0].index, in[0].index + in.size());
    } else {
      for_each_fresh(n, in, [&](std::size_t) { ++changed; });
    }
    if (changed == 0) continue;
    if (s.options.incremental && !s.whole[n]) {
      // set_dirty's rule, for `changed` publishers at once.
      if (2 * (s.cause_count[n] + changed) >= in.size()) {
        s.whole[n] = 1;
      } else {
        s.cause_count[n] += static_cast<std::uint32_t>(changed);
        for_each_fresh(n, in, [&](std::size_t i) { s.cause_log.push_back({n, NodeRef{pub, static_cast<NodeIndex>(i)}}); });
      }
    }
    set_dirty_bit(s, n);
  }
}

void Graph::propagate() {
  for (TypeId id : by_tier_) {
    Type& t = types_[id];
    recount(t);
    if (t.fresh_count == 0) continue;
    if (t.dirty_count * kWholeShareDen >= t.live * kWholeShareNum) {
      // Nearly all of it changed: everything that subscribes to it is dirty, whole.
      for (TypeId sub : t.subscriber_types) set_all_dirty(types_[sub], true);
      t.fresh.clear();
    } else if (!t.listed || many(t.fresh_count, t.size)) {
      // Many: a subscriber type whose inputs can be read for less than the
      // walk would cost (a few hundred books of members laid out in runs)
      // pulls its marks from the fresh bits; the rest is walked in index
      // order, so that edges are read in order.
      std::vector<unsigned char> pulled(types_.size(), 0);
      bool walk_rest = false;
      for (TypeId sub : t.subscriber_types) {
        if (pull_pays(sub, id)) {
          pull(sub, id);
          pulled[sub] = 1;
        } else {
          walk_rest = true;
        }
      }
      if (walk_rest && !walk_plain(id, pulled)) {
        t.fresh.for_each([&](std::size_t n) { walk(id, static_cast<NodeIndex>(n), pulled); });
      }
      t.fresh.clear();
    } else {
      // A few scattered nodes (a quote tick's bonds, their trades): each
      // walk misses the cache twice (its slice, its edges), so the slices
      // are fetched kAhead nodes ahead and the edges kAhead / 2 ahead.
      constexpr std::size_t kAhead = 8;
      const auto& list = t.dirty_list;
      for (std::size_t k = t.walked; k < list.size(); ++k) {
        if (k + kAhead < list.size()) t.downstream.prefetch_slice(list[k + kAhead]);
        if (k + kAhead / 2 < list.size()) t.downstream.prefetch_edges(list[k + kAhead / 2]);
        const NodeIndex n = list[k];
        if (!t.fresh.test(n)) continue;
        t.fresh.reset(n);
        walk(id, n);
      }
    }
    t.fresh_count = 0;
    t.walked = t.dirty_list.size();
  }
}

void Graph::mark_dirty(NodeRef node) { mark_dirty(std::span<const NodeRef>(&node, 1)); }

void Graph::check_in_range(std::span<const NodeRef> nodes, const char* caller) const {
  for (NodeRef node : nodes) {
    if (node.index >= at(node.type).size) throw std::out_of_range(std::string(caller) + ": node index out of range");
  }
}

void Graph::mark_dirty(std::span<const NodeRef> nodes) {
  check_in_range(nodes, "mark_dirty");
  for (NodeRef node : nodes) {
    Type& t = at(node.type);
    if (!t.retired.test(node.index)) set_dirty(t, node.index, node);
  }
  propagate();
}

void Graph::mark_dirty_through(std::span<const NodeRef> nodes, TypeId reach) {
  if (at(reach).options.incremental) throw std::logic_error("mark_dirty_through: an incremental type cannot be the reach");
  check_in_range(nodes, "mark_dirty_through");
  std::vector<unsigned char> others(types_.size(), 1);  // walk() passes over these types
  others[reach] = 0;
  for (NodeRef node : nodes) {
    Type& t = types_[node.type];
    if (t.retired.test(node.index) || t.dirty.test(node.index)) continue;  // dirty: all its subscribers are
    t.held.push_back({node.index, reach});
    walk(node.type, node.index, others);
  }
  propagate();
}

void Graph::mark_all_dirty() {
  for (Type& t : types_) {
    set_all_dirty(t, false);  // every subscriber is dirty too: nothing to walk
    t.dirty_count = t.live;
    t.counted = true;
  }
}

void Graph::retire(NodeRef node) {
  Type& t = at(node.type);
  if (node.index >= t.size) throw std::out_of_range("retire: node index out of range");
  if (t.retired.test(node.index)) return;
  const std::vector<NodeRef> ins(publishers(node).begin(), publishers(node).end());
  const std::vector<NodeRef> outs(subscribers(node).begin(), subscribers(node).end());
  for (NodeRef p : ins) unsubscribe(node, p);
  for (NodeRef s : outs) {
    unsubscribe(s, node);
    mark_dirty(s);
  }
  recount(t);
  if (t.dirty.test(node.index)) --t.dirty_count;
  t.dirty.reset(node.index);
  t.fresh.reset(node.index);  // (propagate leaves none)
  t.retired.set(node.index);
  t.ordered = false;  // its dirty_list entry, if any, is dropped
  if (t.options.incremental) t.whole[node.index] = 1;  // its logged causes are dropped
  --t.live;
}

bool Graph::retired(NodeRef node) const {
  const Type& t = at(node.type);
  if (node.index >= t.size) throw std::out_of_range("retired: node index out of range");
  return t.retired.test(node.index);
}

std::optional<std::span<const NodeRef>> Graph::changed_inputs(NodeRef node) const {
  const Type& t = at(node.type);
  if (!flushing_) throw std::logic_error("changed_inputs: only during a flush");
  if (!t.options.incremental || t.whole.at(node.index)) return std::nullopt;
  const std::uint32_t count = t.cause_count[node.index];
  return std::span<const NodeRef>(t.causes.data() + t.cause_end[node.index] - count, count);
}

void Graph::order_dirty(Type& t) {
  if (t.listed && t.ordered) return;
  recount(t);
  // Index order: from the bitmap when it is cheaper to scan, a sort otherwise.
  if (!t.listed || scan_to_order(t.dirty_count, t.size)) {
    t.dirty_list.clear();
    t.dirty.for_each([&](std::size_t n) { t.dirty_list.push_back(static_cast<NodeIndex>(n)); });
  } else {
    std::erase_if(t.dirty_list, [&](NodeIndex i) { return !t.dirty.test(i); });
    std::sort(t.dirty_list.begin(), t.dirty_list.end());
  }
  t.listed = true;
  t.ordered = true;
  t.walked = t.dirty_list.size();
}

void Graph::prepare_flush() {
  flushing_ = true;
  for (TypeId id = 0; id < types_.size(); ++id) {
    // The held nodes join the flush, walked no further: their subscribers
    // of its reach are dirty already, and the others are not to be.
    Type& t = types_[id];
    for (const auto& [n, reach] : t.held) {
      if (t.retired.test(n) || t.dirty.test(n)) continue;
      set_dirty(t, n, {id, n});
      t.fresh.reset(n);
      if (t.counted) --t.fresh_count;  // else recounted from the bitmaps
    }
    t.held.clear();
  }
  for (Type& t : types_) {
    order_dirty(t);
    if (t.options.incremental) group_causes(t);
  }
  for (const Type& t : types_) {
    for (NodeRef in : t.causes) {
      Type& pub = types_[in.type];
      if (!pub.options.save_values) continue;
      if (pub.saved_slot.size() <= in.index) pub.saved_slot.resize(pub.size, kNotSaved);
      if (pub.saved_slot[in.index] != kNotSaved) continue;  // an input of several nodes
      pub.saved_slot[in.index] = static_cast<std::uint32_t>(pub.saved_nodes.size());
      pub.saved_nodes.push_back(in.index);
    }
  }
  for (Type& t : types_) {  // a type's at once, so that its saver can fetch ahead
    if (t.saved_nodes.empty()) continue;
    t.saved.resize(t.saved_nodes.size() * t.options.value_bytes);
    t.options.save_values(t.saved_nodes, t.saved.data());
  }
}

void Graph::group_causes(Type& t) {
  // A counting sort of the log by node, each node's causes in marking order.
  // The counts are taken from the log itself, so that they always describe
  // this flush's causes (even after a flush that stopped half way).
  auto logged = [&](NodeIndex n) { return !t.whole[n] && !t.retired.test(n); };
  for (NodeIndex i : t.dirty_list) t.cause_count[i] = 0;
  for (const auto& entry : t.cause_log) {
    if (logged(entry.first)) ++t.cause_count[entry.first];
  }
  std::uint32_t end = 0;
  for (NodeIndex i : t.dirty_list) {
    if (t.whole[i]) continue;
    t.cause_end[i] = end;  // its first slot, until filled
    end += t.cause_count[i];
  }
  t.causes.resize(end);
  for (const auto& [n, cause] : t.cause_log) {
    if (logged(n)) t.causes[t.cause_end[n]++] = cause;
  }
  t.cause_log.clear();
}

void Graph::finish_flush() {
  flushing_ = false;
  for (Type& t : types_) {
    t.causes.clear();
    for (NodeIndex i : t.saved_nodes) t.saved_slot[i] = kNotSaved;
    t.saved_nodes.clear();
    t.saved.clear();
  }
}

const std::byte* Graph::previous_bytes(NodeRef publisher, std::size_t bytes) const {
  const Type& t = at(publisher.type);
  if (!t.options.save_values) return nullptr;
  if (bytes != t.options.value_bytes) {
    throw std::logic_error("previous: node type " + t.name + " publishes " + std::to_string(t.options.value_bytes) +
                           " bytes, not " + std::to_string(bytes));
  }
  if (publisher.index >= t.saved_slot.size() || t.saved_slot[publisher.index] == kNotSaved) return nullptr;
  return t.saved.data() + std::size_t{t.saved_slot[publisher.index]} * bytes;
}

std::span<const NodeIndex> Graph::dirty(TypeId type) {
  Type& t = at(type);
  order_dirty(t);
  return t.dirty_list;
}

void Graph::clear_dirty(TypeId type) {
  Type& t = at(type);
  order_dirty(t);
  if (t.dirty_list.size() * 64 >= t.size) {
    t.dirty.clear();  // a word at a time: many were dirty
  } else {
    for (NodeIndex i : t.dirty_list) t.dirty.reset(i);
  }
  if (t.options.incremental) {
    for (NodeIndex i : t.dirty_list) {
      t.whole[i] = 0;
      t.cause_count[i] = 0;
    }
  }
  t.dirty_list.clear();
  t.dirty_count = 0;
  t.walked = 0;
  t.ordered = true;
}

std::size_t Graph::dirty_count() const {
  std::size_t n = 0;
  for (const Type& t : types_) n += t.counted ? t.dirty_count : t.dirty.count();
  return n;
}

unsigned Graph::tier(TypeId type) const { return at(type).tier; }
std::size_t Graph::cost(TypeId type) const { return at(type).options.cost; }

std::size_t Graph::cost(TypeId type, Pass pass) const {
  const TypeOptions& o = at(type).options;
  return pass == Pass::first && o.first && o.first_cost > 0 ? o.first_cost : o.cost;
}
const Graph::BatchFn& Graph::calculation(TypeId type) const { return at(type).calc; }

Pass Graph::type_pass(TypeId type, Pass pass) const { return at(type).options.first ? pass : Pass::whole; }

const Graph::BatchFn& Graph::calculation(TypeId type, Pass pass) const {
  const Type& t = at(type);
  switch (pass) {
    case Pass::first: return t.options.first ? t.options.first : t.calc;
    case Pass::rest: return t.options.rest;
    case Pass::whole: break;
  }
  return t.calc;
}

const Split& Graph::split(TypeId type) const { return at(type).options.split; }

std::string Graph::tier_types(unsigned tier, std::string_view separator) const {
  std::string out;
  for (const Type& t : types_) {
    if (t.tier != tier) continue;
    if (!out.empty()) out += separator;
    out += t.name;
  }
  return out;
}

unsigned Graph::max_tier() const {
  unsigned m = 0;
  for (const Type& t : types_) m = std::max(m, t.tier);
  return m;
}

void Graph::check() const {
  if (flushing_) violation("called during a flush (or after one that threw): call it between flushes");
  for (TypeId id = 0; id < types_.size(); ++id) check_edges(id);
  // Both directions hold the same (publisher, subscriber) pairs, as often.
  std::vector<std::pair<NodeRef, NodeRef>> down, up;
  for (TypeId id = 0; id < types_.size(); ++id) {
    for (NodeIndex n = 0; n < types_[id].size; ++n) {
      for (NodeRef s : types_[id].downstream.view(n)) down.push_back({{id, n}, s});
      for (NodeRef p : types_[id].upstream.view(n)) up.push_back({p, {id, n}});
    }
  }
  std::ranges::sort(down);
  std::ranges::sort(up);
  const auto [d, u] = std::ranges::mismatch(down, up);
  if (d != down.end() || u != up.end()) {
    const bool extra_down = u == up.end() || (d != down.end() && *d < *u);
    const auto [p, s] = extra_down ? *d : *u;
    const std::string edge = "the edge from " + types_[p.type].name + " " + std::to_string(p.index) + " to " +
                             types_[s.type].name + " " + std::to_string(s.index);
    violation(edge + (extra_down ? " is listed more often by its publisher than by its subscriber"
                                 : " is listed more often by its subscriber than by its publisher"));
  }
  for (TypeId id = 0; id < types_.size(); ++id) {
    check_marks(id);
    check_causes(id);
  }
}

void Graph::check_edges(TypeId id) const {
  const Type& t = types_[id];
  auto node = [&](NodeIndex n) { return t.name + " " + std::to_string(n); };
  if (t.downstream.size() != t.size || t.upstream.size() != t.size || t.dirty.size() != t.size ||
      t.fresh.size() != t.size || t.retired.size() != t.size) {
    violation("type " + t.name + " has " + std::to_string(t.size) + " nodes but edge arenas or bitmaps of another size");
  }
  if (t.live != t.size - t.retired.count()) violation("type " + t.name + " counts " + std::to_string(t.live) + " live nodes");
  for (NodeIndex n = 0; n < t.size; ++n) {
    if (t.retired.test(n) && (!t.downstream.view(n).empty() || !t.upstream.view(n).empty())) {
      violation(node(n) + " is retired but has edges");
    }
    for (NodeRef p : t.upstream.view(n)) {
      if (p.type >= types_.size() || p.index >= types_[p.type].size) violation(node(n) + " has an input out of range");
      const Type& pub = types_[p.type];
      if (pub.tier >= t.tier) violation(node(n) + " subscribes to " + pub.name + ", not of a lower tier");
      if (std::ranges::count(pub.subscriber_types, id) != 1) {
        violation(node(n) + " subscribes to " + pub.name + ", whose subscriber types do not hold " + t.name + " once");
      }
    }
    for (NodeRef s : t.downstream.view(n)) {
      if (s.type >= types_.size() || s.index >= types_[s.type].size) violation(node(n) + " has a subscriber out of range");
    }
  }
  for (const EdgeArena* arena : {&t.downstream, &t.upstream}) {
    const char* direction = arena == &t.downstream ? "subscribers" : "inputs";
    std::size_t edges = 0, loose = 0;
    for (NodeIndex n = 0; n < t.size; ++n) {
      const std::span<const NodeRef> e = arena->view(n);
      edges += e.size();
      if (!arena->run(n)) loose += e.size();
      if (e.size() <= 1 && !(arena->run(n) && arena->increasing(n))) {
        violation("the " + std::string(direction) + " of " + node(n) + " are at most one but not flagged a run and increasing");
      }
      for (std::size_t k = 1; k < e.size(); ++k) {
        if (arena->run(n) && !(e[k].type == e[k - 1].type && e[k].index == e[k - 1].index + 1)) {
          violation("the " + std::string(direction) + " of " + node(n) + " are flagged a run but are not one");
        }
        if (arena->increasing(n) && !(e[k - 1] < e[k])) {
          violation("the " + std::string(direction) + " of " + node(n) + " are flagged increasing but are not");
        }
      }
    }
    if (edges != arena->edges() || loose != arena->loose_edges()) {
      violation("the " + std::string(direction) + " arena of type " + t.name + " counts " +
                std::to_string(arena->edges()) + " edges, " + std::to_string(arena->loose_edges()) +
                " outside runs; its slices hold " + std::to_string(edges) + " and " + std::to_string(loose));
    }
  }
}

void Graph::check_marks(TypeId id) const {
  const Type& t = types_[id];
  auto node = [&](std::size_t n) { return t.name + " " + std::to_string(n); };
  t.dirty.for_each([&](std::size_t n) {
    if (t.retired.test(n)) violation(node(n) + " is retired but dirty");
    for (NodeRef s : t.downstream.view(static_cast<NodeIndex>(n))) {
      if (!types_[s.type].dirty.test(s.index)) {
        violation(node(n) + " is dirty but its subscriber " + types_[s.type].name + " " + std::to_string(s.index) + " is not");
      }
    }
  });
  t.fresh.for_each([&](std::size_t n) { violation(node(n) + " is fresh: its subscribers are still to be marked"); });
  for (const auto& [n, reach] : t.held) {
    if (t.retired.test(n) || t.dirty.test(n)) continue;
    for (NodeRef s : t.downstream.view(n)) {
      if (s.type == reach && !types_[s.type].dirty.test(s.index)) {
        violation(node(n) + " is held but its subscriber " + types_[s.type].name + " " + std::to_string(s.index) +
                  " is not dirty");
      }
    }
  }
  if (t.counted && (t.dirty_count != t.dirty.count() || t.fresh_count != t.fresh.count())) {
    violation("type " + t.name + " counts " + std::to_string(t.dirty_count) + " dirty and " +
              std::to_string(t.fresh_count) + " fresh nodes; its bitmaps hold " + std::to_string(t.dirty.count()) +
              " and " + std::to_string(t.fresh.count()));
  }
  if (!t.listed) return;
  if (t.walked > t.dirty_list.size()) violation("type " + t.name + " has walked past the end of its dirty list");
  std::vector<unsigned char> seen(t.size, 0);
  for (std::size_t k = 0; k < t.dirty_list.size(); ++k) {
    const NodeIndex n = t.dirty_list[k];
    if (n >= t.size) violation("the dirty list of type " + t.name + " holds " + node(n) + ", out of range");
    if (seen[n]) violation("the dirty list of type " + t.name + " holds " + node(n) + " twice");
    seen[n] = 1;
    if (!t.dirty.test(n) && (t.ordered || !t.retired.test(n))) {
      violation("the dirty list of type " + t.name + " holds " + node(n) + ", which is not dirty");
    }
    if (t.ordered && k > 0 && t.dirty_list[k - 1] > n) {
      violation("the dirty list of type " + t.name + " is flagged ordered but " + node(n) + " follows " +
                node(t.dirty_list[k - 1]));
    }
  }
  t.dirty.for_each([&](std::size_t n) {
    if (!seen[n]) violation(node(n) + " is dirty but not in its type's dirty list");
  });
}

void Graph::check_causes(TypeId id) const {
  const Type& t = types_[id];
  auto node = [&](std::size_t n) { return t.name + " " + std::to_string(n); };
  if (!t.causes.empty() || !t.saved.empty() || !t.saved_nodes.empty() ||
      std::ranges::any_of(t.saved_slot, [](std::uint32_t slot) { return slot != kNotSaved; })) {
    violation("type " + t.name + " keeps changed inputs or previous values between flushes");
  }
  if (!t.options.incremental) return;
  if (t.whole.size() != t.size || t.cause_count.size() != t.size) {
    violation("incremental type " + t.name + " keeps changed inputs for another number of nodes");
  }
  // The logged causes of each live node not to be recalculated whole, by node.
  std::vector<std::pair<NodeIndex, NodeRef>> log;
  for (const auto& entry : t.cause_log) {
    if (entry.first >= t.size) violation("type " + t.name + " logs a changed input of " + node(entry.first) + ", out of range");
    if (!t.whole[entry.first] && !t.retired.test(entry.first)) log.push_back(entry);
  }
  std::ranges::sort(log);
  auto cause = log.begin();
  for (NodeIndex n = 0; n < t.size; ++n) {
    if (t.retired.test(n)) continue;
    if (!t.dirty.test(n) && (t.whole[n] || t.cause_count[n] != 0)) {
      violation(node(n) + " is not dirty but is to be recalculated whole or counts changed inputs");
    }
    if (t.dirty.test(n) && !t.whole[n] && t.cause_count[n] == 0) {
      violation(node(n) + " is dirty but neither to be recalculated whole nor told any changed input");
    }
    const auto first = cause;
    for (; cause != log.end() && cause->first == n; ++cause) {
      const NodeRef p = cause->second;
      if (std::ranges::find(t.upstream.view(n), p) == t.upstream.view(n).end()) {
        violation(node(n) + " logs a changed input that is not one of its inputs");
      }
      const std::string input = types_[p.type].name + " " + std::to_string(p.index);
      if (cause != first && std::prev(cause)->second == p) violation(node(n) + " logs its changed input " + input + " twice");
      if (!types_[p.type].dirty.test(p.index)) violation(node(n) + " logs " + input + " as a changed input, which is not dirty");
    }
    if (!t.whole[n] && static_cast<std::size_t>(cause - first) != t.cause_count[n]) {
      violation(node(n) + " counts " + std::to_string(t.cause_count[n]) + " changed inputs but logged " +
                std::to_string(cause - first));
    }
  }
}

}  // namespace engine
