#include "bond_risk/change_log.h"

#include <string>

namespace bond_risk {

namespace {

// Each input table and the column that names the node a row belongs to.
constexpr const char* kWatched[][2] = {
    {"calendar", "id"},          {"ir_curve", "id"},           {"ir_curve_input_rate", "ir_curve_id"},
    {"bond", "id"},              {"outright_trade", "id"},     {"repo_trade", "id"},
    {"outright_book", "id"},     {"outright_book_trade", "book_id"}, {"repo_book", "id"},
    {"repo_book_trade", "book_id"},
};

}  // namespace

ChangeLog::ChangeLog(Database& db)
    : db_(db),
      data_version_(db.prepare("PRAGMA data_version")),
      last_seq_(db.prepare("SELECT 0")) {
  std::string sql =
      "CREATE TABLE IF NOT EXISTS input_change (seq INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL, "
      "node_id INTEGER);\n";
  for (const auto& [table, column] : kWatched) {
    for (const char* op : {"INSERT", "UPDATE", "DELETE"}) {
      const std::string row = std::string(op) == "DELETE" ? "OLD" : "NEW";
      sql += "CREATE TRIGGER IF NOT EXISTS " + std::string(table) + "_" + op + "_change AFTER " + op + " ON " + table +
             " BEGIN INSERT INTO input_change (tbl, node_id) VALUES ('" + table + "', " + row + "." + column +
             "); END;\n";
    }
  }
  db_.exec(sql);
  // AUTOINCREMENT's counter, unlike max(seq), survives the deletion of consumed rows.
  last_seq_ = db_.prepare("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'input_change'), 0)");
  external_commit();
  consumed_ = last_seq();
}

bool ChangeLog::external_commit() {
  data_version_.step();
  const std::int64_t version = data_version_.integer(0);
  data_version_.reset();
  const bool changed = seen_version_ >= 0 && version != seen_version_;
  seen_version_ = version;
  return changed;
}

std::int64_t ChangeLog::last_seq() {
  last_seq_.step();
  const std::int64_t last = last_seq_.integer(0);
  last_seq_.reset();
  return last;
}

void ChangeLog::consume() {
  consumed_ = last_seq();
  Statement del = db_.prepare("DELETE FROM input_change WHERE seq <= ?");
  del.bind(1, consumed_).run();
}

}  // namespace bond_risk
