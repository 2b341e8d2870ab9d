#include "bond_risk/model/store/store.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "bond_risk/model/inputs/input_tables.h"

namespace bond_risk {

std::size_t Store::size() const {
  std::size_t n = 0;
  for (const auto& v : ids) n += v.size();
  return n;
}

std::string Store::name_of(NodeRef n) const {
  const std::vector<std::string>& named = node_names[n.type];
  if (n.index < named.size() && !named[n.index].empty()) return named[n.index];
  return std::to_string(id(n));
}

void Store::add_name(std::string name, NodeRef n) {
  if (!names.emplace(name, n).second) return;
  std::vector<std::string>& named = node_names[n.type];
  if (named.size() <= n.index) named.resize(n.index + 1);
  named[n.index] = std::move(name);
}

NodeIndex Store::add(Kind kind, std::int64_t id) {
  auto& kind_ids = ids[static_cast<std::size_t>(kind)];
  const auto index = static_cast<NodeIndex>(kind_ids.size());
  kind_ids.push_back(id);
  states[static_cast<std::size_t>(kind)].emplace_back();
  max_id = std::max(max_id, id);
  const NodeRef node = ref(kind, index);
  if (!by_id.insert(id, node)) {
    fail(node, "id " + std::to_string(id) + " is already used by " + std::string(kind_name(kind_of(*by_id.find(id)))) +
                   " " + std::to_string(id));
  }
  return index;
}

void Store::fail(NodeRef node, std::string reason) {
  NodeState& s = state(node);
  if (s.error == 0) s.error = add_error(std::move(reason));
}

std::uint32_t Store::add_error(std::string reason) {
  if (!free_errors.empty()) {
    const std::uint32_t index = free_errors.back();
    free_errors.pop_back();
    errors[index] = std::move(reason);
    return index;
  }
  if (errors.size() >= (1u << 24)) throw std::runtime_error("more than 16 million invalid rows; fix the data");
  errors.push_back(std::move(reason));
  return static_cast<std::uint32_t>(errors.size() - 1);
}

void Store::release_error(std::uint32_t index) {
  if (index == 0) return;
  std::string().swap(errors[index]);
  free_errors.push_back(index);
}

void Store::clear_error(NodeRef node) {
  release_error(state(node).error);
  state(node).error = 0;
}

void Store::set_quote(NodeIndex bond, std::optional<double> clean_price, const std::string& unreadable) {
  Bond& b = bonds[bond];
  b.quote = kNull;
  release_error(b.quote_error);
  b.quote_error = 0;
  if (!clean_price && unreadable.empty()) return;
  if (clean_price && *clean_price > 0 && std::isfinite(*clean_price)) {
    b.quote = *clean_price;
    return;
  }
  b.quote_error = add_error(!unreadable.empty() ? "bond_quote " + unreadable
                                                : "bond_quote clean_price " + field_text(FieldValue{*clean_price}) +
                                                      " is not a finite positive number");
}

void Store::check() const {
  const auto fail = [](const std::string& what) { throw std::logic_error("Store::check: " + what); };
  const std::size_t data[kKindCount] = {calendars.size(),      curves.size(),      bonds.size(),     outright_trades.size(),
                                        repo_trades.size(),    outright_books.size(), repo_books.size()};
  if (bond_values.size() != bonds.size() || bond_cs01.size() != bonds.size() ||
      bond_quoted.size() != bonds.size() || bond_figures.size() != bonds.size() ||
      quote_yield_memos.size() != bonds.size() || coupon_schedules.size() != bonds.size() ||
      outright_values.size() != outright_trades.size() || outright_cs01.size() != outright_trades.size() ||
      outright_quoted.size() != outright_trades.size() || repo_values.size() != repo_trades.size()) {
    fail("a kind's published values and its nodes differ in number");
  }
  std::vector<bool> freed(errors.size());
  for (std::uint32_t slot : free_errors) {
    if (slot == 0 || slot >= errors.size() || freed[slot]) fail("free_errors holds slot " + std::to_string(slot) + " twice or out of range");
    freed[slot] = true;
  }
  for (std::size_t k = 0; k < kKindCount; ++k) {
    const std::string kind(kind_name(static_cast<Kind>(k)));
    if (ids[k].size() != data[k] || states[k].size() != data[k] || node_names[k].size() > data[k]) {
      fail(kind + ": ids, states, names and nodes differ in number");
    }
    for (NodeIndex i = 0; i < data[k]; ++i) {
      const NodeRef node = ref(static_cast<Kind>(k), i);
      const NodeRef* found = by_id.find(ids[k][i]);
      if (!found || id(*found) != ids[k][i]) fail(kind + " " + std::to_string(ids[k][i]) + ": by_id does not give its id back");
      if (ids[k][i] > max_id) fail(kind + " " + std::to_string(ids[k][i]) + ": above max_id");
      const std::uint32_t error = state(node).error;
      if (error >= errors.size() || freed[error]) fail(kind + " " + std::to_string(ids[k][i]) + ": its reason is a freed or missing slot");
    }
  }
  for (const auto& [name, node] : names) {
    if (node.type >= kKindCount || node.index >= node_names[node.type].size() || node_names[node.type][node.index] != name) {
      fail("the name '" + name + "' and node_names disagree");
    }
  }
  if (!ladder_curves.empty() && !std::ranges::equal(ladder_curves, bonds, {}, {}, &Bond::curve)) {
    fail("ladder_curves and the bonds' curves disagree");
  }
  const auto by_id_order = [](const RiskLimit& a, const RiskLimit& b) { return a.id < b.id; };
  if (!std::is_sorted(limits.begin(), limits.end(), by_id_order)) fail("the limits are not in id order");
}

void Store::lay_out_coupon_schedules() {
  std::vector<std::size_t> counts(bonds.size());
  std::vector<Date> from(bonds.size());
  for (std::size_t i = 0; i < bonds.size(); ++i) {
    const Bond& b = bonds[i];
    if (b.convention == kNoConvention || b.calendar >= calendars.size()) continue;
    from[i] = calendars[b.calendar].today;
    counts[i] = coupon_date_count(terms_of(b), from[i]);
  }
  coupon_schedules.lay_out(counts, from);
}

void Store::size_key_rates() {
  std::vector<std::size_t> counts;
  for (const IrCurve& c : curves) counts.push_back(c.points.size());
  key_rate_axis = key_rate_axis_for(counts);
  bond_kr01.assign(std::size_t{key_rate_axis.stride} * bonds.size(), 0.0);
  bond_ladder_version.assign(bonds.size(), 0);
  ladder_curves.clear();
  for (const Bond& b : bonds) ladder_curves.push_back(b.curve);
  for (OutrightBook& b : outright_books) b.kr01.assign(key_rate_axis.size, 0.0);
  for (RepoBook& b : repo_books) b.kr01.assign(2 * std::size_t{key_rate_axis.size}, 0.0);
}

}  // namespace bond_risk
