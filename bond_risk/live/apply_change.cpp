#include "bond_risk/live/apply_change.h"

#include "bond_risk/db/change_writer.h"

namespace bond_risk {

Applied apply_change(LiveModel& model, const Change& change, base::Database& db, const StoredRows& rows) {
  LiveModel::Prepared prepared = model.prepare(change, rows);
  const bool in_transaction = db.in_transaction();
  try {
    persist(db, prepared.write);
  } catch (const std::runtime_error& e) {
    if (in_transaction && !db.in_transaction()) throw;  // the whole transaction rolled back, not only this change
    throw CommandError(e.what());                       // SQLite's message: no client bytes
  }
  return model.commit(std::move(prepared), rows);
}

}  // namespace bond_risk
