#include "bond_risk/results.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <span>

#include "bond_risk/progress.h"
#include "bond_risk/schema.h"

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

PublishedValues published_values(const Store& s, NodeRef n) {
  auto of = [](std::initializer_list<double> v) {
    PublishedValues p;
    std::copy(v.begin(), v.end(), p.values.begin());
    p.count = v.size();
    return p;
  };
  switch (kind_of(n)) {
    case Kind::bond: return of({s.bond_values[n.index].price, s.bond_values[n.index].pv01});
    case Kind::outright_trade: {
      const OutrightValue& v = s.outright_values[n.index];
      return of({v.pv, v.pv01, v.pnl});
    }
    case Kind::repo_trade: {
      const RepoValue& v = s.repo_values[n.index];
      return of({v.end_cash, v.margin, v.mtm_pnl});
    }
    case Kind::outright_book: {
      const OutrightBook& b = s.outright_books[n.index];
      return of({b.total.pv, b.total.pv01, b.total.pnl, static_cast<double>(b.excluded)});
    }
    case Kind::repo_book: {
      const RepoBook& b = s.repo_books[n.index];
      return of({b.total.margin, b.total.mtm_pnl, static_cast<double>(b.excluded)});
    }
    default: return {};
  }
}

std::span<const std::string_view> value_names(Kind kind) {
  static constexpr std::string_view bond[] = {"price", "pv01"};
  static constexpr std::string_view outright[] = {"pv", "pv01", "pnl"};
  static constexpr std::string_view repo[] = {"end_cash", "margin", "mtm_pnl"};
  static constexpr std::string_view outright_book[] = {"pv", "pv01", "pnl", "excluded"};
  static constexpr std::string_view repo_book[] = {"margin", "mtm_pnl", "excluded"};
  switch (kind) {
    case Kind::bond: return bond;
    case Kind::outright_trade: return outright;
    case Kind::repo_trade: return repo;
    case Kind::outright_book: return outright_book;
    case Kind::repo_book: return repo_book;
    default: return {};
  }
}

namespace {

// Writes the result rows of `nodes` of one kind: id, status, reason, then
// the published values (NULL where the status carries none).
void write_table(Database& db, const Store& store, const engine::Graph& graph, Kind kind,
                 std::span<const NodeIndex> nodes, ProgressBar* progress) {
  const std::string table = std::string(kind_name(kind)) + "_result";
  std::string columns = "id, status, reason", placeholders = "?, ?, ?";
  for (std::string_view name : value_names(kind)) columns += ", " + std::string(name), placeholders += ", ?";
  Statement& st = db.cached("INSERT OR REPLACE INTO " + table + " (" + columns + ") VALUES (" +
                            placeholders + ")");
  const bool book = kind == Kind::outright_book || kind == Kind::repo_book;
  for (NodeIndex i : nodes) {
    const NodeRef node = ref(kind, i);
    const Status status = store.state(node).status;
    if (status == Status::removed) continue;
    st.bind(1, store.id(node)).bind(2, status_name(status)).bind(3, reason(store, graph, node));
    const bool has_values = status == Status::ok || status == Status::expired || (book && status == Status::stale);
    int param = 4;
    const PublishedValues values = published_values(store, node);
    for (double v : values.span()) {
      if (has_values) {
        st.bind(param, v);
      } else {
        st.bind_null(param);
      }
      ++param;
    }
    st.run();
    if (progress) progress->advance();
  }
}

class Fnv1a {
 public:
  template <class T>
  void add(const T& value) {
    const auto* p = reinterpret_cast<const unsigned char*>(&value);
    for (std::size_t i = 0; i < sizeof value; ++i) hash_ = (hash_ ^ p[i]) * 0x100000001B3ULL;
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xCBF29CE484222325ULL;
};

}  // namespace

std::uint64_t results_digest(const Store& store) {
  Fnv1a h;
  for (const auto& states : store.states) {
    for (const NodeState& s : states) h.add(Status{s.status});
  }
  for (std::size_t k = 0; k < kKindCount; ++k) {
    for (NodeIndex i = 0; i < store.size(static_cast<Kind>(k)); ++i) {
      const PublishedValues values = published_values(store, ref(static_cast<Kind>(k), i));
      for (double v : values.span()) h.add(v);
    }
  }
  return h.value();
}

void write_results(Database& db, const Store& store, const engine::Graph& graph,
                   const std::array<std::vector<NodeIndex>, kKindCount>& nodes, ProgressBar* progress) {
  for (std::size_t k = static_cast<std::size_t>(Kind::bond); k < kKindCount; ++k) {
    write_table(db, store, graph, static_cast<Kind>(k), nodes[k], progress);
  }
}

void write_all_results(Database& db, const Store& store, const engine::Graph& graph) {
  db.exec(kSchemaSql);
  Transaction tx(db);
  std::array<std::vector<NodeIndex>, kKindCount> all;
  for (std::size_t k = static_cast<std::size_t>(Kind::bond); k < kKindCount; ++k) {
    all[k].resize(store.size(static_cast<Kind>(k)));
    std::iota(all[k].begin(), all[k].end(), NodeIndex{0});
    db.exec("DELETE FROM " + std::string(kind_name(static_cast<Kind>(k))) + "_result");
  }
  ProgressBar progress("Writing results", store.size() - store.size(Kind::calendar) - store.size(Kind::ir_curve));
  write_results(db, store, graph, all, &progress);
  tx.commit();
}

}  // namespace bond_risk
