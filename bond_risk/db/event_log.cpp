#include "bond_risk/db/event_log.h"

namespace bond_risk {

void log_event(base::Database& db, std::string_view command, std::string_view result) {
  db.cached("INSERT INTO event_log (time, command, result) VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?, ?)")
      .bind(1, command)
      .bind(2, result)
      .run();
}

}  // namespace bond_risk
