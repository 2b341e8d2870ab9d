// Bringing a LiveModel up to date with rows other programs changed in its
// database (recorded by the triggers of db/change_log.h).
#pragma once

#include <vector>

#include "base/sqlite.h"
#include "bond_risk/db/change_log.h"
#include "bond_risk/live/live_model.h"

namespace bond_risk {

// Trades, calendars and curve rates are re-read row by row and only what
// they affect is recalculated; risk limits are read again, all of them; a
// change to any other table (bonds, books, memberships) reloads the whole
// model. Runs in the caller's transaction.
LiveModel::Recalculation apply_external(LiveModel& model, const std::vector<ChangeLog::Change>& changes,
                                        base::Database& db);

}  // namespace bond_risk
