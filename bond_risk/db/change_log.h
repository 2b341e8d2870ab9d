// Changes to the input tables, recorded by SQLite triggers into the
// input_change table, whatever program made them; the running engine reads
// them to notice edits it did not make itself.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/sqlite.h"

namespace bond_risk {

class ChangeLog {
 public:
  // Creates the input_change table and its triggers if missing, and starts
  // after the changes already recorded.
  explicit ChangeLog(base::Database& db);

  // Whether another connection has committed since the last call (PRAGMA
  // data_version): cheap enough to ask ten times a second.
  bool external_commit();

  struct Change {
    std::string table;
    std::int64_t id;  // of the node the row belongs to
  };
  // The changes recorded after the last one consumed, each (table, id) once.
  std::vector<Change> changes();

  // Whether changes were recorded after the last one consumed.
  bool pending() { return last_seq() > consumed_; }

  // Marks every recorded change consumed and deletes them; call inside the
  // transaction that made or applied them, and end it with commit().
  void consume();
  // Where consumption stands: take it as that transaction begins.
  std::int64_t mark() const { return consumed_; }
  // Commits `tx`. If the commit fails, nothing consumed since `mark` is
  // (SQLite numbers the next changes from before it again) and the error
  // is rethrown.
  void commit(base::Transaction& tx, std::int64_t mark);

 private:
  std::int64_t last_seq();

  base::Database& db_;
  std::int64_t seen_version_ = -1;
  std::int64_t consumed_ = 0;
};

}  // namespace bond_risk
