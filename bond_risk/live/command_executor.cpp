#include "bond_risk/live/command_executor.h"

#include <algorithm>
#include <exception>
#include <iostream>
#include <optional>
#include <utility>

#include "bond_risk/db/event_log.h"
#include "bond_risk/db/input_schema.h"
#include "bond_risk/live/apply_change.h"
#include "bond_risk/protocol/node_replies.h"
#include "base/timing.h"
#include "bond_risk/protocol/messages.h"

namespace bond_risk {

namespace member = protocol::member;

namespace {

// `db` in WAL mode with `synchronous` and every table of the schema, brought up to date (db/input_schema.h). Each
// change runs in a savepoint, whose journal SQLite keeps in a temporary file
// once it passes 64 KiB (a 100-bond quote tick's pages): temp_store = MEMORY
// keeps it in memory, bounded by the largest command.
base::Database& prepared(base::Database& db, Synchronous synchronous) {
  db.exec("PRAGMA journal_mode = WAL; PRAGMA temp_store = MEMORY; PRAGMA synchronous = " +
          std::string(synchronous_name(synchronous)));
  upgrade_input_schema(db);
  return db;
}

// `db`'s synchronous setting lowered to NORMAL for a scope (no fsync at
// its commits in WAL mode: they survive the engine's crash, not a power
// loss), from `usual` when that is FULL.
class NoFsync {
 public:
  NoFsync(base::Database& db, Synchronous usual) : db_(db), lowered_(usual == Synchronous::full) {
    if (lowered_) set(Synchronous::normal);
  }
  ~NoFsync() {
    try {
      if (lowered_) set(Synchronous::full);
    } catch (const std::exception& e) {  // a pragma of an open connection does not fail; say so if it ever does
      std::cerr << "bond_risk: warning: cannot set synchronous=FULL again: " << e.what() << "\n";
    }
  }
  NoFsync(const NoFsync&) = delete;
  NoFsync& operator=(const NoFsync&) = delete;

 private:
  void set(Synchronous s) { db_.exec("PRAGMA synchronous = " + std::string(synchronous_name(s))); }
  base::Database& db_;
  bool lowered_;
};

// Whether `key` is the word that watches the limits' alerts rather than a
// node: `watch limits`.
bool is_limits_word(std::string_view key) { return key == command_info(CommandId::limits).name; }

// Whether `command` is a read the queries answer (live/queries.h); the
// executor answers stats (of its own status), reload and shutdown itself.
bool is_query(const Command& command) {
  return !std::holds_alternative<Stats>(command) && !std::holds_alternative<Reload>(command) &&
         !std::holds_alternative<Shutdown>(command);
}

// Whether `command` needs the database's write lock.
bool is_write(const Command& command) {
  return std::holds_alternative<Change>(command) || std::holds_alternative<Reload>(command);
}

}  // namespace

// One batch: its parsed lines and replies. A change's reply waits for the
// recalculation that follows the changes before the next read (or the
// batch's end), and then carries what changed.
struct CommandExecutor::Batch {
  CommandExecutor& ex;
  std::vector<std::optional<Command>> commands;
  std::vector<std::string> errors;
  std::vector<base::Json> replies;
  std::vector<Reply> out;
  std::vector<std::pair<std::size_t, Applied>> awaiting;  // changes not yet recalculated

  // Recalculates the changes awaiting it, and completes their replies.
  // `values_first`: the values alone when no reply shows more of them (a
  // trade's shows its books' cs01): the rest waits for complete().
  void settle(bool values_first = false) {
    values_first = values_first && std::ranges::none_of(awaiting, [](const auto& a) {
      return std::holds_alternative<TradeRow>(a.second.write);
    });
    const LiveModel::Recalculation* r = ex.road_.settle(values_first);
    if (!r) return;
    const base::Stopwatch clock;
    const base::Json recalculation = protocol::recalculation_json(r->nodes, r->seconds);
    for (const auto& [i, applied] : awaiting) {
      replies[i].update(recalculation);
      replies[i].update(protocol::changed_values_json(ex.model_.store(), ex.model_.graph(), applied));
      replies[i][member::event] = ex.road_.served();
    }
    awaiting.clear();
    ex.phases_.add(Phase::recalculate, clock.seconds());
  }

