#include "bond_risk/live/command_executor.h"

#include <iostream>

#include "bond_risk/db/event_log.h"
#include "bond_risk/db/schema.h"
#include "bond_risk/live/external_changes.h"
#include "bond_risk/live/replies.h"

namespace bond_risk {

namespace {

// `db` in WAL mode with synchronous=FULL and every table of the schema.
base::Database& prepared(base::Database& db) {
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL");
  db.exec(kSchemaSql);
  return db;
}

}  // namespace

// The replies of one batch. A change's reply waits for the recalculation
// that follows the changes before the next read (or the batch's end).
struct CommandExecutor::Batch {
  CommandExecutor& ex;
  std::vector<base::Json> replies;
  std::vector<std::size_t> awaiting;  // replies of changes not yet recalculated

  void settle() {
    if (awaiting.empty()) return;
    const base::Json recalculation = recalculation_json(ex.model_.recalculate(&ex.db_));
    for (std::size_t i : awaiting) replies[i].update(recalculation);
    awaiting.clear();
  }

  // Executes `line` into replies[i]; throws CommandError for a bad command.
  void execute(std::size_t i, const std::string& line) {
    const Command command = parse_command(line);
    if (const Change* change = std::get_if<Change>(&command)) {
      base::Savepoint savepoint(ex.db_);  // a refused change leaves no row behind
      replies[i] = applied_json(ex.model_.apply(*change, &ex.db_));
      log_event(ex.db_, line, base::dump_line(replies[i]));
      savepoint.release();
      awaiting.push_back(i);
    } else {
      settle();  // a read sees every change before it
      replies[i] = std::visit(*this, command);
    }
    ++ex.answered_[static_cast<std::size_t>(command_id(command))];
  }

  base::Json operator()(const Get& g) const { return node_json(ex.model_, ex.model_.find(g.key, &ex.db_)); }
  base::Json operator()(const ShowBook& b) const {
    const NodeRef n = ex.model_.find(b.key, &ex.db_);
    if (!is_book(kind_of(n))) {
      throw CommandError("'" + b.key + "' is " + std::string(kind_name(kind_of(n))) + ", not a book");
    }
    return node_json(ex.model_, n);
  }
  base::Json operator()(const Stats&) const { return stats_json(ex.model_, ex.answered_); }
  base::Json operator()(const Reload&) const { return ex.apply_external_changes(); }
  base::Json operator()(const Shutdown&) const {
    ex.shutdown_ = true;
    return {{"stopping", true}};
  }
  base::Json operator()(const Change&) const { throw std::logic_error("changes are applied, not visited"); }
};

CommandExecutor::CommandExecutor(LiveModel& model, base::Database& db)
    : model_(model), db_(db), changes_(prepared(db)) {}

std::vector<std::string> CommandExecutor::execute(std::span<const std::string> lines) {
  Batch batch{*this, std::vector<base::Json>(lines.size()), {}};
  std::vector<std::string> errors(lines.size());
  {
    base::Transaction tx(db_, true);  // the write lock first: no other program commits between the check and ours
    if (changes_.pending()) apply_external_changes();  // changes made by other programs come before these commands
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].find_first_not_of(" \t\r") == std::string::npos) continue;
      try {
        batch.execute(i, lines[i]);
      } catch (const CommandError& e) {
        errors[i] = e.what();
      }
    }
    batch.settle();
    changes_.consume();  // this transaction's own changes
    tx.commit();
  }
  std::vector<std::string> out(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!errors[i].empty()) {
      out[i] = error_line(errors[i]);
    } else if (!batch.replies[i].is_null()) {
      out[i] = ok_line(batch.replies[i]);
    }
  }
  return out;
}

void CommandExecutor::sync_external(bool signalled) {
  const bool committed = changes_.external_commit();
  if (!(committed || signalled) || !changes_.pending()) return;
  base::Transaction tx(db_, true);
  apply_external_changes();
  tx.commit();
}

// Applies the changes other programs made to the input tables and
// recalculates what they affect, inside the caller's transaction.
base::Json CommandExecutor::apply_external_changes() {
  const std::vector<ChangeLog::Change> changes = changes_.changes();
  const LiveModel::Recalculation r = apply_external(model_, changes, db_);
  changes_.consume();
  std::cerr << "bond_risk: applied " << changes.size() << " changes made to " << db_.path() << " by other programs\n";
  return recalculation_json(r);
}

}  // namespace bond_risk
