#include "bond_risk/db/snapshot_readers.h"

#include <stdexcept>

namespace bond_risk {

namespace {

// Begins db's read transaction: SQLite takes its state at the first read.
void first_read(base::Database& db) { db.cached("SELECT count(*) FROM sqlite_schema").run(); }

// A connection holding `file`'s write lock, or none if another writer keeps it
// longer than a tenth of a second.
std::unique_ptr<base::Database> write_lock(const std::string& file) {
  try {
    auto lock = std::make_unique<base::Database>(file, base::Database::Mode::read_write);
    lock->set_busy_timeout(100);
    if (sqlite3_exec(lock->handle(), "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK) return lock;
  } catch (const std::runtime_error&) {
    // A read-only file or directory: nobody here commits, but another user might; read on db alone.
  }
  return nullptr;
}

}  // namespace

SnapshotReaders::SnapshotReaders(base::Database& db, std::size_t count) {
  const std::string file = db.file();
  std::unique_ptr<base::Database> lock;
  if (count > 0 && !db.in_transaction() && !file.empty()) lock = write_lock(file);
  savepoint_.emplace(db);
  first_read(db);
  if (!lock) return;
  for (std::size_t i = 0; i < count; ++i) {
    auto& reader = *readers_.emplace_back(std::make_unique<base::Database>(file, base::Database::Mode::read_only));
    reader.exec("BEGIN");
    first_read(reader);
  }
  // lock's destructor closes it, rolling back its empty write transaction: others may commit again.
}

void SnapshotReaders::release() {
  readers_.clear();  // closing a connection ends its read transaction
  savepoint_->release();
}

}  // namespace bond_risk