  // Executes command i; throws CommandError for one that cannot be applied.
  void execute(std::size_t i, const std::string& line) {
    const Command& command = *commands[i];
    if (const Change* change = std::get_if<Change>(&command)) {
      // The stages say which changes are recalculated together: one that
      // cannot join those awaiting waits for their recalculation.
      if (!ex.road_.joins(*change)) settle();
      Applied applied = ex.road_.apply(*change, [&] {
        base::Savepoint savepoint(ex.db_);  // a refused change leaves no row behind
        Applied a = apply_change(ex.model_, *change, ex.db_, ex.rows_);
        replies[i] = protocol::applied_json(a);
        LoggedEvent event = log_event(ex.db_, line, base::dump_line(replies[i]));
        savepoint.release();
        return EventStages::Logged{std::move(a), std::move(event)};
      });
      awaiting.emplace_back(i, std::move(applied));
    } else if (const Watch* watch = std::get_if<Watch>(&command)) {
      settle();
      base::Json ids = base::Json::array();
      for (const std::string& key : watch->keys) {
        if (is_limits_word(key)) {
          out[i].watch_limits = true;
          continue;
        }
        out[i].watch.push_back(ex.model_.store().id(ex.model_.find(key, ex.rows_)));
        ids.push_back(out[i].watch.back());
      }
      replies[i] = {{member::watching, ids}, {member::event, ex.road_.served()}};
      if (out[i].watch_limits) replies[i][member::alerts] = true;
    } else if (const Unwatch* unwatch = std::get_if<Unwatch>(&command)) {
      out[i].unwatch_all = unwatch->keys.empty();
      for (const std::string& key : unwatch->keys) {
        if (is_limits_word(key)) {
          out[i].unwatch_limits = true;
          continue;
        }
        out[i].unwatch.push_back(ex.model_.store().id(ex.model_.find(key, ex.rows_)));
      }
      replies[i] = {{member::unwatched, out[i].unwatch_all ? unwatch->keys.size() : out[i].unwatch.size()}};
    } else {
      settle();  // a read sees every change before it
      const base::Stopwatch clock;
      if (is_query(command)) {
        Queries::Answer answer = ex.queries_.answer(command, ex.served());
        replies[i] = std::move(answer.members);
        out[i].deferred = std::move(answer.deferred);
      } else {
        replies[i] = std::visit(*this, command);
      }
      ex.phases_.add(Phase::read, clock.seconds());
    }
    ++ex.answered_[static_cast<std::size_t>(command_id(command))];
  }

