#include "bond_risk/db/result_writer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "base/fnv1a.h"
#include "bond_risk/db/scenario_sets.h"
#include "bond_risk/db/schema.h"
#include "bond_risk/model/store/layout.h"
#include "bond_risk/model/store/published_values.h"

namespace bond_risk {

namespace {

std::string key_rate_table(Kind kind) { return std::string(kind_name(kind)) + "_key_rate"; }

// Rows go in by INSERTs of up to this many rows (a ladder's points, or a
// kind's results) each: one statement run per ladder and per run of rows
// rather than one per row.
constexpr std::size_t kRowsPerInsert = 16;

// A kind's statements, looked up once for a run of its rows (not per row).
class KindStatements {
 public:
  KindStatements(base::Database& results, Kind kind);
  base::Statement& remove;  // DELETE of a row
  base::Statement* remove_key_rates = nullptr;  // a bond's or book's ladder rows (see stores_key_rates)
  // INSERT OR REPLACE of `rows` (1 .. kRowsPerInsert) result rows at once.
  base::Statement& insert_rows(std::size_t rows) { return statement(inserts_, rows, insert_sql); }
  // INSERT of `points` (1 .. kRowsPerInsert) ladder rows at once.
  base::Statement& insert_key_rates(std::size_t points) { return statement(key_rate_inserts_, points, key_rate_insert_sql); }

