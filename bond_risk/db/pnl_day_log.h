// The P&L day as the input database keeps it (schema/bond_risk.sql's
// pnl_day and pnl_move): a day's baselines, and each event's book moves,
// written in the event's own transaction so that they are durable with it.
// Reading the day back and recording its moves again in order rebuilds the
// explain bit for bit (model/pnl/pnl_day.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>

#include "base/sqlite.h"
#include "bond_risk/model/pnl/pnl_day.h"

namespace bond_risk {

// Begins a day after event `seq` with these baselines; returns it.
PnlDay write_day(base::Database& db, std::int64_t seq, std::map<std::int64_t, double> baselines);

// Appends one recalculation's moves (up to event `seq`; no cause: quotes
// alone, which move nothing) to the day begun after `day`.
void write_moves(base::Database& db, std::int64_t day, std::int64_t seq, const std::optional<Cause>& cause,
                 std::span<const BookMove> moves);

// The last day begun, with every move recorded since; none when no day began.
std::optional<PnlDay> read_day(base::Database& db);

}  // namespace bond_risk