  base::Json operator()(const Stats&) const {
    const LiveModel& m = ex.model_;
    const std::vector<std::pair<std::string, double>> tiers = m.tier_seconds();
    return protocol::stats_json({m.store(), m.events(), m.latencies_us(), m.latency_histogram(), ex.answered_,
                                 ex.phases_, tiers, ex.road_.served(), ex.publisher_.written_as_of(),
                                 ex.publisher_.recovering(), ex.stages_.marks.peak(), ex.publisher_.assembled_peak(),
                                 ex.stages_.watches.lines(), ex.degraded_, ex.publisher_.last_error()});
  }
  base::Json operator()(const Reload&) const { return ex.apply_external_changes(); }
  base::Json operator()(const Shutdown&) const {
    ex.shutdown_ = true;
    return {{member::stopping, true}};
  }
  base::Json operator()(const auto&) const { throw std::logic_error("changes, watches and queries are not visited"); }
};

DeferredAnswer answer(const Deferred& deferred, std::stop_token stop) {
  try {
    base::Json members = deferred.run(stop);
    std::string line = protocol::ok_line(members);
    if (line.size() > protocol::kMaxReplyBytes) return {protocol::too_long_line(line.size()), std::nullopt};
    return {std::move(line), std::move(members)};
  } catch (const CommandError& e) {
    return {protocol::error_line(e.message), std::nullopt};
  } catch (const std::exception& e) {
    return {protocol::error_line("cannot compute this reply: " + std::string(e.what())), std::nullopt};
  }
}

CommandExecutor::CommandExecutor(LiveModel& model, base::Database& db, Synchronous synchronous)
    : model_(model),
      db_(db),
      synchronous_(synchronous),
      changes_(prepared(db, synchronous)),
      publisher_(db.path()),
      road_(model, phases_, last_event(db)),
      stages_(add_engine_stages(road_, model, rows_, db, &publisher_)) {
  {  // what changed while no engine ran: the limits' states the database recorded, against the model now
    base::Transaction tx(db_, true);
    resolve_limits();
    tx.commit();
    stages_.alerts.committed();
  }
  publisher_.add_all(model_.store(), model_.graph(), &model_.scheduler());
  publisher_.seal(road_.served());
}

CommandExecutor::~CommandExecutor() {
  try {
    publish_results();
  } catch (const std::exception& e) {  // a destructor throws nothing: say what was not published
    std::cerr << "bond_risk: warning: the last results were not handed to the writer: " << e.what() << "\n";
  }
}

void CommandExecutor::resolve_limits() {
  const base::Stopwatch clock;
  stages_.limits.check_all();
  const double checked = clock.seconds();
  phases_.add(Phase::limits, checked);
  stages_.alerts.record(road_.served(), AlertCause::external);
  stages_.alerts.write(db_);
  phases_.add(Phase::alerts, clock.seconds() - checked);
}

void CommandExecutor::complete() {
  if (!road_.completing()) return;
  {
    const ResultPublisher::Busy busy(publisher_);  // the writer waits, as for the batch's own recalculation
    road_.complete();
  }
  write_kept();
}

void CommandExecutor::write_kept() {
  if (!road_.writes()) return;
  try {
    // No acknowledged change is in these rows (alerts, the explain's rows
    // of a bond the rest failed): what a power loss takes of them the next
    // start raises again from the limits' recorded states and books as
    // external. No fsync, so the next command does not wait for the disk;
    // nor for another program's write: the next batch or poll writes them.
    const NoFsync no_fsync(db_, synchronous_);
    ChangeLog::Transaction tx(changes_, base::Transaction::Begin::immediate_if_free);
    if (!tx.held()) return;
    const ResultPublisher::Busy busy(publisher_);
    road_.write(db_);
    const base::Stopwatch clock;
    tx.commit();
    phases_.add(Phase::commit, clock.seconds());
    phases_.commits.add(clock.seconds());
    road_.committed();
  } catch (const std::runtime_error& e) {
    // The events are durable, their alerts and explain rows not: the stages
    // read back what the database holds, as after a batch read back (the
    // limits are checked again from their recorded states, the explain
    // books what moved since its day's rows as external).
    degraded_ = e.what();
    road_.refused(true, road_.served());
  }
}

std::vector<std::string> CommandExecutor::take_alerts() {
  complete();
  return stages_.alerts.take_alerts();
}

std::vector<Reply> CommandExecutor::execute(std::span<const std::string> lines) {
  complete();
  Batch batch{*this, {}, std::vector<std::string>(lines.size()), std::vector<base::Json>(lines.size()),
              std::vector<Reply>(lines.size()), {}};
  bool writes = false;
  road_.begin();
  base::Stopwatch clock;
  for (const std::string& line : lines) {
    try {
      batch.commands.emplace_back(parse_command(line));
      writes |= is_write(*batch.commands.back());
    } catch (const CommandError& e) {
      batch.commands.emplace_back();
      batch.errors[batch.commands.size() - 1] = e.message;
    }
  }
  phases_.add(Phase::parse, clock.seconds());
  ++phases_.batches;
  // A batch that changes the model, once it has the write lock, keeps the
  // result writer waiting (for at most its pause) until its commit and replies.
  std::optional<ResultPublisher::Busy> busy;
  const std::size_t events_before = model_.events();
  bool external = false;
  try {
    // A batch of reads takes no write lock and writes nothing; it applies
    // what other programs changed (and checks the limits after a refused
    // batch) only if the lock is free: a reader never waits for another
    // program's write, it is answered from the model as it stands. A batch
    // that writes takes the lock first: no other program commits in
    // between, and what one committed while the batch waited is seen.
    // If the lock is not to be had within the busy timeout, the batch's
    // writes are refused and its reads answered.
    std::optional<ChangeLog::Transaction> tx;
    bool writes_refused = false;
    if (writes) {
      try {
        tx.emplace(changes_);
      } catch (const std::runtime_error& e) {
        degraded_ = e.what();
        writes_refused = true;
      }
    }
    if (!tx && (changes_.pending() || !stages_.limits.resolved())) {
      tx.emplace(changes_, base::Transaction::Begin::immediate_if_free);
      if (!tx->held()) tx.reset();
    }
    if (tx) busy.emplace(publisher_);
    external = tx && changes_.pending();
    if (external) apply_external_changes();  // changes made by other programs come before these commands
    if (tx && !stages_.limits.resolved()) resolve_limits();  // after a refused batch
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (!batch.commands[i]) continue;
      if (writes_refused && is_write(*batch.commands[i])) {
        batch.errors[i] = refusal();
        continue;
      }
      try {
        batch.execute(i, lines[i]);
      } catch (const CommandError& e) {
        batch.errors[i] = e.message;
      }
    }
    // One change (an engine keeping up) is answered with its values first;
    // a batch of several (lines that queued while the last ran) in one
    // pass, which costs less than two.
    batch.settle(std::ranges::count_if(batch.commands, [](const std::optional<Command>& c) {
                   return c && std::holds_alternative<Change>(*c);
                 }) == 1);
    if (tx) {
      road_.write(db_);
      clock.restart();
      tx->commit();
      phases_.add(Phase::commit, clock.seconds());
      phases_.commits.add(clock.seconds());
      road_.committed();
      if (!writes_refused) degraded_.clear();  // else stats still says why its writes were refused
    }
  } catch (const std::runtime_error& e) {
    // The database refused the batch (locked by another program past the
    // busy timeout, a full disk, ...): nothing of it is durable, so nothing
    // of it is kept, and the engine serves on.
    degraded_ = e.what();
    refuse_batch(batch.errors, external || model_.events() != events_before);
  }
  clock.restart();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!batch.errors[i].empty()) {
      batch.out[i] = {protocol::error_line(batch.errors[i]), {}, {}, false, nullptr};
    } else if (!batch.out[i].deferred) {
      batch.out[i].line = protocol::ok_line(batch.replies[i]);
      // A read too long to send is refused; a change's reply is sent whole (the change is applied).
      if (batch.out[i].line.size() > protocol::kMaxReplyBytes && !is_write(*batch.commands[i])) {
        batch.out[i].line = protocol::too_long_line(batch.out[i].line.size());
      }
    }
  }
  phases_.add(Phase::reply, clock.seconds());
  return std::move(batch.out);
}

