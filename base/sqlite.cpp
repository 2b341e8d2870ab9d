#include "base/sqlite.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace base {

namespace {

// Throws if `file` is a symbolic link: SQLite would create or write the file it names.
void refuse_symlink(const std::string& file, const std::string& path) {
  struct stat st {};
  if (::lstat(file.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return;
  std::error_code ec;
  const std::string target = std::filesystem::read_symlink(file, ec).string();
  throw std::runtime_error("cannot open database " + path + ": " + file + " is a symbolic link (to '" + target +
                           "'), which would write the file it names; remove it (rm " + file +
                           ") and run again, or give another path");
}

// SQLite counts the memory it allocates under one process-wide mutex, which
// the engine's connection and the results writer's would contend for on
// every allocation; nothing here reads those counts. Set once, before the
// first connection initializes the library.
void configure_library() {
  static const int configured = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  (void)configured;
}

}  // namespace

std::string companion_path(const std::string& db_path, std::string_view name) {
  const std::string_view suffix = ".db";
  const std::string stem = db_path.size() > suffix.size() && db_path.ends_with(suffix)
                               ? db_path.substr(0, db_path.size() - suffix.size())
                               : db_path;
  return stem + "." + std::string(name) + ".db";
}

void remove_database(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    if (::unlink((path + suffix).c_str()) != 0 && errno != ENOENT) {
      throw std::runtime_error("cannot remove " + path + suffix + ": " + std::strerror(errno) +
                               "; check that this user may write its directory, or remove it yourself");
    }
  }
}

bool attach_companion(Database& db, std::string_view name) {
  const std::string path = companion_path(db.path(), name);
  if (!std::filesystem::exists(path)) return false;
  db.prepare("ATTACH DATABASE ? AS " + std::string(name)).bind(1, std::string_view(path)).run();
  return true;
}

Database::Database(const std::string& path, Mode mode) : path_(path) {
  if (mode == Mode::create || mode == Mode::replace) {
    for (const char* suffix : {"", "-wal", "-shm"}) refuse_symlink(path + suffix, path);
    if (mode == Mode::replace) remove_database(path);
    // Owner-only: positions are confidential. SQLite gives the -wal and -shm
    // files the database file's mode.
    const int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0) ::close(fd);
  }
  // One connection is only ever used by one thread at a time: SQLite's own mutexes would be pure cost.
  const int flags = SQLITE_OPEN_NOMUTEX | (mode == Mode::read_only    ? SQLITE_OPEN_READONLY
                    : mode == Mode::read_write ? SQLITE_OPEN_READWRITE
                                               : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW);
  if (mode != Mode::create && path != ":memory:" && !std::filesystem::exists(path)) {
    throw std::runtime_error("database " + path + " does not exist (check the path, or generate one)");
  }
  configure_library();
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  db_.reset(raw);
  if (rc != SQLITE_OK) {
    throw SqliteError("cannot open database " + path + ": " + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)), rc & 0xff);
  }
  sqlite3_busy_timeout(raw, busy_timeout_ms_);
  // Reading the schema is the first access that finds out whether the file is a database at all.
  if (sqlite3_exec(raw, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr) != SQLITE_OK) {
    fail("not a usable SQLite database");
  }
}

std::string Database::file() const {
  const char* name = sqlite3_db_filename(db_.get(), "main");
  return name ? name : "";
}

void Database::set_busy_timeout(int milliseconds) {
  busy_timeout_ms_ = milliseconds;
  sqlite3_busy_timeout(db_.get(), milliseconds);
}

void Database::disable_triggers() {
  int enabled = 1;
  if (sqlite3_db_config(db_.get(), SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, &enabled) != SQLITE_OK) {
    fail("cannot turn triggers off");
  }
  if (enabled != 0) {
    throw SqliteError("database " + path_ + ": triggers stayed on after SQLite was told to turn them off", SQLITE_ERROR);
  }
}

void Database::fail(const std::string& what) const {
  throw SqliteError("database " + path_ + ": " + what + ": " + sqlite3_errmsg(db_.get()), sqlite3_errcode(db_.get()) & 0xff);
}

void Database::exec(const std::string& sql) {
  if (sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    fail("cannot run '" + sql.substr(0, 60) + "'");
  }
}

