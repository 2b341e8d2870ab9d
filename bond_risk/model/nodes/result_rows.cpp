#include "bond_risk/model/nodes/result_rows.h"

#include <algorithm>
#include <numeric>

#include "bond_risk/model/store/published_values.h"
#include "bond_risk/model/store/reason.h"

namespace bond_risk {

void ResultRows::put(const Store& store, const engine::Graph& graph, NodeRef node) {
  const Kind kind = kind_of(node);
  Columns& c = columns_[static_cast<std::size_t>(kind)];
  const std::uint32_t r = row_of(c, node.index, store.size(kind), value_names(kind).size());
  const Status status = store.state(node).status;
  c.ids[r] = store.id(node);
  c.statuses[r] = status;
  published_values(store, node, std::span(c.values).subspan(r * c.width, c.width));
  set_reason(c, r, status == Status::ok ? std::string() : reason(store, graph, node));
  if (stores_key_rates(kind)) {
    ladder_.clear();
    key_rate_ladder(store, node, ladder_);
    set_ladder(c, r, ladder_);
  }
}

void ResultRows::put_older(const ResultRows& older) {
  for (std::size_t k = 0; k < kKindCount; ++k) {
    const Columns& theirs = older.columns_[k];
    Columns& c = columns_[k];
    for (std::size_t from = 0; from < theirs.ids.size(); ++from) {
      const NodeIndex node = theirs.nodes[from];
      if (node < c.slot.size() && c.slot[node] != kNone) continue;  // a newer row
      const ResultRow row = older.row(static_cast<Kind>(k), from);
      const std::uint32_t r = row_of(c, node, theirs.slot.size(), row.values.size());
      c.ids[r] = row.id;
      c.statuses[r] = row.status;
      std::ranges::copy(row.values, c.values.begin() + r * c.width);
      set_reason(c, r, row.reason);
      set_ladder(c, r, row.key_rates);
    }
  }
}

std::uint32_t ResultRows::row_of(Columns& c, NodeIndex node, std::size_t nodes, std::size_t width) {
  if (c.slot.size() <= node) c.slot.resize(std::max<std::size_t>(nodes, node + 1), kNone);
  std::uint32_t& r = c.slot[node];
  if (r != kNone) return r;
  r = static_cast<std::uint32_t>(c.ids.size());
  c.width = width;
  c.nodes.push_back(node);
  c.ids.emplace_back();
  c.statuses.emplace_back();
  c.values.resize(c.values.size() + width);
  c.extras.push_back(kNone);
  return r;
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