std::string CommandExecutor::refusal() const {
  return "the database refused this batch of commands, so none of it was applied (" + degraded_ +
         "); the engine serves on: retry once the database accepts writes";
}

void CommandExecutor::refuse_batch(std::vector<std::string>& errors, bool model_changed) {
  for (std::string& error : errors) error = refusal();
  road_.refused(false, road_.served());  // what the stages kept of the batch is forgotten
  if (!model_changed) return;  // refused before anything was applied (the write lock was not to be had)
  try {
    // The model goes back to what the database holds.
    const std::int64_t served = last_event(db_);
    model_.reload(rows_.load());
    model_.recalculate();
    road_.refused(true, served);
  } catch (const std::runtime_error& e) {
    degraded_ += "; reading it back failed too: " + std::string(e.what());
  }
}

void CommandExecutor::sync_external(bool signalled) {
  complete();
  write_kept();  // rows the rest kept while another program held the write lock
  try {
    const bool committed = changes_.external_commit();
    if (!(committed || signalled || sync_failed_)) return;
    if (!changes_.pending()) {  // none, or a batch applied them since
      sync_failed_ = false;
      return;
    }
    // The lock only if it is free: the loop never stops for another
    // program's write (the next poll tries again).
    ChangeLog::Transaction tx(changes_, base::Transaction::Begin::immediate_if_free);
    if (!tx.held()) {
      sync_failed_ = true;
      return;
    }
    const ResultPublisher::Busy busy(publisher_);
    apply_external_changes();  // consumes them
    road_.write(db_);
    tx.commit();
    road_.committed();
    sync_failed_ = false;
    degraded_.clear();
  } catch (const std::runtime_error& e) {
    // Another program holds the write lock past the busy timeout, or the
    // disk is full: its changes stay recorded, and the next poll applies
    // them again from the database (re-reading a node is idempotent).
    if (!sync_failed_) {
      std::cerr << "bond_risk: warning: cannot apply what other programs changed in " << db_.path() << " (" << e.what()
                << "); retrying at each poll\n";
    }
    degraded_ = e.what();
    sync_failed_ = true;
    road_.refused(false, road_.served());
  }
  publish_results();
}

bool CommandExecutor::publish_results(std::size_t budget, Handover handover) {
  complete();
  const base::Stopwatch clock;
  const bool more = stages_.marks.publish(publisher_, model_.scheduler(), road_.served(), budget, handover);
  phases_.add(Phase::publish, clock.seconds());
  return more;
}

base::Json CommandExecutor::apply_external_changes() {
  const Change changes = changes_.changes();
  const std::size_t count = std::get<RowsChanged>(changes).rows.size();
  const LiveModel::Recalculation& r = road_.external(changes, [&] {
    return EventStages::Logged{apply_change(model_, changes, db_, rows_), std::nullopt};
  });
  const base::Json recalculation = protocol::recalculation_json(r.nodes, r.seconds);
  changes_.consume();
  std::cerr << "bond_risk: applied " << count << " changes made to " << db_.path() << " by other programs\n";
  return recalculation;
}

}  // namespace bond_risk
