// Helpers for tests of the running engine in process: a LiveModel with its
// command executor on a generated database, and comparisons against a fresh
// load and full flush of what it wrote.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/sqlite.h"
#include "bond_risk/db/change_log.h"
#include "bond_risk/protocol/command.h"
#include "bond_risk/live/command_executor.h"
#include "bond_risk/live/live_model.h"
#include "bond_risk/synth/generator.h"
#include "tests/test_support.h"

namespace test {

// The typed change a command line parses to.
bond_risk::Change change(const std::string& line);

// A LiveModel on a generated database, with the executor the server uses.
struct Live {
  TempDir dir;
  std::string path = dir.path("live.db");
  std::unique_ptr<base::Database> db;
  std::unique_ptr<bond_risk::LiveModel> model;
  std::unique_ptr<bond_risk::CommandExecutor> executor;

  bool bare = false;  // neither key rates nor quote analytics (the bare engine)

  // `sql` edits the generated rows before the load (to make bad ones).
  explicit Live(const char* preset = "100", std::size_t book_size = 20, std::size_t threads = 2,
                const std::string& sql = "", bond_risk::Conventions conventions = bond_risk::Conventions::none,
                bool bare = false);

  // The database's store as this engine loads it (bare or not).
  bond_risk::Store load() const;
  // Commits `line`'s change to the database and the model; the
  // recalculation is the caller's (model->recalculate).
  void commit(const std::string& line);

  // Executes one batch of lines as the server does (committed,
  // recalculated); returns the parsed replies (each must be valid JSON).
  std::vector<base::Json> batch(const std::vector<std::string>& lines);
  base::Json run(const std::string& line) { return batch({line}).front(); }
  // The database may grow no more (SQLITE_FULL, as a full disk), and the
  // room its pages have left is used up by `line`'s changes, run until one
  // is refused for want of it: how much room is left depends on the
  // layout (the page size), a full disk's effects must not.
  void fill_disk(const std::string& line);

  const bond_risk::Store& store() const { return model->store(); }
  bond_risk::NodeRef node(std::int64_t id) const { return *store().by_id.find(id); }
};

// An engine opened on an existing database, as a restart opens it (one
// worker thread).
struct Reopened {
  base::Database db;
  bond_risk::LiveModel model;
  bond_risk::CommandExecutor executor;
  explicit Reopened(const std::string& path);
  base::Json run(const std::string& line);
  // One batch; every reply must be ok.
  void batch(const std::vector<std::string>& lines);
};

// Runs `sql` as another program would, then applies what it changed as the
// engine does (row by row, or by a whole reload), through `log`; returns
// the recalculation that followed.
bond_risk::LiveModel::Recalculation apply_other_program(Live& live, bond_risk::ChangeLog& log, const std::string& sql);

// First id of each kind in a store.
std::int64_t first_id(const bond_risk::Store& s, bond_risk::Kind kind);

// Every live node's status and published values equal those of a fresh load
// and full flush of the database: bit for bit, book sums to 1e-9 relative.
void expect_same_as_fresh(const Live& live);

// Once the result writer has caught up, the results database holds exactly
// the rows of a fresh load and full flush (book sums to 1e-9 relative), and
// says it reflects the last event.
void expect_result_tables_fresh(Live& live);

}  // namespace test
