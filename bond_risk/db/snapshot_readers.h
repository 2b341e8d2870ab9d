// Extra connections that read the same committed state as a loader's own,
// so that one load can read several tables at once.
//
// SQLite gives a read transaction the state last committed when it first
// reads, and Debian's build has no snapshot API to hand that state to
// another connection. Readers that all take their first read while nobody
// can commit therefore share one state: a third connection holds the write
// lock (BEGIN IMMEDIATE, which still lets others read) while `db` and the
// readers begin, then lets go, well under a millisecond later. This holds
// in rollback-journal and WAL modes alike.
//
// Threading: construct and release on one thread; each reader may then be
// used by one other thread at a time.
// Owns the reader connections; borrows `db`, which holds its savepoint until
// release() and must outlive it.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "base/sqlite.h"

namespace bond_risk {

class SnapshotReaders {
 public:
  // Opens a savepoint on `db` (a read transaction, or part of the caller's)
  // and up to `count` read-only connections to its file in the same state.
  // Opens none (size() is 0) when `db` is inside a caller's transaction (whose changes
  // only it sees), has no file (in memory), or another connection keeps
  // the write lock for over 0.1 s: then `db` alone reads, as of its savepoint.
  SnapshotReaders(base::Database& db, std::size_t count);

  std::size_t size() const { return readers_.size(); }
  base::Database& reader(std::size_t i) { return *readers_[i]; }

  // Ends the readers' transactions and releases db's savepoint.
  void release();

 private:
  std::optional<base::Savepoint> savepoint_;
  std::vector<std::unique_ptr<base::Database>> readers_;  // not moved: their statements point to them
};

}  // namespace bond_risk
