#include "bond_risk/model/nodes/result_rows.h"

#include <algorithm>
#include <numeric>

#include "bond_risk/model/store/published_values.h"
#include "bond_risk/model/store/reason.h"

namespace bond_risk {

void ResultRows::put(const Store& store, const engine::Graph& graph, NodeRef node) {
  const Kind kind = kind_of(node);
  const Status status = store.state(node).status;
  const PublishedValues values = published_values(store, node);
  const std::string why = status == Status::ok ? std::string() : reason(store, graph, node);
  ladder_.clear();
  if (stores_key_rates(kind)) key_rate_ladder(store, node, ladder_);
  assign(node.index, store.size(kind), {store.id(node), kind, status, values.span(), why, ladder_});
}

void ResultRows::put_older(const ResultRows& older) {
  for (std::size_t k = 0; k < kKindCount; ++k) {
    const Columns& theirs = older.columns_[k];
    const std::vector<std::uint32_t>& mine = columns_[k].slot;
    for (std::size_t r = 0; r < theirs.ids.size(); ++r) {
      const NodeIndex node = theirs.nodes[r];
      if (node < mine.size() && mine[node] != kNone) continue;
      assign(node, theirs.slot.size(), older.row(static_cast<Kind>(k), r));
    }
  }
}

void ResultRows::assign(NodeIndex node, std::size_t nodes, const ResultRow& row) {
  Columns& c = columns_[static_cast<std::size_t>(row.kind)];
  if (c.slot.size() <= node) c.slot.resize(std::max<std::size_t>(nodes, node + 1), kNone);
  std::uint32_t& r = c.slot[node];
  if (r == kNone) {
    r = static_cast<std::uint32_t>(c.ids.size());
    if (r == 0) c.width = row.values.size();
    c.nodes.push_back(node);
    c.ids.push_back(row.id);
    c.statuses.push_back(row.status);
    c.values.resize(c.values.size() + c.width);
    c.reasons.emplace_back();
    c.ladders.emplace_back();
  }
  c.ids[r] = row.id;
  c.statuses[r] = row.status;
  std::copy_n(row.values.begin(), std::min(c.width, row.values.size()), c.values.begin() + r * c.width);
  if (!row.reason.empty() || c.reasons[r].at != kNone) set_reason(c.reasons[r], row.reason);
  if (!row.key_rates.empty() || c.ladders[r].size != 0) set_ladder(c.ladders[r], row.key_rates);
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
