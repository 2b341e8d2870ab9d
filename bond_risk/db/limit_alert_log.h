// The risk limits' alerts as the input database keeps them
// (schema/bond_risk.sql's limit_alert), written in the transaction of the
// event that caused them, so that an acknowledged event's alerts are
// durable with it and a restart knows each limit's last state.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/sqlite.h"
#include "bond_risk/model/limits/limit_checks.h"

namespace bond_risk {

// Appends `alerts`, after event `seq`, in the caller's transaction; returns them as stored.
std::vector<StoredAlert> write_alerts(base::Database& db, std::int64_t seq, AlertCause cause,
                                      std::span<const LimitAlert> alerts);

// Each limit's last recorded state (the last alert's), by limit id, with
// the book and measure it was raised for.
std::unordered_map<std::int64_t, RecordedLimit> recorded_limit_states(base::Database& db);


// The largest limit id the database has used, in risk_limit or in an alert
// (0 when none): a new limit's id comes after it, so that no alert of a
// removed limit is ever read as a new one's.
std::int64_t largest_limit_id(base::Database& db);

}  // namespace bond_risk
