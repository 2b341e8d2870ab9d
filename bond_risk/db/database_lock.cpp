#include "bond_risk/db/database_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "base/sqlite.h"

namespace bond_risk {

namespace {

// As in schema/bond_risk.sql; created here alone so that taking the lock
// adds nothing else to a database (a missing input table stays missing).
constexpr const char* kHolderTableSql =
    "CREATE TABLE IF NOT EXISTS database_holder (holder TEXT NOT NULL, pid INTEGER NOT NULL, since TEXT NOT NULL)";

// Who the database_holder row says holds the database at `path`.
std::string current_holder(const std::string& path) {
  try {
    base::Database db(path, base::Database::Mode::read_only);
    if (!db.has_table("database_holder")) return "another process";
    base::Statement st = db.prepare("SELECT holder, pid, since FROM database_holder");
    if (!st.step()) return "another process";
    return std::string(st.text(0)) + " (pid " + std::to_string(st.integer(1)) + ", since " + std::string(st.text(2)) + ")";
  } catch (const std::runtime_error&) {
    return "another process";
  }
}

}  // namespace

DatabaseLock::DatabaseLock(const std::string& path, const std::string& holder)
    : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
  if (fd_.get() < 0 && errno == ENOENT) throw std::runtime_error("database " + path + " does not exist (check the path, or generate one)");
  if (fd_.get() < 0) throw std::runtime_error("cannot open database " + path + ": " + std::strerror(errno));
  if (::flock(fd_.get(), LOCK_EX | LOCK_NB) != 0) {
    throw std::runtime_error("database " + path + " is in use by " + current_holder(path));
  }
  base::Database db(path, base::Database::Mode::read_write);
  db.exec(kHolderTableSql);
  base::Transaction tx(db, true);
  db.exec("DELETE FROM database_holder");
  db.cached("INSERT INTO database_holder (holder, pid, since) VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))")
      .bind(1, std::string_view(holder))
      .bind(2, std::int64_t{::getpid()})
      .run();
  tx.commit();
}

DatabaseLock::~DatabaseLock() {
  try {
    base::Database db(path_, base::Database::Mode::read_write);
    db.exec("DELETE FROM database_holder");
  } catch (const std::runtime_error&) {
    // The row only describes the holder; the next one replaces it.
  }
}

}  // namespace bond_risk
