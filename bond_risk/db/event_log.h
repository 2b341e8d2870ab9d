// The event log: every state-changing command the running engine applied,
// in order, with its reply (schema/bond_risk.sql's event_log). Replaying
// the logged commands on the original database gives the same inputs.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/sqlite.h"

namespace bond_risk {

struct LoggedEvent {
  std::int64_t seq = 0;
  std::string time;  // UTC, ISO 8601 to the millisecond
  std::string command;
};

// Appends one event, timestamped now, in the caller's transaction; returns
// its sequence number and time.
LoggedEvent log_event(base::Database& db, std::string_view command, std::string_view result);

// The last event at or before `seq` whose command is `wanted`, of the
// `limit` last ones there; none if none of them is.
std::optional<LoggedEvent> last_logged_event(base::Database& db, std::int64_t seq, std::size_t limit,
                                             const std::function<bool(const std::string& command)>& wanted);

// The sequence number of the last event logged (0 when none was).
std::int64_t last_event(base::Database& db);

// The last `count` events logged, oldest first.
std::vector<LoggedEvent> last_events(base::Database& db, std::size_t count);

}  // namespace bond_risk
