#include "bond_risk/db/change_log.h"

#include <string>
#include <utility>
#include <vector>

#include "bond_risk/model/inputs/input_tables.h"

namespace bond_risk {

namespace {

// The first column of the one row `sql` returns.
std::int64_t query_integer(base::Database& db, const std::string& sql) {
  base::Statement& st = db.cached(sql);
  st.step();
  const std::int64_t value = st.integer(0);
  st.reset();
  return value;
}

}  // namespace

ChangeLog::ChangeLog(base::Database& db) : db_(db) {
  // The triggers record other programs' writes. This connection runs none,
  // so the engine's own writes are neither recorded nor slowed by a
  // trigger program per row.
  db_.disable_triggers();
  std::string sql =
      "CREATE TABLE IF NOT EXISTS input_change (seq INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL, "
      "node_id INTEGER);\n";
  // The input tables, by the node each row belongs to, and the risk limits by their id.
  std::vector<std::pair<std::string, std::string>> tables;
  for (const InputTable& t : input_tables()) tables.emplace_back(t.name, t.node_column);
  tables.emplace_back("risk_limit", "id");
  for (const auto& [table, column] : tables) {
    // An update records the node of the old row and of the new one: an id
    // or a curve that changes moves a row from one node to another.
    for (const std::string op : {"INSERT", "UPDATE", "DELETE"}) {
      std::string body;
      for (const std::string row : {"OLD", "NEW"}) {
        if ((op == "INSERT" && row == "OLD") || (op == "DELETE" && row == "NEW")) continue;
        body += " INSERT INTO input_change (tbl, node_id) VALUES ('" + table + "', " + row + "." + column + ");";
      }
      sql += "CREATE TRIGGER IF NOT EXISTS " + table + "_" + op + "_change_v4 AFTER " + op + " ON " + table +
             " BEGIN" + body + " END;\n";
    }
  }
  // Earlier versions' triggers: the first recorded only the new row of an
  // update, the second the engine's own writes too, the third skipped the
  // engine's writes by a row of engine_writing inside its transactions.
  // Replaced in one transaction: no other program's write falls between.
  for (const auto& [table, column] : tables) {
    for (const char* op : {"INSERT", "UPDATE", "DELETE"}) {
      for (const char* version : {"", "_v2", "_v3"}) {
        sql += "DROP TRIGGER IF EXISTS " + table + "_" + op + "_change" + version + ";\n";
      }
    }
  }
  sql += "DROP TABLE IF EXISTS engine_writing;\n";
  base::Transaction tx(db_, true);
  db_.exec(sql);
  tx.commit();
  external_commit();
  consumed_ = last_seq();
}

bool ChangeLog::external_commit() {
  const std::int64_t version = query_integer(db_, "PRAGMA data_version");
  const bool changed = seen_version_ >= 0 && version != seen_version_;
  seen_version_ = version;
  return changed;
}

std::int64_t ChangeLog::last_seq() {
  // AUTOINCREMENT's counter, unlike max(seq), survives the deletion of consumed rows.
  return query_integer(db_, "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'input_change'), 0)");
}

RowsChanged ChangeLog::changes() {
  base::Statement& st = db_.cached("SELECT DISTINCT tbl, node_id FROM input_change WHERE seq > ? AND node_id IS NOT NULL");
  st.bind(1, consumed_);
  RowsChanged out;
  while (st.step()) out.rows.push_back({std::string(st.text(0)), st.integer(1)});
  st.reset();
  return out;
}

void ChangeLog::consume() {
  consumed_ = last_seq();
  db_.cached("DELETE FROM input_change WHERE seq <= ?").bind(1, consumed_).run();
}

ChangeLog::Transaction::Transaction(ChangeLog& log, base::Transaction::Begin begin)
    : log_(log), mark_(log.consumed_), tx_(log.db_, begin) {}

ChangeLog::Transaction::~Transaction() {
  if (!committed_) log_.consumed_ = mark_;  // tx_ rolls the database back
}

void ChangeLog::Transaction::commit() {
  tx_.commit();
  committed_ = true;
}

}  // namespace bond_risk
