// Thin RAII wrappers over the SQLite C API. Every failure of SQLite's throws
// base::SqliteError (a std::runtime_error) with the database path, SQLite's
// message and its result code.
// A Database owns its connection and its cached statements. Not thread-safe
// (opened without SQLite's mutexes): one thread at a time uses a connection
// and everything made on it.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

namespace base {

class Statement;

class SqliteError : public std::runtime_error {
 public:
  SqliteError(const std::string& what, int code) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }  // SQLite's primary result code (SQLITE_BUSY, ...)
  // The file is not a database, or a damaged one.
  bool broken() const { return code_ == SQLITE_CORRUPT || code_ == SQLITE_NOTADB; }

 private:
  int code_;
};

// Removes the database file at `path` with its -wal, -shm and -journal
// (those missing are no error). Throws std::runtime_error naming the file
// that could not be removed and what to do.
void remove_database(const std::string& path);

// The path of a database kept beside database `db_path`, called `name`:
// DIR/DB.NAME.db for DIR/DB.db, PATH.NAME.db for any other PATH.
std::string companion_path(const std::string& db_path, std::string_view name);

class Database {
 public:
  enum class Mode { read_only, read_write, create, replace };

  // Opens `path`; read_only and read_write require the file to exist;
  // create makes a missing file owner-only (0600) and refuses a symbolic
  // link at `path` or its -wal or -shm (it would write the file it names);
  // replace first removes the file (remove_database), then creates it as
  // create does. Replace only a file no other connection has open: one in
  // WAL mode, closed after, would delete the new file's -wal and -shm.
  Database(const std::string& path, Mode mode);

  void exec(const std::string& sql);
  Statement prepare(std::string_view sql);
  // The statement for `sql`, prepared once and kept for reuse (reset, with
  // no bindings, after each run()). Lives as long as the Database.
  Statement& cached(const std::string& sql);
  bool has_table(const std::string& table);
  bool has_column(const std::string& table, const std::string& column);

  const std::string& path() const { return path_; }
  // The file SQLite opened; "" for an in-memory or temporary database.
  std::string file() const;
  // Whether a transaction is open (BEGIN or SAVEPOINT not yet ended).
  bool in_transaction() const { return sqlite3_get_autocommit(db_.get()) == 0; }
  // How long a statement waits for another connection's lock (default 5 s).
  void set_busy_timeout(int milliseconds);
  // Turns triggers off for this connection (SQLITE_DBCONFIG_ENABLE_TRIGGER):
  // its writes to any table run none but TEMP triggers; other connections'
  // writes run them as before.
  void disable_triggers();
  int busy_timeout() const { return busy_timeout_ms_; }
  sqlite3* handle() const { return db_.get(); }
  [[noreturn]] void fail(const std::string& what) const;

 private:
  struct Close {
    void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
  };
  std::string path_;
  int busy_timeout_ms_ = 5000;
  std::unique_ptr<sqlite3, Close> db_;
  std::unordered_map<std::string, std::unique_ptr<Statement>> cache_;  // destroyed before db_ closes
};

// Attaches the database beside `db` called `name` (companion_path) as
// schema `name`; false when there is none.
bool attach_companion(Database& db, std::string_view name);

// One column of a statement's current row, found once: its type and value
// read without looking the column up again (a loader reads millions).
// Valid until the statement steps, resets or ends. SQLite calls it
// unprotected: safe here, since a connection is used by one thread at a
// time (Database opens it without SQLite's mutexes).
class ColumnValue {
 public:
  explicit ColumnValue(sqlite3_value* value) : value_(value) {}
  int type() const { return sqlite3_value_type(value_); }
  std::int64_t integer() const { return sqlite3_value_int64(value_); }
  double real() const { return sqlite3_value_double(value_); }
  std::string_view text() const;

 private:
  sqlite3_value* value_;
};

// A prepared statement. Columns and parameters are numbered as in SQLite:
// parameters from 1, result columns from 0.
// Owns its sqlite3_stmt; borrows `db`, which must outlive it. Used by the
// thread that uses its connection.
class Statement {
 public:
  Statement(const Database& db, std::string_view sql);

  Statement& bind(int param, std::int64_t value);
  Statement& bind(int param, double value);
  Statement& bind(int param, std::string_view value);
  Statement& bind_null(int param);
  Statement& bind_blob(int param, std::string_view bytes);

  // Advances to the next row; false when done. On failure it throws and
  // leaves the statement reset, ready to be bound and run again.
  bool step();
  // Runs a statement that returns no rows, then resets it for reuse.
  void run();
  void reset();

  ColumnValue column(int col) const { return ColumnValue(sqlite3_column_value(stmt_.get(), col)); }
  int column_type(int col) const { return sqlite3_column_type(stmt_.get(), col); }
  std::int64_t integer(int col) const { return sqlite3_column_int64(stmt_.get(), col); }
  double real(int col) const { return sqlite3_column_double(stmt_.get(), col); }
  std::string_view text(int col) const { return column(col).text(); }
  // A blob column's bytes, valid until the next step or reset.
  std::string_view blob(int col) const {
    const void* bytes = sqlite3_column_blob(stmt_.get(), col);
    return {static_cast<const char*>(bytes), static_cast<std::size_t>(sqlite3_column_bytes(stmt_.get(), col))};
  }
  int column_count() const { return sqlite3_column_count(stmt_.get()); }
  std::string_view column_name(int col) const { return sqlite3_column_name(stmt_.get(), col); }
  // The value of column `col` as text for people: NULL, an integer, a real
  // to 10 significant digits, or the text itself.
  std::string value_text(int col) const;

 private:
  struct Finalize {
    void operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }
  };
  const Database* db_;
  std::unique_ptr<sqlite3_stmt, Finalize> stmt_;
};

// BEGIN on construction (BEGIN IMMEDIATE, taking the write lock at once, if
// `immediate`); ROLLBACK on destruction unless commit() was called.
// Borrows `db`, which must outlive it; made, committed and destroyed by the
// thread that uses the connection.
class Transaction {
 public:
  // deferred: BEGIN; immediate: BEGIN IMMEDIATE (the write lock at once,
  // waiting for it up to the busy timeout); immediate_if_free: the write
  // lock only if no other connection holds it, without waiting: held() says
  // whether it was taken (if not, there is no transaction).
  enum class Begin { deferred, immediate, immediate_if_free };
  Transaction(Database& db, Begin begin);
  explicit Transaction(Database& db, bool immediate = false)
      : Transaction(db, immediate ? Begin::immediate : Begin::deferred) {}
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  bool held() const { return !done_; }
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

// A SAVEPOINT inside the caller's transaction: release() keeps what was
// done since; destruction without release() rolls it back.
// Borrows `db`, which must outlive it; made, released and destroyed by the
// thread that uses the connection.
class Savepoint {
 public:
  explicit Savepoint(Database& db);
  ~Savepoint();
  Savepoint(const Savepoint&) = delete;
  Savepoint& operator=(const Savepoint&) = delete;
  void release();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace base
