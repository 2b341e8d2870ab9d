// Changes other programs made to the input tables and the risk limits (by
// limit id), recorded by SQLite triggers into the input_change table; the
// running engine reads them to notice edits it did not make itself. The
// log's own connection runs no triggers (base::Database::disable_triggers),
// so what the engine writes through it is never recorded, and neither does
// a trigger an operator adds to any table run for the engine's writes.
// Used by the thread that owns the connection.
// Borrows `db`, which must outlive it; the CommandExecutor owns the log.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/sqlite.h"
#include "bond_risk/model/inputs/changes.h"

namespace bond_risk {

class ChangeLog {
 public:
  // Creates the input_change table and its triggers if missing (replacing
  // an older version's), turns triggers off on `db`, and starts after the
  // changes already recorded.
  explicit ChangeLog(base::Database& db);

  // Whether another connection has committed since the last call (PRAGMA
  // data_version): cheap enough to ask ten times a second.
  bool external_commit();

  // The changes recorded after the last one consumed, each (table, id of
  // the node the row belongs to) once: a change the model applies.
  RowsChanged changes();

  // Whether changes were recorded after the last one consumed.
  bool pending() { return last_seq() > consumed_; }

  // Marks every recorded change consumed and deletes them; call inside a
  // Transaction, which makes it durable or takes it back.
  void consume();

  // A write transaction over the database (its write lock taken at once)
  // and what it consumes of the log. If the commit fails, or the transaction ends
  // without one (an exception), the database rolls it back and nothing
  // consumed since it began stays consumed: the next changes are numbered
  // from before it again, so they are seen. One per log at a time.
  // `begin`: immediate waits for the write lock up to the busy timeout;
  // immediate_if_free takes it only if it is free (held() says whether),
  // for work that can wait for a later poll rather than hold up readers.
  // Borrows the log and its connection, which must outlive it; used on the
  // log's thread, as the log is.
  class Transaction {
   public:
    explicit Transaction(ChangeLog& log, base::Transaction::Begin begin = base::Transaction::Begin::immediate);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    bool held() const { return tx_.held(); }
    void commit();

   private:
    ChangeLog& log_;
    std::int64_t mark_;
    base::Transaction tx_;
    bool committed_ = false;
  };

 private:
  std::int64_t last_seq();

  base::Database& db_;
  std::int64_t seen_version_ = -1;
  std::int64_t consumed_ = 0;
};

}  // namespace bond_risk
