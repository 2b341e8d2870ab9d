#include "bond_risk/db/event_log.h"

namespace bond_risk {

LoggedEvent log_event(base::Database& db, std::string_view command, std::string_view result) {
  base::Statement& st = db.cached(
      "INSERT INTO event_log (time, command, result) VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?, ?) "
      "RETURNING seq, time");
  st.bind(1, command).bind(2, result).step();
  LoggedEvent event{st.integer(0), std::string(st.text(1)), std::string(command)};
  st.reset();
  return event;
}

std::optional<LoggedEvent> last_logged_event(base::Database& db, std::int64_t seq, std::size_t limit,
                                             const std::function<bool(const std::string& command)>& wanted) {
  base::Statement& st = db.cached("SELECT seq, time, command FROM event_log WHERE seq <= ? ORDER BY seq DESC LIMIT ?");
  st.bind(1, seq);
  st.bind(2, static_cast<std::int64_t>(limit));
  std::optional<LoggedEvent> out;
  try {
    while (!out && st.step()) {
      std::string command(st.text(2));
      if (wanted(command)) out = LoggedEvent{st.integer(0), std::string(st.text(1)), std::move(command)};
    }
  } catch (...) {
    st.reset();  // the cached statement stays usable
    throw;
  }
  st.reset();
  return out;
}

std::int64_t last_event(base::Database& db) {
  base::Statement st = db.prepare("SELECT coalesce(max(seq), 0) FROM event_log");
  st.step();
  return st.integer(0);
}

std::vector<LoggedEvent> last_events(base::Database& db, std::size_t count) {
  base::Statement st = db.prepare("SELECT seq, time, command FROM (SELECT * FROM event_log ORDER BY seq DESC LIMIT ?) ORDER BY seq");
  st.bind(1, static_cast<std::int64_t>(count));
  std::vector<LoggedEvent> out;
  while (st.step()) out.push_back({st.integer(0), std::string(st.text(1)), std::string(st.text(2))});
  return out;
}

}  // namespace bond_risk
