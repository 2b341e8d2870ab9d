#include "bond_risk/db/result_writer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <set>

#include "bond_risk/db/schema.h"
#include "bond_risk/model/store/layout.h"
#include "bond_risk/model/store/published_values.h"

namespace bond_risk {

namespace {

std::string key_rate_table(Kind kind) { return std::string(kind_name(kind)) + "_key_rate"; }

// A ladder's rows go in by INSERTs of up to this many points each: one
// statement run per ladder rather than one per point.
constexpr std::size_t kPointsPerInsert = 16;

// A kind's statements, looked up once for a run of its rows (not per row).
class KindStatements {
 public:
  KindStatements(base::Database& results, Kind kind);
  base::Statement& insert;  // INSERT OR REPLACE of a row
  base::Statement& remove;  // DELETE of a row
  base::Statement* remove_key_rates = nullptr;  // a bond's or book's ladder rows (see stores_key_rates)
  // The INSERT of `points` (1 .. kPointsPerInsert) ladder rows at once.
  base::Statement& insert_key_rates(std::size_t points);

 private:
  static std::string insert_sql(Kind kind);
  base::Database& results_;
  Kind kind_;
  std::array<base::Statement*, kPointsPerInsert + 1> insert_key_rates_{};  // by points, built when first used
};

KindStatements::KindStatements(base::Database& results, Kind kind)
    : insert(results.cached(insert_sql(kind))),
      remove(results.cached("DELETE FROM " + std::string(kind_name(kind)) + "_result WHERE id = ?")),
      results_(results),
      kind_(kind) {
  if (stores_key_rates(kind)) remove_key_rates = &results.cached("DELETE FROM " + key_rate_table(kind) + " WHERE id = ?");
}

base::Statement& KindStatements::insert_key_rates(std::size_t points) {
  base::Statement*& st = insert_key_rates_.at(points);
  if (st != nullptr) return *st;
  std::string columns = "id, ir_curve_id, idx", row = "(?, ?, ?";
  for (std::string_view name : key_rate_names(kind_)) columns.append(", ").append(name), row += ", ?";
  row += ")";
  std::string sql = "INSERT INTO " + key_rate_table(kind_) + " (" + columns + ") VALUES " + row;
  for (std::size_t k = 1; k < points; ++k) sql.append(", ").append(row);
  st = &results_.cached(sql);
  return *st;
}

// The INSERT OR REPLACE statement of a kind's result table.
std::string KindStatements::insert_sql(Kind kind) {
  std::string columns = "id, status, reason", params = "?, ?, ?";
  for (std::string_view name : value_names(kind)) columns.append(", ").append(name), params += ", ?";
  return "INSERT OR REPLACE INTO " + std::string(kind_name(kind)) + "_result (" + columns + ") VALUES (" + params + ")";
}

// Replaces a bond's or book's ladder rows.
void write_key_rates(KindStatements& sql, const ResultRow& row) {
  sql.remove_key_rates->bind(1, row.id).run();
  const std::size_t values = key_rate_names(row.kind).size();
  for (std::size_t from = 0; from < row.key_rates.size(); from += kPointsPerInsert) {
    const std::size_t points = std::min(kPointsPerInsert, row.key_rates.size() - from);
    base::Statement& st = sql.insert_key_rates(points);
    int param = 1;
    for (const KeyRate& kr : row.key_rates.subspan(from, points)) {
      st.bind(param, row.id).bind(param + 1, kr.ir_curve_id).bind(param + 2, kr.idx);
      param += 3;
      for (std::size_t v = 0; v < values; ++v) st.bind(param++, kr.kr01[v]);
    }
    st.run();
  }
}

void write_row(KindStatements& sql, const ResultRow& row) {
  if (sql.remove_key_rates) write_key_rates(sql, row);
  if (row.status == Status::removed) {
    sql.remove.bind(1, row.id).run();
    return;
  }
  base::Statement& st = sql.insert;
  st.bind(1, row.id).bind(2, status_name(row.status)).bind(3, row.reason);
  const bool has_values = publishes_values(row.kind, row.status);
  const auto names = value_names(row.kind);
  int param = 4;
  for (std::size_t k = 0; k < row.values.size(); ++k, ++param) {
    const double v = row.values[k];
    if (!has_values || std::isnan(v)) {
      st.bind_null(param);
    } else if (is_date_value(names[k])) {
      st.bind(param, std::string_view(format_date(static_cast<Date>(v))));
    } else {
      st.bind(param, v);
    }
  }
  st.run();
}

}  // namespace

std::string results_path(const std::string& db_path) {
  const std::string suffix = ".db";
  if (db_path.size() > suffix.size() && db_path.ends_with(suffix)) {
    return db_path.substr(0, db_path.size() - suffix.size()) + ".results.db";
  }
  return db_path + ".results.db";
}

bool attach_results(base::Database& db) {
  const std::string path = results_path(db.path());
  if (!std::filesystem::exists(path)) return false;
  db.cached("ATTACH DATABASE ? AS results").bind(1, std::string_view(path)).run();
  return true;
}

std::unique_ptr<base::Database> open_results(const std::string& path) {
  auto results = std::make_unique<base::Database>(path, base::Database::Mode::create);
  results->exec(kResultsSchemaSql);
  // A file from a version that published fewer values: its tables gain the
  // columns (their rows are all written again by the first flush).
  for (Kind kind : {Kind::bond, Kind::outright_trade, Kind::repo_trade, Kind::outright_book, Kind::repo_book}) {
    const std::string table = std::string(kind_name(kind)) + "_result";
    std::set<std::string> columns;
    base::Statement& info = results->cached("SELECT name FROM pragma_table_info(?)");
    info.bind(1, std::string_view(table));
    while (info.step()) columns.emplace(info.text(0));
    info.reset();
    for (std::string_view name : value_names(kind)) {
      if (!columns.contains(std::string(name))) {
        results->exec("ALTER TABLE " + table + " ADD COLUMN " + std::string(name) + (is_date_value(name) ? " TEXT" : " REAL"));
      }
    }
  }
  return results;
}

void write_rows(base::Database& results, const ResultRows& rows, Kind kind, std::span<const std::uint32_t> which) {
  KindStatements sql(results, kind);
  for (const std::uint32_t r : which) write_row(sql, rows.row(kind, r));
}

void clear_results(base::Database& results) {
  for (std::size_t k = static_cast<std::size_t>(Kind::bond); k < kKindCount; ++k) {
    const Kind kind = static_cast<Kind>(k);
    results.exec("DELETE FROM " + std::string(kind_name(kind)) + "_result");
    if (stores_key_rates(kind)) results.exec("DELETE FROM " + key_rate_table(kind));
  }
}

void copy_alerts(base::Database& results, std::int64_t event_seq, bool from_scratch) {
  if (from_scratch) results.exec("DELETE FROM main.limit_event");
  results
      .cached(
          "INSERT INTO main.limit_event SELECT id, seq, time, cause, limit_id, book_id, measure, from_state, to_state, "
          "value, bound FROM input.limit_alert WHERE id > (SELECT coalesce(max(id), 0) FROM main.limit_event) AND seq <= ? "
          "ORDER BY id")
      .bind(1, event_seq)
      .run();
}

void set_results_as_of(base::Database& results, std::int64_t event_seq) {
  results.exec("DELETE FROM results_as_of");
  results.cached("INSERT INTO results_as_of (event_seq, written_at) VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))")
      .bind(1, event_seq)
      .run();
}

std::int64_t results_as_of(base::Database& results) {
  base::Statement st = results.prepare("SELECT event_seq FROM results_as_of");
  return st.step() ? st.integer(0) : -1;
}

void write_all_results(base::Database& results, const Store& store, const engine::Graph& graph,
                       std::int64_t event_seq) {
  base::Transaction tx(results);
  clear_results(results);
  base::ProgressBar progress("Writing results", store.size() - store.size(Kind::calendar) - store.size(Kind::ir_curve));
  ResultRows rows;  // one row at a time, its space reused
  for (std::size_t k = static_cast<std::size_t>(Kind::bond); k < kKindCount; ++k) {
    KindStatements sql(results, static_cast<Kind>(k));
    for (NodeIndex i : in_id_order(store, static_cast<Kind>(k))) {  // rows in key order: appends to the b-tree
      const NodeRef node = ref(static_cast<Kind>(k), i);
      if (store.state(node).status == Status::removed) continue;
      rows.put(store, graph, node);
      write_row(sql, rows.row(kind_of(node), 0));
      rows.clear();
      progress.advance();
    }
  }
  set_results_as_of(results, event_seq);
  tx.commit();
}

}  // namespace bond_risk
