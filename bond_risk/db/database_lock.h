// Exclusive use of an input database: the running engine that serves it,
// or a batch run that writes its results, holds an flock on the database
// file itself, so a second one is refused whatever path (a symlink, a hard
// link) it names the file by. The holder describes itself in the
// database_holder table, which the refusal quotes.
//
// The lock's descriptor stays open as long as the object lives: construct
// it before any base::Database on the same file and destroy it after them
// (closing a descriptor of a file drops the process's POSIX locks on it,
// SQLite's among them).
// Owns the lock's descriptor and its holder row (written on short-lived
// connections of its own); borrows nothing. Not thread-safe: the thread that
// runs the command (run_command) makes and destroys it.
#pragma once

#include <string>

#include "base/unique_fd.h"

namespace bond_risk {

class DatabaseLock {
 public:
  // Takes the lock on the database at `path` and records `holder` ("the
  // engine serving S", ...). Throws std::runtime_error naming the current
  // holder if another process has it.
  DatabaseLock(const std::string& path, const std::string& holder);
  ~DatabaseLock();  // forgets the holder row; the flock goes with the descriptor
  DatabaseLock(const DatabaseLock&) = delete;
  DatabaseLock& operator=(const DatabaseLock&) = delete;

 private:
  std::string path_;
  base::UniqueFd fd_;
};

}  // namespace bond_risk
