#include "bond_risk/db/limit_alert_log.h"

#include <cmath>

namespace bond_risk {


std::vector<StoredAlert> write_alerts(base::Database& db, std::int64_t seq, AlertCause cause,
                                      std::span<const LimitAlert> alerts) {
  std::vector<StoredAlert> out;
  base::Statement& st = db.cached(
      "INSERT INTO limit_alert (seq, time, cause, limit_id, book_id, measure, from_state, to_state, value, bound) "
      "VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id, time");
  for (const LimitAlert& a : alerts) {
    st.bind(1, seq).bind(2, alert_cause_name(cause)).bind(3, a.limit_id);
    a.book_id ? st.bind(4, *a.book_id) : st.bind_null(4);
    st.bind(5, limit_measure_name(a.measure)).bind(6, limit_state_name(a.from)).bind(7, limit_state_name(a.to));
    std::isfinite(a.value) ? st.bind(8, a.value) : st.bind_null(8);
    std::isfinite(a.bound) ? st.bind(9, a.bound) : st.bind_null(9);
    st.step();
    out.push_back({st.integer(0), seq, std::string(st.text(1)), cause, a});
    st.reset();
  }
  return out;
}

std::int64_t largest_limit_id(base::Database& db) {
  base::Statement& st = db.cached(
      "SELECT max(coalesce((SELECT max(id) FROM risk_limit), 0), coalesce((SELECT max(limit_id) FROM limit_alert), 0))");
  st.step();
  const std::int64_t id = st.integer(0);
  st.reset();
  return id;
}

std::unordered_map<std::int64_t, RecordedLimit> recorded_limit_states(base::Database& db) {
  std::unordered_map<std::int64_t, RecordedLimit> out;
  base::Statement st = db.prepare(
      "SELECT limit_id, book_id, measure, to_state FROM limit_alert "
      "WHERE id IN (SELECT max(id) FROM limit_alert GROUP BY limit_id)");
  while (st.step()) {
    const std::optional<LimitMeasure> measure = parse_limit_measure(st.text(2));
    if (!measure) continue;  // not an alert this engine wrote: as if never recorded
    RecordedLimit recorded{{std::nullopt, *measure}, LimitState::ok};
    if (st.column_type(1) != SQLITE_NULL) recorded.what.book_id = st.integer(1);
    const std::string_view state = st.text(3);
    for (LimitState k : {LimitState::breached, LimitState::unknown, LimitState::ok}) {
      if (limit_state_name(k) == state) recorded.state = k;
    }
    out[st.integer(0)] = recorded;
  }
  return out;
}

}  // namespace bond_risk
