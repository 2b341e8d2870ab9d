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
  if (status != Status::ok || c.reasons[r].at != kNone) {
    set_reason(c.reasons[r], status == Status::ok ? std::string() : reason(store, graph, node));
  }
  if (stores_key_rates(kind)) {
    ladder_.clear();
    key_rate_ladder(store, node, ladder_);
    set_ladder(c.ladders[r], ladder_);
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
      if (!row.reason.empty()) set_reason(c.reasons[r], row.reason);
      if (!row.key_rates.empty()) set_ladder(c.ladders[r], row.key_rates);
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
  c.reasons.emplace_back();
  c.ladders.emplace_back();
  return r;
}

void ResultRows::set_reason(Extra& extra, std::string_view text) {
  if (extra.at == kNone) {
    extra.at = static_cast<std::uint32_t>(reasons_.size());
    reasons_.emplace_back();
  }
  reasons_[extra.at].assign(text);
  extra.size = static_cast<std::uint32_t>(text.size());
}

void ResultRows::set_ladder(Extra& extra, std::span<const KeyRate> ladder) {
  if (ladder.empty() && extra.size == 0) return;
  if (ladder.size() > extra.capacity) {  // its old space is left unused until clear(): at most one per growth
    extra.at = static_cast<std::uint32_t>(ladders_.size());
    extra.capacity = static_cast<std::uint32_t>(ladder.size());
    ladders_.resize(ladders_.size() + ladder.size());
  }
  std::copy(ladder.begin(), ladder.end(), ladders_.begin() + extra.at);
  extra.size = static_cast<std::uint32_t>(ladder.size());
}

std::size_t ResultRows::size() const {
  std::size_t n = 0;
  for (const Columns& c : columns_) n += c.ids.size();
  return n;
}

ResultRow ResultRows::row(Kind kind, std::size_t r) const {
  const Columns& c = columns_[static_cast<std::size_t>(kind)];
  const Extra& why = c.reasons[r];
  const Extra& ladder = c.ladders[r];
  return {c.ids[r],
          kind,
          c.statuses[r],
          std::span(c.values).subspan(r * c.width, c.width),
          why.at == kNone ? std::string_view() : std::string_view(reasons_[why.at]),
          ladder.size == 0 ? std::span<const KeyRate>() : std::span(ladders_).subspan(ladder.at, ladder.size)};
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
    c.nodes.clear(), c.ids.clear(), c.statuses.clear(), c.values.clear(), c.reasons.clear(), c.ladders.clear();
  }
  reasons_.clear();
  ladders_.clear();
}

}  // namespace bond_risk
