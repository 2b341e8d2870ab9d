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

namespace {

// Writes one result table: id, status, reason, then the values that
// `values(index)` returns (NULL where the status carries none).
template <class Values>
void write_table(Database& db, const Store& store, const engine::Graph& graph, Kind kind,
                 std::span<const NodeIndex> nodes, const std::string& columns, bool books, ProgressBar* progress,
                 Values values) {
  const std::string table = std::string(kind_name(kind)) + "_result";
  const std::size_t value_count = static_cast<std::size_t>(std::count(columns.begin(), columns.end(), ',')) + 1;
  std::string placeholders = "?, ?, ?";
  for (std::size_t i = 0; i < value_count; ++i) placeholders += ", ?";
  Statement& st = db.cached("INSERT OR REPLACE INTO " + table + " (id, status, reason, " + columns + ") VALUES (" +
                            placeholders + ")");
  for (NodeIndex i : nodes) {
    const NodeRef node = ref(kind, i);
    const Status status = store.state(node).status;
    if (status == Status::removed) continue;
    st.bind(1, store.id(node)).bind(2, status_name(status)).bind(3, reason(store, graph, node));
    const bool has_values = status == Status::ok || status == Status::expired || (books && status == Status::stale);
    int param = 4;
    for (double v : values(i)) {
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

}  // namespace

namespace {

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
  for (const BondValue& v : store.bond_values) h.add(v.price), h.add(v.pv01);
  for (const OutrightValue& v : store.outright_values) h.add(v.pv), h.add(v.pv01), h.add(v.pnl);
  for (const RepoValue& v : store.repo_values) h.add(v.end_cash), h.add(v.margin), h.add(v.mtm_pnl);
  for (const OutrightBook& b : store.outright_books) {
    h.add(b.total.pv), h.add(b.total.pv01), h.add(b.total.pnl), h.add(b.excluded);
  }
  for (const RepoBook& b : store.repo_books) h.add(b.total.margin), h.add(b.total.mtm_pnl), h.add(b.excluded);
  return h.value();
}

void write_results(Database& db, const Store& store, const engine::Graph& graph,
                   const std::array<std::vector<NodeIndex>, kKindCount>& nodes, ProgressBar* progress) {
  auto of = [&](Kind k) { return std::span<const NodeIndex>(nodes[static_cast<std::size_t>(k)]); };
  write_table(db, store, graph, Kind::bond, of(Kind::bond), "price, pv01", false, progress, [&](NodeIndex i) {
    const BondValue& v = store.bond_values[i];
    return std::array{v.price, v.pv01};
  });
  write_table(db, store, graph, Kind::outright_trade, of(Kind::outright_trade), "pv, pv01, pnl", false, progress,
              [&](NodeIndex i) {
                const OutrightValue& v = store.outright_values[i];
                return std::array{v.pv, v.pv01, v.pnl};
              });
  write_table(db, store, graph, Kind::repo_trade, of(Kind::repo_trade), "end_cash, margin, mtm_pnl", false, progress,
              [&](NodeIndex i) {
                const RepoValue& v = store.repo_values[i];
                return std::array{v.end_cash, v.margin, v.mtm_pnl};
              });
  write_table(db, store, graph, Kind::outright_book, of(Kind::outright_book), "pv, pv01, pnl, excluded", true,
              progress, [&](NodeIndex i) {
                const OutrightBook& b = store.outright_books[i];
                return std::array{b.total.pv, b.total.pv01, b.total.pnl, static_cast<double>(b.excluded)};
              });
  write_table(db, store, graph, Kind::repo_book, of(Kind::repo_book), "margin, mtm_pnl, excluded", true, progress,
              [&](NodeIndex i) {
                const RepoBook& b = store.repo_books[i];
                return std::array{b.total.margin, b.total.mtm_pnl, static_cast<double>(b.excluded)};
              });
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
