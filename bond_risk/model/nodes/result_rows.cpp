#include "bond_risk/model/nodes/result_rows.h"

#include <algorithm>
#include <numeric>

#include "bond_risk/model/store/published_values.h"
#include "bond_risk/model/store/reason.h"

namespace bond_risk {

void ResultRows::put(const Store& store, const engine::Graph& graph, Kind kind, std::span<const NodeIndex> nodes,
                     engine::Scheduler* workers) {
  Columns& c = columns_[static_cast<std::size_t>(kind)];
  const std::size_t from = c.ids.size();
  add_rows(c, nodes, store.size(kind), value_names(kind).size());
  if (kind == Kind::bond && store.with_key_rates) reserve_bond_ladders(store, c, from);
  // Chunks of a few thousand rows: enough to pay for waking a worker, small enough to share a slice.
  constexpr std::size_t kChunk = 2048;
  const bool parallel = workers != nullptr && workers->workers() > 0 && nodes.size() >= 2 * kChunk &&
                        std::ranges::adjacent_find(nodes, std::ranges::greater_equal()) == nodes.end();
  if (!parallel) {
    for (const NodeIndex i : nodes) {
      if (!fill_row(store, c, kind, i)) finish_row(store, graph, c, kind, i);
    }
    return;
  }
  const std::size_t chunks = (nodes.size() + kChunk - 1) / kChunk;
  if (deferred_.size() < chunks) deferred_.resize(chunks);
  for (std::size_t k = 0; k < chunks; ++k) {
    deferred_[k].clear();
    deferred_[k].reserve(kChunk);  // no allocation on a worker
  }
  workers->run(chunks, [&](std::size_t k) {
    for (const NodeIndex i : nodes.subspan(k * kChunk, std::min(kChunk, nodes.size() - k * kChunk))) {
      if (!fill_row(store, c, kind, i)) deferred_[k].push_back(i);
    }
  });
  for (std::size_t k = 0; k < chunks; ++k) {
    for (const NodeIndex i : deferred_[k]) finish_row(store, graph, c, kind, i);
  }
}

bool ResultRows::fill_row(const Store& store, Columns& c, Kind kind, NodeIndex i) {
  const NodeRef node = ref(kind, i);
  const std::uint32_t r = c.slot[i];
  const Status status = store.state(node).status;
  c.ids[r] = store.id(node);
  c.statuses[r] = status;
  published_values(store, node, std::span(c.values).subspan(r * c.width, c.width));
  Extras* extras = c.extras[r] == kNone ? nullptr : &extras_[c.extras[r]];
  if (status != Status::ok || (extras != nullptr && extras->reason != kNone)) return false;
  if (!stores_key_rates(kind)) return true;
  if (kind != Kind::bond) return false;  // a book's ladder: its length is known once it is read
  const std::size_t n = bond_ladder_size(store, i);
  if (extras == nullptr) return n == 0;
  if (n > extras->capacity) return false;
  if (n > 0) write_bond_ladder(store, i, std::span(ladders_).subspan(extras->ladder, n));
  extras->size = static_cast<std::uint32_t>(n);
  return true;
}

void ResultRows::finish_row(const Store& store, const engine::Graph& graph, Columns& c, Kind kind, NodeIndex i) {
  const NodeRef node = ref(kind, i);
  const std::uint32_t r = c.slot[i];
  const Status status = store.state(node).status;
  set_reason(c, r, status == Status::ok ? std::string() : reason(store, graph, node));
  if (stores_key_rates(kind)) {
    ladder_.clear();
    key_rate_ladder(store, node, ladder_);
    set_ladder(c, r, ladder_);
  }
}

void ResultRows::reserve_bond_ladders(const Store& store, Columns& c, std::size_t from) {
  std::size_t space = ladders_.size();
  for (std::size_t r = from; r < c.ids.size(); ++r) {
    const std::size_t points = store.curves[store.bonds[c.nodes[r]].curve].points.size();
    if (points == 0) continue;
    Extras& extras = extras_of(c, static_cast<std::uint32_t>(r));
    extras.ladder = static_cast<std::uint32_t>(space);
    extras.capacity = static_cast<std::uint32_t>(points);
    space += points;
  }
  ladders_.resize(space);
}

void ResultRows::put_older(const ResultRows& older) {
  for (std::size_t k = 0; k < kKindCount; ++k) {
    const Columns& theirs = older.columns_[k];
    Columns& c = columns_[k];
    for (std::size_t from = 0; from < theirs.ids.size(); ++from) {
      const NodeIndex node = theirs.nodes[from];
      if (node < c.slot.size() && c.slot[node] != kNone) continue;  // a newer row
      const ResultRow row = older.row(static_cast<Kind>(k), from);
      add_rows(c, {&node, 1}, theirs.slot.size(), row.values.size());
      const std::uint32_t r = c.slot[node];
      c.ids[r] = row.id;
      c.statuses[r] = row.status;
      std::ranges::copy(row.values, c.values.begin() + r * c.width);
      set_reason(c, r, row.reason);
      set_ladder(c, r, row.key_rates);
    }
  }
}

void ResultRows::add_rows(Columns& c, std::span<const NodeIndex> nodes, std::size_t count, std::size_t width) {
  if (c.slot.size() < count) c.slot.resize(count, kNone);
  c.width = width;
  const std::size_t before = c.ids.size();
  std::size_t at_most = 0;  // rows to add, a node listed twice counted twice
  for (const NodeIndex i : nodes) at_most += c.slot[i] == kNone;
  if (at_most == 0) return;
  c.nodes.resize(before + at_most);
  std::size_t added = 0;
  for (const NodeIndex i : nodes) {
    if (c.slot[i] != kNone) continue;
    c.slot[i] = static_cast<std::uint32_t>(before + added);
    c.nodes[before + added++] = i;
  }
  c.nodes.resize(before + added);
  c.ids.resize(before + added);
  c.statuses.resize(before + added);
  c.values.resize((before + added) * width);
  c.extras.resize(before + added, kNone);
}

ResultRows::Extras& ResultRows::extras_of(Columns& c, std::uint32_t r) {
  if (c.extras[r] == kNone) {
    c.extras[r] = static_cast<std::uint32_t>(extras_.size());
    extras_.emplace_back();
  }
  return extras_[c.extras[r]];
}

void ResultRows::set_reason(Columns& c, std::uint32_t r, std::string_view text) {
  if (text.empty() && (c.extras[r] == kNone || extras_[c.extras[r]].reason == kNone)) return;
  Extras& extras = extras_of(c, r);
  if (extras.reason == kNone) {
    extras.reason = static_cast<std::uint32_t>(reasons_used_++);
    if (reasons_.size() < reasons_used_) reasons_.emplace_back();
  }
  reasons_[extras.reason].assign(text);
}

void ResultRows::set_ladder(Columns& c, std::uint32_t r, std::span<const KeyRate> ladder) {
  if (ladder.empty() && c.extras[r] == kNone) return;
  Extras& extras = extras_of(c, r);
  if (ladder.size() > extras.capacity) {  // its old space is left unused until clear(): at most one per growth
    extras.ladder = static_cast<std::uint32_t>(ladders_.size());
    extras.capacity = static_cast<std::uint32_t>(ladder.size());
    ladders_.resize(ladders_.size() + ladder.size());
  }
  std::ranges::copy(ladder, ladders_.begin() + extras.ladder);
  extras.size = static_cast<std::uint32_t>(ladder.size());
}

std::size_t ResultRows::size() const {
  std::size_t n = 0;
  for (const Columns& c : columns_) n += c.ids.size();
  return n;
}

ResultRow ResultRows::row(Kind kind, std::size_t r) const {
  const Columns& c = columns_[static_cast<std::size_t>(kind)];
  ResultRow row{c.ids[r], kind, c.statuses[r], std::span(c.values).subspan(r * c.width, c.width), {}, {}};
  if (c.extras[r] != kNone) {
    const Extras& extras = extras_[c.extras[r]];
    if (extras.reason != kNone) row.reason = reasons_[extras.reason];
    row.key_rates = std::span(ladders_).subspan(extras.ladder, extras.size);
  }
  return row;
}

std::span<const std::uint32_t> ResultRows::in_id_order(Kind kind) {
  Columns& c = columns_[static_cast<std::size_t>(kind)];
  c.order.resize(c.ids.size());
  std::iota(c.order.begin(), c.order.end(), 0u);
  std::ranges::sort(c.order, [&](std::uint32_t a, std::uint32_t b) { return c.ids[a] < c.ids[b]; });
  return c.order;
}

void ResultRows::clear() {
  for (Columns& c : columns_) {
    for (const NodeIndex node : c.nodes) c.slot[node] = kNone;
    c.nodes.clear(), c.ids.clear(), c.statuses.clear(), c.values.clear(), c.extras.clear();
  }
  extras_.clear();
  reasons_used_ = 0;  // the strings stay, for the next batch's reasons
  ladders_.clear();
}

}  // namespace bond_risk
