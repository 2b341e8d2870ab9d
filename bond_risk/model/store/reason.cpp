#include "bond_risk/model/store/reason.h"

#include "bond_risk/model/store/end_date.h"
#include "bond_risk/model/inputs/input_tables.h"

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

// Why a bond's or repo's own dates make it FAILED or EXPIRED ("" when they do not).
std::string end_date_reason(const Store& store, NodeRef node) {
  if (kind_of(node) != Kind::bond && kind_of(node) != Kind::repo_trade) return "";
  if (kind_of(node) == Kind::bond) {
    const Bond& b = store.bonds[node.index];
    const Calendar& calendar = store.calendars[b.calendar];
    const int horizon = store.curves[b.curve].horizon();
    if (b.convention != kNoConvention) {
      return end_reason(end_date(b, calendar, *store.conventions[b.convention].parsed.convention, horizon), calendar.today);
    }
    return end_reason(end_date(b, horizon), calendar.today);
  }
  const RepoTrade& r = store.repo_trades[node.index];
  return end_reason(end_date(r, store.curves[r.curve].horizon()), store.calendars[r.calendar].today);
}

// Why a bond's quote or price left it without figures ("" when neither did).
std::string quote_reason(const Store& store, NodeIndex bond) {
  const Bond& b = store.bonds[bond];
  if (b.quote_error != 0) return store.errors[b.quote_error];
  switch (store.bond_figures[bond].failure) {
    case AnalyticsFailure::none: return "";
    case AnalyticsFailure::no_yield: return "no yield reprices its price (docs/model.md \"Quote analytics\")";
    case AnalyticsFailure::no_spread:
      return "no z-spread reprices its quote " + field_text(FieldValue{b.quote}) + " to the curve";
    case AnalyticsFailure::no_quote_yield:
      return "no yield reprices its quote " + field_text(FieldValue{b.quote}) + " plus accrued";
  }
  return "";
}

}  // namespace

std::string reason(const Store& store, const engine::Graph& graph, NodeRef node) {
  switch (store.state(node).status) {
    case Status::ok: return "";
    case Status::removed: return "removed by an event";
    case Status::stale: return inputs_with(store, graph, node, true);
    case Status::failed: {
      if (store.state(node).error != 0) return store.error(node);
      if (kind_of(node) == Kind::bond) {
        if (std::string quote = quote_reason(store, node.index); !quote.empty()) return quote;
      }
      std::string dates = end_date_reason(store, node);
      return dates.empty() ? "a value is not finite (its inputs are too large for a double)" : dates;
    }
    case Status::expired: {
      std::string inputs = inputs_with(store, graph, node, false);
      return inputs.empty() ? end_date_reason(store, node) : inputs;
    }
  }
  return "";
}

}  // namespace bond_risk
