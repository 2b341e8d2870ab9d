#include "bond_risk/model/reason.h"

namespace bond_risk {

namespace {

std::string name_of(const Store& store, NodeRef node) {
  return std::string(kind_name(kind_of(node))) + " " + std::to_string(store.id(node));
}

// The inputs of `node` that have status `wanted` (or any broken one, when
// wanted is STALE), described in words.
std::string inputs_with(const Store& store, const engine::Graph& graph, NodeRef node, bool broken) {
  std::size_t count = 0;
  std::string first;
  for (NodeRef in : graph.publishers(node)) {
    const Status s = store.state(in).status;
    if (broken ? !is_broken(s) : s != Status::expired) continue;
    if (count++ == 0) first = name_of(store, in) + " is " + std::string(status_name(s));
  }
  if (count <= 1) return first;
  return std::to_string(count) + " inputs are " + (broken ? "FAILED or STALE" : "EXPIRED") + ", first " + first;
}

// The date that decides a bond's or repo's dynamic status, and its name.
std::pair<const char*, Date> deciding_date(const Store& store, NodeRef node) {
  if (kind_of(node) == Kind::bond) return {"maturity_date", store.bonds[node.index].maturity};
  return {"end_date", store.repo_trades[node.index].end};
}

Date today_of(const Store& store, NodeRef node) {
  const NodeIndex cal = kind_of(node) == Kind::bond ? store.bonds[node.index].calendar
                                                    : store.repo_trades[node.index].calendar;
  return store.calendars[cal].today;
}

}  // namespace

std::string reason(const Store& store, const engine::Graph& graph, NodeRef node) {
  switch (store.state(node).status) {
    case Status::ok: return "";
    case Status::removed: return "removed by an event";
    case Status::stale: return inputs_with(store, graph, node, true);
    case Status::failed: {
      if (store.state(node).error != 0) return store.error(node);
      const auto [field, date] = deciding_date(store, node);
      return std::string(field) + " " + format_date(date) + " is beyond the curve horizon of " +
             std::to_string(kNumForwardDays) + " days from today " + format_date(today_of(store, node));
    }
    case Status::expired: {
      std::string inputs = inputs_with(store, graph, node, false);
      if (!inputs.empty()) return inputs;
      const auto [field, date] = deciding_date(store, node);
      return std::string(field) + " " + format_date(date) + " is before today " + format_date(today_of(store, node));
    }
  }
  return "";
}

}  // namespace bond_risk
