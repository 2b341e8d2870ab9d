#include "bond_risk/db/result_writer.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <span>

#include "base/progress.h"
#include "bond_risk/db/schema.h"
#include "bond_risk/model/published_values.h"
#include "bond_risk/model/reason.h"

namespace bond_risk {

namespace {

// Writes the result rows of `nodes` of one kind: id, status, reason, then
// the published values (NULL where the status carries none).
void write_table(base::Database& db, const Store& store, const engine::Graph& graph, Kind kind,
                 std::span<const NodeIndex> nodes, base::ProgressBar* progress) {
  const std::string table = std::string(kind_name(kind)) + "_result";
  std::string columns = "id, status, reason", placeholders = "?, ?, ?";
  for (std::string_view name : value_names(kind)) columns += ", " + std::string(name), placeholders += ", ?";
  base::Statement& st = db.cached("INSERT OR REPLACE INTO " + table + " (" + columns + ") VALUES (" +
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

}  // namespace

void write_results(base::Database& db, const Store& store, const engine::Graph& graph,
                   const std::array<std::vector<NodeIndex>, kKindCount>& nodes, base::ProgressBar* progress) {
  for (std::size_t k = static_cast<std::size_t>(Kind::bond); k < kKindCount; ++k) {
    write_table(db, store, graph, static_cast<Kind>(k), nodes[k], progress);
  }
}

void write_all_results(base::Database& db, const Store& store, const engine::Graph& graph) {
  db.exec(kSchemaSql);
  base::Transaction tx(db);
  std::array<std::vector<NodeIndex>, kKindCount> all;
  for (std::size_t k = static_cast<std::size_t>(Kind::bond); k < kKindCount; ++k) {
    all[k].resize(store.size(static_cast<Kind>(k)));
    std::iota(all[k].begin(), all[k].end(), NodeIndex{0});
    db.exec("DELETE FROM " + std::string(kind_name(static_cast<Kind>(k))) + "_result");
  }
  base::ProgressBar progress("Writing results", store.size() - store.size(Kind::calendar) - store.size(Kind::ir_curve));
  write_results(db, store, graph, all, &progress);
  tx.commit();
}

}  // namespace bond_risk
