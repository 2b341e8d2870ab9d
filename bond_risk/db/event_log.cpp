#include "bond_risk/db/event_log.h"

namespace bond_risk {

std::int64_t log_event(base::Database& db, std::string_view command, std::string_view result) {
  db.cached("INSERT INTO event_log (time, command, result) VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?, ?)")
      .bind(1, command)
      .bind(2, result)
      .run();
  return sqlite3_last_insert_rowid(db.handle());
}

std::int64_t last_event(base::Database& db) {
  base::Statement st = db.prepare("SELECT coalesce(max(seq), 0) FROM event_log");
  st.step();
  return st.integer(0);
}

}  // namespace bond_risk