 private:
  using Statements = std::array<base::Statement*, kRowsPerInsert + 1>;  // by rows, each built when first used
  using Sql = std::string (*)(Kind kind, std::size_t rows);
  base::Statement& statement(Statements& built, std::size_t rows, Sql sql);
  static std::string insert_sql(Kind kind, std::size_t rows);
  static std::string key_rate_insert_sql(Kind kind, std::size_t points);
  base::Database& results_;
  Kind kind_;
  Statements inserts_{}, key_rate_inserts_{};
};

KindStatements::KindStatements(base::Database& results, Kind kind)
    : remove(results.cached("DELETE FROM " + std::string(kind_name(kind)) + "_result WHERE id = ?")),
      results_(results),
      kind_(kind) {
  if (stores_key_rates(kind)) remove_key_rates = &results.cached("DELETE FROM " + key_rate_table(kind) + " WHERE id = ?");
}

base::Statement& KindStatements::statement(Statements& built, std::size_t rows, Sql sql) {
  base::Statement*& st = built.at(rows);
  if (st == nullptr) st = &results_.cached(sql(kind_, rows));
  return *st;
}

// "INSERT ... INTO table (columns) VALUES (?, ..), .." with `rows` rows of `params` parameters.
std::string multi_row_insert(std::string_view verb, const std::string& table, const std::string& columns,
                             std::size_t params, std::size_t rows) {
  std::string row = "(?";
  for (std::size_t p = 1; p < params; ++p) row += ", ?";
  row += ")";
  std::string sql = std::string(verb) + " INTO " + table + " (" + columns + ") VALUES " + row;
  for (std::size_t r = 1; r < rows; ++r) sql.append(", ").append(row);
  return sql;
}

std::string KindStatements::insert_sql(Kind kind, std::size_t rows) {
  std::string columns = "id, status, reason";
  for (std::string_view name : value_names(kind)) columns.append(", ").append(name);
  return multi_row_insert("INSERT OR REPLACE", std::string(kind_name(kind)) + "_result", columns,
                          3 + value_names(kind).size(), rows);
}

std::string KindStatements::key_rate_insert_sql(Kind kind, std::size_t points) {
  std::string columns = "id, ir_curve_id, idx";
  for (std::string_view name : key_rate_names(kind)) columns.append(", ").append(name);
  return multi_row_insert("INSERT", key_rate_table(kind), columns, 3 + key_rate_names(kind).size(), points);
}

// Replaces a bond's or book's ladder rows.
void write_key_rates(KindStatements& sql, const ResultRow& row) {
  sql.remove_key_rates->bind(1, row.id).run();
  const std::size_t values = key_rate_names(row.kind).size();
  for (std::size_t from = 0; from < row.key_rates.size(); from += kRowsPerInsert) {
    const std::size_t points = std::min(kRowsPerInsert, row.key_rates.size() - from);
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

// Binds a result row from parameter `param` on; returns the parameter after its last.
int bind_row(base::Statement& st, int param, const ResultRow& row) {
  st.bind(param, row.id).bind(param + 1, status_name(row.status)).bind(param + 2, row.reason);
  param += 3;
  const bool has_values = publishes_values(row.kind, row.status);
  const auto names = value_names(row.kind);
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
  return param;
}

// Writes rows, a removed one's deleted at once and the others inserted
// kRowsPerInsert at a time; finish() writes what is held.
class RowWriter {
 public:
  explicit RowWriter(KindStatements& sql) : sql_(sql) {}
  void write(const ResultRow& row) {
    if (sql_.remove_key_rates) write_key_rates(sql_, row);
    if (row.status == Status::removed) {
      sql_.remove.bind(1, row.id).run();
      return;
    }
    held_[count_++] = row;
    if (count_ == kRowsPerInsert) finish();
  }
  void finish() {
    if (count_ == 0) return;
    base::Statement& st = sql_.insert_rows(count_);
    int param = 1;
    for (std::size_t k = 0; k < count_; ++k) param = bind_row(st, param, held_[k]);
    st.run();
    count_ = 0;
  }

 private:
  KindStatements& sql_;
  std::array<ResultRow, kRowsPerInsert> held_;  // borrowed: valid until finish()
  std::size_t count_ = 0;
};

// Who creates a results file: the boot of the host as Linux names it ("" if
// it cannot be read), and the hash of the schema.
struct Creator {
  std::string boot_id, schema;
  bool operator==(const Creator&) const = default;
};

Creator this_creator() {
  Creator c;
  std::getline(std::ifstream("/proc/sys/kernel/random/boot_id"), c.boot_id);
  base::Fnv1a hash;
  hash.add_text(kResultsSchemaSql);
  c.schema = base::hex(hash.value());
  return c;
}

// What lies at the results path before a writer opens it.
struct Found {
  std::unique_ptr<base::Database> file;  // open for writing; none: no regular file there, or a broken one
  bool broken = false;                   // not a database, or a damaged one
  std::optional<Creator> creator;        // none: an older version's file (or a broken one)
  bool scenario_tables = false;          // an older version kept scenario results in it
};

// Opened for writing (base::Database::Mode::create, which refuses a
// symbolic link at its -wal or -shm), so that an older version's
// interrupted write is rolled back (a read-only connection could not)
// before its scenario rows are moved, and so that a file to be reused is
// opened once. Throws if the file cannot be read for any other reason than
// being broken (another program's lock past the busy timeout, its
// permissions): a file that may hold scenario results is never replaced
// unread.
Found look_at(const std::string& path) {
  Found found;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(path, ec))) return found;
  try {
    found.file = std::make_unique<base::Database>(path, base::Database::Mode::create);
    found.scenario_tables = found.file->has_table("scenario_pnl");
    if (found.file->has_table("results_file")) {
      base::Statement st = found.file->prepare("SELECT boot_id, schema FROM results_file");
      if (st.step()) found.creator = Creator{st.value_text(0), st.value_text(1)};
    }
  } catch (const base::SqliteError& e) {
    if (!e.broken()) throw;
    found.file.reset();
    found.broken = true;
  }
  return found;
}

// Makes sure `file` (at `path`) is the only connection to it before it is
// removed: another in WAL mode, closed after, would delete the new file's
// -wal and -shm by name. Leaving WAL mode takes the only connection there is.
void take_over(base::Database& file, const std::string& path) {
  file.set_busy_timeout(1000);
  bool alone = false;
  try {
    base::Statement mode = file.prepare("PRAGMA journal_mode = DELETE");
    alone = mode.step() && mode.value_text(0) == "delete";
  } catch (const base::SqliteError& e) {
    if (e.code() != SQLITE_BUSY && e.code() != SQLITE_LOCKED) throw;
  }
  if (!alone) {
    throw std::runtime_error(path + " is open in another program, and must be replaced (it was written before the "
                             "host's last start, or by another version); close that program and run again");
  }
}

}  // namespace

std::unique_ptr<base::Database> open_results(const std::string& db_path) {
  const std::string path = results_path(db_path);
  const Creator now = this_creator();
  Found found = look_at(path);
  const bool reuse = found.file && !now.boot_id.empty() && found.creator == now;
  std::unique_ptr<base::Database> results;
  if (reuse) {
    results = std::move(found.file);
  } else {
    if (found.broken) std::cerr << "bond_risk: " << path << " is not a usable database (a crash of the host?); replacing it\n";
    if (found.scenario_tables) adopt_scenario_results(db_path, path);
    if (found.file) take_over(*found.file, path);
    found.file.reset();  // closed before the file goes
    results = std::make_unique<base::Database>(path, base::Database::Mode::replace);
  }
  results->exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF");
  if (!reuse) {  // readers see the whole schema or none of it
    base::Transaction tx(*results);
    results->exec(kResultsSchemaSql);
    results->prepare("INSERT INTO results_file (boot_id, schema) VALUES (?, ?)").bind(1, now.boot_id).bind(2, now.schema).run();
    tx.commit();
  }
  return results;
}

void write_rows(base::Database& results, const ResultRows& rows, Kind kind, std::span<const std::uint32_t> which,
                const std::function<void()>& between) {
  if (which.empty()) return;  // no statement prepared
  KindStatements sql(results, kind);
  RowWriter writer(sql);
  for (std::size_t from = 0; from < which.size(); from += kWriteSlice) {
    if (between) between();
    for (const std::uint32_t r : which.subspan(from, std::min(kWriteSlice, which.size() - from))) {
      writer.write(rows.row(kind, r));
    }
  }
  writer.finish();
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

namespace {

// Every row of `store` to `results`, in one transaction.
void write_all(base::Database& results, const Store& store, const engine::Graph& graph, std::int64_t event_seq) {
  base::Transaction tx(results);
  clear_results(results);
  base::ProgressBar progress("Writing results", store.size() - store.size(Kind::calendar) - store.size(Kind::ir_curve));
  ResultRows rows;  // a slice of a kind's nodes at a time, its space reused
  std::vector<NodeIndex> slice;
  constexpr std::size_t kSlice = 4096;
  for (std::size_t k = static_cast<std::size_t>(Kind::bond); k < kKindCount; ++k) {
    const Kind kind = static_cast<Kind>(k);
    KindStatements sql(results, kind);
    RowWriter writer(sql);
    const auto write_slice = [&] {
      rows.put(store, graph, kind, slice);  // rows in the slice's order
      for (std::size_t r = 0; r < rows.size(kind); ++r, progress.advance()) writer.write(rows.row(kind, r));
      writer.finish();
      rows.clear();
      slice.clear();
    };
    for (NodeIndex i : in_id_order(store, kind)) {  // rows in key order: appends to the b-tree
      if (store.state(ref(kind, i)).status == Status::removed) continue;
      slice.push_back(i);
      if (slice.size() == kSlice) write_slice();
    }
    write_slice();
  }
  set_results_as_of(results, event_seq);
  tx.commit();
}

}  // namespace

std::string write_all_results(const std::string& db_path, const Store& store, const engine::Graph& graph,
                              std::int64_t event_seq) {
  const std::string path = results_path(db_path);
  try {
    write_all(*open_results(db_path), store, graph, event_seq);
  } catch (const base::SqliteError& e) {
    if (!e.broken()) throw;
    std::cerr << "bond_risk: " << path << " is damaged (" << e.what() << "); writing a new one\n";
    base::remove_database(path);
    write_all(*open_results(db_path), store, graph, event_seq);
  }
  return path;
}

}  // namespace bond_risk
