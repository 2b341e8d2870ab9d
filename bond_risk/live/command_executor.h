// Executes the running engine's commands as the server receives them, in
// batches: the state-changing commands of a batch are applied in one
// transaction (group commit) in WAL mode with synchronous=FULL, each with
// an event_log row, together with the results of the nodes they
// recalculated, and no reply is built before that transaction commits. A
// read sees every change before it. Changes other programs committed to the
// input tables are applied before a batch, and when sync_external() finds
// them.
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/sqlite.h"
#include "bond_risk/db/change_log.h"
#include "bond_risk/live/command.h"
#include "bond_risk/live/live_model.h"

namespace bond_risk {

class CommandExecutor {
 public:
  // Prepares `db` (WAL, synchronous=FULL, the schema and the change log's
  // triggers). Both must outlive the executor.
  CommandExecutor(LiveModel& model, base::Database& db);

  // One reply line per line of `lines` (JSON, without a newline; "" for a
  // blank line), returned after the batch's transaction committed.
  std::vector<std::string> execute(std::span<const std::string> lines);

  // Applies the changes other programs committed since the last call, if
  // any; `signalled` looks even when SQLite saw no other commit (SIGUSR1).
  void sync_external(bool signalled);

  // Whether a shutdown command was executed.
  bool shutdown_requested() const { return shutdown_; }

 private:
  struct Batch;  // one batch's replies and pending recalculation (command_executor.cpp)

  base::Json apply_external_changes();

  LiveModel& model_;
  base::Database& db_;
  ChangeLog changes_;
  std::array<std::size_t, kCommandCount> answered_{};
  bool shutdown_ = false;
};

}  // namespace bond_risk
