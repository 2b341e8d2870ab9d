// The engine's one path for a change: prepared against the model and
// `rows` (the stored rows of `db`), its rows persisted to `db` by the db
// layer in the caller's transaction, then committed to the model
// (live/live_model.h). Throws CommandError, having changed neither the
// model nor (once the caller rolls back to its savepoint) the database, if
// the change cannot be applied or the database refuses a row. A refusal
// that took the caller's whole transaction with it (SQLite rolls it all
// back on a full disk or an I/O error where it cannot undo the one
// statement) is rethrown as the database's std::runtime_error instead: the
// changes before this one are gone too. Called on the thread that owns the
// model and the connection.
#pragma once

#include "base/sqlite.h"
#include "bond_risk/live/live_model.h"
#include "bond_risk/model/store/stored_rows.h"

namespace bond_risk {

Applied apply_change(LiveModel& model, const Change& change, base::Database& db, const StoredRows& rows);

}  // namespace bond_risk