Statement Database::prepare(std::string_view sql) { return Statement(*this, sql); }

Statement& Database::cached(const std::string& sql) {
  auto& slot = cache_[sql];
  if (!slot) slot = std::make_unique<Statement>(*this, sql);
  return *slot;
}

bool Database::has_table(const std::string& table) {
  Statement& st = cached("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?");
  st.bind(1, table);
  const bool found = st.step();
  st.reset();
  return found;
}

bool Database::has_column(const std::string& table, const std::string& column) {
  Statement& st = cached("SELECT 1 FROM pragma_table_info(?) WHERE name = ?");
  st.bind(1, table).bind(2, column);
  const bool found = st.step();
  st.reset();
  return found;
}

Statement::Statement(const Database& db, std::string_view sql) : db_(&db) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &raw, nullptr) != SQLITE_OK) {
    db.fail("cannot prepare '" + std::string(sql.substr(0, 60)) + "'");
  }
  stmt_.reset(raw);
}

Statement& Statement::bind(int param, std::int64_t value) {
  if (sqlite3_bind_int64(stmt_.get(), param, value) != SQLITE_OK) db_->fail("bind");
  return *this;
}

Statement& Statement::bind(int param, double value) {
  if (sqlite3_bind_double(stmt_.get(), param, value) != SQLITE_OK) db_->fail("bind");
  return *this;
}

Statement& Statement::bind(int param, std::string_view value) {
  // SQLite binds a null pointer as NULL: an empty view (whatever its data) is the empty text.
  const char* text = value.empty() ? "" : value.data();
  if (sqlite3_bind_text(stmt_.get(), param, text, static_cast<int>(value.size()), SQLITE_TRANSIENT) !=
      SQLITE_OK) {
    db_->fail("bind");
  }
  return *this;
}

Statement& Statement::bind_blob(int param, std::string_view bytes) {
  if (sqlite3_bind_blob(stmt_.get(), param, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT) != SQLITE_OK) {
    db_->fail("bind");
  }
  return *this;
}

Statement& Statement::bind_null(int param) {
  if (sqlite3_bind_null(stmt_.get(), param) != SQLITE_OK) db_->fail("bind");
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  // Reset, a statement that failed can be bound and run again (a cached one
  // is); the database keeps the failure's message for fail().
  sqlite3_reset(stmt_.get());
  db_->fail("cannot run '" + std::string(sqlite3_sql(stmt_.get())).substr(0, 60) + "'");
}

void Statement::run() {
  step();
  reset();
}

void Statement::reset() {
  sqlite3_reset(stmt_.get());
  sqlite3_clear_bindings(stmt_.get());
}

std::string_view ColumnValue::text() const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(value_));
  return p ? std::string_view(p, static_cast<std::size_t>(sqlite3_value_bytes(value_))) : std::string_view();
}

std::string Statement::value_text(int col) const {
  switch (column_type(col)) {
    case SQLITE_NULL: return "NULL";
    case SQLITE_INTEGER: return std::to_string(integer(col));
    case SQLITE_FLOAT: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.10g", real(col));
      return buf;
    }
    default: return std::string(text(col));
  }
}

Transaction::Transaction(Database& db, Begin begin) : db_(db) {
  if (begin != Begin::immediate_if_free) {
    db_.exec(begin == Begin::immediate ? "BEGIN IMMEDIATE" : "BEGIN");
    return;
  }
  sqlite3_busy_timeout(db_.handle(), 0);
  const int rc = sqlite3_exec(db_.handle(), "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
  sqlite3_busy_timeout(db_.handle(), db_.busy_timeout());
  if (rc == SQLITE_BUSY) {
    done_ = true;  // another connection holds the write lock: no transaction
  } else if (rc != SQLITE_OK) {
    db_.fail("BEGIN IMMEDIATE");
  }
}

Transaction::~Transaction() {
  if (!done_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

Savepoint::Savepoint(Database& db) : db_(db) { db_.cached("SAVEPOINT change").run(); }

Savepoint::~Savepoint() {
  if (done_) return;
  sqlite3_exec(db_.handle(), "ROLLBACK TO change; RELEASE change", nullptr, nullptr, nullptr);
}

void Savepoint::release() {
  db_.cached("RELEASE change").run();
  done_ = true;
}

}  // namespace base
