#include "bond_risk/db/input_schema.h"

#include <stdexcept>
#include <string>

#include "bond_risk/db/schema.h"
#include "bond_risk/model/inputs/input_tables.h"

namespace bond_risk {

void check_input_schema(base::Database& db) {
  for (const InputTable& t : input_tables()) {
    const std::string table(t.name);
    if (t.optional && !db.has_table(table)) continue;
    if (!db.has_table(table)) {
      throw std::runtime_error("database " + db.path() + " has no table " + table +
                               " (create the tables with: sqlite3 " + db.path() + " < schema/bond_risk.sql)");
    }
    for (const Column& c : t.columns) {
      if (!c.added_later && !db.has_column(table, std::string(c.name))) {
        throw std::runtime_error("database " + db.path() + ": table " + table + " has no column " +
                                 std::string(c.name) + " (see schema/bond_risk.sql)");
      }
    }
  }
}

void upgrade_input_schema(base::Database& db) {
  db.exec(kSchemaSql);
  for (const InputTable& t : input_tables()) {
    for (const Column& c : t.columns) {
      const std::string table(t.name), column(c.name);
      if (!c.added_later || db.has_column(table, column)) continue;
      // Names from the compiled-in descriptors, never from input.
      db.exec("ALTER TABLE " + table + " ADD COLUMN " + column + (c.type == ColumnType::integer ? " INTEGER" : " TEXT"));
    }
  }
  db.exec("CREATE UNIQUE INDEX IF NOT EXISTS bond_isin ON bond (isin)");
}

}  // namespace bond_risk
