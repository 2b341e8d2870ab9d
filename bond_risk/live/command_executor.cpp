#include "bond_risk/live/command_executor.h"

#include <algorithm>
#include <iostream>
#include <numeric>
#include <optional>
#include <utility>

#include "bond_risk/db/event_log.h"
#include "bond_risk/db/loader.h"
#include "bond_risk/db/result_writer.h"
#include "bond_risk/db/schema.h"
#include "bond_risk/live/apply_change.h"
#include "bond_risk/live/limit_replies.h"
#include "bond_risk/live/external_changes.h"
#include "bond_risk/live/replies.h"
#include "base/timing.h"
#include "bond_risk/protocol/messages.h"

namespace bond_risk {

namespace member = protocol::member;

namespace {

// `db` in WAL mode with `synchronous` and every table of the schema. Each
// change runs in a savepoint, whose journal SQLite keeps in a temporary file
// once it passes 64 KiB (a 100-bond quote tick's pages): temp_store = MEMORY
// keeps it in memory, bounded by the largest command.
base::Database& prepared(base::Database& db, Synchronous synchronous) {
  db.exec("PRAGMA journal_mode = WAL; PRAGMA temp_store = MEMORY; PRAGMA synchronous = " +
          std::string(synchronous_name(synchronous)));
  db.exec(kSchemaSql);
  return db;
}

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

// An event as `last-events` replies it; its nodes and engine_us stay null
// unless this engine recalculated and committed it.
base::Json event_json(const LoggedEvent& e) {
  return {{member::seq, e.seq}, {"time", e.time}, {"command", e.command.substr(0, 200)}, {"nodes", nullptr}, {"engine_us", nullptr}};
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
  std::vector<base::Json> logged;                          // this batch's events, for `last-events`
  std::size_t logged_settled = 0;                          // of logged, those recalculated

  // The causes of the events awaiting recalculation: one, or curves apart
  // (none: only a new day awaits).
  std::vector<Cause> unattributed = {};
  bool day_started = false;  // a new day awaits: every day_pnl limit's value moved

  // Recalculates the changes awaiting it; their books' moves go to the
  // unattributed events' causes, under the last one's seq.
  void settle() {
    if (awaiting.empty()) return;
    const base::Stopwatch clock;
    LiveModel::Recalculation r = ex.model_.recalculate();
    const double explaining =
        ex.explain([&] { ex.explainer_->attribute(ex.model_.store(), r, ex.served_event_, unattributed); });
    unattributed.clear();
    const double checking = ex.check_limits(r, AlertCause::event, day_started);
    if (day_started) ex.every_book_changed();  // each one's day_pnl starts again from 0
    day_started = false;
    const base::Json recalculation = recalculation_json(r);
    const std::size_t nodes = std::accumulate(r.nodes.begin(), r.nodes.end(), std::size_t{0});
    for (; logged_settled < logged.size(); ++logged_settled) logged[logged_settled]["nodes"] = nodes;
    ex.unpublished(r);
    for (const auto& [i, applied] : awaiting) {
      replies[i].update(recalculation);
      replies[i].update(changed_values_json(ex.model_, applied));
      replies[i][member::event] = ex.served_event_;
    }
    awaiting.clear();
    ex.phases_.add(Phase::recalculate, clock.seconds() - explaining - checking);
  }

  // Executes command i; throws CommandError for one that cannot be applied.
  void execute(std::size_t i, const std::string& line) {
    const Command& command = *commands[i];
    if (const Change* change = std::get_if<Change>(&command)) {
      // Events of one cause in a row share a recalculation, and their moves
      // go to that cause, as do moves of curves apart (pnl_explainer.h); an
      // event of another cause (or a new day) first recalculates those
      // before it, so that events apply in the order they came.
      const std::optional<Cause> cause = PnlExplainer::cause_of(*change, ex.model_, ex.rows_);
      if (!(cause && ex.explainer_->joins(unattributed, *cause, ex.model_.store()))) settle();
      apply(i, line, *change, cause);
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
      replies[i] = {{"watching", ids}, {member::event, ex.served_event_}};
      if (out[i].watch_limits) replies[i]["alerts"] = true;
    } else if (const Unwatch* unwatch = std::get_if<Unwatch>(&command)) {
      out[i].unwatch_all = unwatch->keys.empty();
      for (const std::string& key : unwatch->keys) {
        if (is_limits_word(key)) {
          out[i].unwatch_limits = true;
          continue;
        }
        out[i].unwatch.push_back(ex.model_.store().id(ex.model_.find(key, ex.rows_)));
      }
      replies[i] = {{"unwatched", out[i].unwatch_all ? unwatch->keys.size() : out[i].unwatch.size()}};
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

  // Applies change i (line `line`, of cause `cause` when it has one) and
  // logs it; its recalculation waits.
  void apply(std::size_t i, const std::string& line, const Change& change, const std::optional<Cause>& cause) {
    const base::Stopwatch clock;
    const bool curves = cause && cause->kind == CauseKind::curve;
    double explaining = 0;
    if (curves && unattributed.empty()) {  // a curve group begins
      explaining += ex.explain([&] { ex.explainer_->curves_before(ex.model_.store()); });
    }
    base::Savepoint savepoint(ex.db_);  // a refused change leaves no row behind
    Applied applied = apply_change(ex.model_, change, ex.db_, ex.rows_);
    replies[i] = applied_json(applied);
    const LoggedEvent event = log_event(ex.db_, line, base::dump_line(replies[i]));
    if (std::holds_alternative<DayStart>(applied.write)) {
      explaining += ex.explain([&] { ex.explainer_->start_day(ex.db_, ex.model_.store(), event.seq); });
      day_started = true;
    }
    if (curves) explaining += ex.explain([&] { ex.explainer_->predict(ex.model_.store()); });
    ex.served_event_ = event.seq;
    savepoint.release();
    logged.push_back(event_json(event));
    if (cause && std::find(unattributed.begin(), unattributed.end(), *cause) == unattributed.end()) {
      unattributed.push_back(*cause);
    }
    awaiting.emplace_back(i, std::move(applied));
    ex.phases_.add(Phase::apply, clock.seconds() - explaining);
  }

  base::Json operator()(const Stats&) const {
    const EngineStatus status{ex.answered_,
                              ex.phases_,
                              ex.publisher_.written_as_of(),
                              ex.publisher_.recovering(),
                              ex.marks_.peak(),
                              ex.publisher_.assembled_peak(),
                              ex.watch_lines_,
                              ex.degraded_,
                              ex.publisher_.last_error()};
    return Queries::stats(ex.served(), status);
  }
  base::Json operator()(const Reload&) const { return ex.apply_external_changes(); }
  base::Json operator()(const Shutdown&) const {
    ex.shutdown_ = true;
    return {{"stopping", true}};
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
      changes_(prepared(db, synchronous)),
      publisher_(results_path(db.path()), db.path()),
      limit_checks_(recorded_limit_states(db)) {
  served_event_ = last_event(db_);
  explainer_.emplace(db_, model_.store(), served_event_);
  {  // what changed while no engine ran: the limits' states the database recorded, against the model now
    base::Transaction tx(db_, true);
    check_limits({}, AlertCause::external, true);
    tx.commit();
    alerts_committed();
  }
  // The feed starts with the events logged before this engine started.
  for (const LoggedEvent& e : last_events(db_, kRecentEvents)) recent_events_.push_back(event_json(e));
  publisher_.add_all(model_.store(), model_.graph());
  publisher_.seal(served_event_);
}

CommandExecutor::~CommandExecutor() { publish_results(); }

double CommandExecutor::check_limits(const LiveModel::Recalculation& r, AlertCause cause, bool all) {
  const base::Stopwatch clock;
  const Store& s = model_.store();
  alerts_.clear();
  if (all) {
    limit_checks_.check_all(s, explainer_->day(), alerts_);
  } else {
    limit_checks_.check(s, explainer_->day(), r.changed[static_cast<std::size_t>(Kind::outright_book)],
                        r.changed[static_cast<std::size_t>(Kind::repo_book)], r.whole, r.limits, alerts_);
  }
  const double checked = clock.seconds();
  phases_.add(Phase::limits, checked);
  if (alerts_.empty()) return checked;
  for (const StoredAlert& a : write_alerts(db_, served_event_, cause, alerts_)) {
    uncommitted_alerts_.push_back(protocol::alert_line(alert_json(s, a), served_event_));
  }
  const double seconds = clock.seconds();
  phases_.add(Phase::alerts, seconds - checked);
  return seconds;
}

void CommandExecutor::alerts_committed() {
  for (std::string& line : uncommitted_alerts_) committed_alerts_.push_back(std::move(line));
  uncommitted_alerts_.clear();
  if (!committed_alerts_.empty()) publisher_.alerts_written();
}

std::vector<std::string> CommandExecutor::take_alerts() { return std::exchange(committed_alerts_, {}); }

std::vector<Reply> CommandExecutor::execute(std::span<const std::string> lines) {
  Batch batch{*this, {}, std::vector<std::string>(lines.size()), std::vector<base::Json>(lines.size()),
              std::vector<Reply>(lines.size()), {}, {}, 0};
  bool writes = false;
  const base::Stopwatch batch_clock;
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
    if (!tx && (changes_.pending() || !limit_checks_.resolved())) {
      tx.emplace(changes_, base::Transaction::Begin::immediate_if_free);
      if (!tx->held()) tx.reset();
    }
    if (tx) busy.emplace(publisher_);
    external = tx && changes_.pending();
    if (external) apply_external_changes();  // changes made by other programs come before these commands
    if (tx && !limit_checks_.resolved()) check_limits({}, AlertCause::external, true);  // after a refused batch
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
    batch.settle();
    if (tx) {
      explain([&] { explainer_->write_rows(db_); });
      clock.restart();
      tx->commit();
      phases_.add(Phase::commit, clock.seconds());
      phases_.commits.add(clock.seconds());
      alerts_committed();
      if (!writes_refused) degraded_.clear();  // else stats still says why its writes were refused
      for (base::Json& event : batch.logged) {
        event["engine_us"] = batch_clock.seconds() * 1e6;
        recent_events_.push_back(std::move(event));
        if (recent_events_.size() > kRecentEvents) recent_events_.pop_front();
      }
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
  uncommitted_alerts_.clear();
  if (!model_changed) return;  // refused before anything was applied (the write lock was not to be had)
  try {
    // The model goes back to what the database holds.
    unpublished(model_.reload(load(db_).store));
    served_event_ = last_event(db_);
    explainer_->reread(db_, model_.store());
    limit_checks_ = LimitChecks(recorded_limit_states(db_));  // checked against the model read back before the next batch
  } catch (const std::runtime_error& e) {
    degraded_ += "; reading it back failed too: " + std::string(e.what());
  }
}

void CommandExecutor::unpublished(const LiveModel::Recalculation& r) {
  all_changed_ |= r.whole;
  any_changed_ = true;
  marks_.mark(r, model_.store());
  for (std::size_t k = 0; k < kKindCount && !all_changed_; ++k) {
    engine::Bitmap& changed = changed_[k];
    const std::size_t size = model_.store().size(static_cast<Kind>(k));
    if (changed.size() < size) changed.resize(size);
    for (NodeIndex i : r.changed[k]) changed.set(i);
  }
}

void CommandExecutor::every_book_changed() {
  any_changed_ = true;
  for (Kind kind : {Kind::outright_book, Kind::repo_book}) {
    engine::Bitmap& changed = changed_[static_cast<std::size_t>(kind)];
    const std::size_t size = model_.store().size(kind);
    if (changed.size() < size) changed.resize(size);
    for (NodeIndex i = 0; i < size; ++i) changed.set(i);
  }
}

std::string CommandExecutor::update_values(std::int64_t id) {
  ++watch_lines_;
  const NodeRef* node = model_.store().by_id.find(id);
  if (!node || model_.store().state(*node).status == Status::removed) return base::dump_line({{member::id, id}, {member::status, protocol::word::removed}});
  base::Json values = node_json(model_, *node);
  if (is_book(kind_of(*node))) values[member::day_pnl] = book_measure(model_.store(), *node) - explainer_->day().baseline(id);
  return base::dump_line(values);
}

bool CommandExecutor::changed_since_notified(std::int64_t id) const {
  if (all_changed_) return true;
  const NodeRef* node = model_.store().by_id.find(id);
  if (!node) return true;  // gone: its last update says so
  const engine::Bitmap& changed = changed_[node->type];
  return node->index < changed.size() && changed.test(node->index);
}

void CommandExecutor::forget_changes() {
  all_changed_ = any_changed_ = false;
  for (engine::Bitmap& changed : changed_) changed.clear();
}

void CommandExecutor::sync_external(bool signalled) {
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
    tx.commit();
    alerts_committed();
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
    uncommitted_alerts_.clear();
  }
  publish_results();
}

bool CommandExecutor::publish_results(std::size_t budget) {
  const base::Stopwatch clock;
  const bool more = marks_.publish(publisher_, model_, served_event_, budget);
  phases_.add(Phase::publish, clock.seconds());
  return more;
}

// Applies the changes other programs made to the input tables and
// recalculates what they affect, inside the caller's transaction.
base::Json CommandExecutor::apply_external_changes() {
  const std::vector<ChangeLog::Change> changes = changes_.changes();
  LiveModel::Recalculation r = apply_external(model_, changes, db_);
  const Cause external{CauseKind::external};
  explain([&] {
    explainer_->attribute(model_.store(), r, 0, {&external, 1});
    explainer_->write_rows(db_);
  });
  check_limits(r, AlertCause::external, false);
  const base::Json recalculation = recalculation_json(r);
  unpublished(r);
  changes_.consume();
  std::cerr << "bond_risk: applied " << changes.size() << " changes made to " << db_.path() << " by other programs\n";
  return recalculation;
}

}  // namespace bond_risk
