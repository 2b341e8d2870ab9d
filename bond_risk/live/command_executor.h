// Executes the running engine's commands as the server receives them, in
// batches. If the database refuses a batch (locked too long by another
// program, a full disk), every line of it gets an error saying so, the model
// is read back from the database, and `stats` shows the engine degraded
// until a batch is written again. The state-changing commands of a batch are applied in one
// transaction of the input database (group commit; WAL, synchronous=FULL
// unless the engine was started with less),
// each with an event_log row; the nodes they affect are recalculated in
// process, and the transaction commits before any reply is built, so an
// acknowledged change is durable. A batch of one change that is no trade's
// (a curve move, a date roll) is answered once its values are
// recalculated: its ladders, quote analytics and cs01, the limits' checks
// and the alerts follow in complete(), which the server calls once the
// reply is on its way and every other call makes first, so no read ever
// sees a figure behind the values. (A batch of several changes, lines
// that queued while the last batch ran, is recalculated in one pass,
// which costs less than two.) Results are persisted behind the
// acknowledgement by a ResultPublisher. A read sees every change before it
// on its connection (read your writes) and writes nothing: the queries
// answer it (live/queries.h; stats with the status the executor gives).
// The executor keeps the batch, its transaction and durability, reload and
// shutdown; what follows each change (the P&L explain, limits and alerts,
// the event feed, result marks, watchers' changes) is the engine's stages'
// (live/stages/engine_stages.h), which changes other programs committed to the
// input tables go through too: before a batch, and when sync_external()
// finds them. Not thread-safe: the server's one thread calls it.
// Owns the change log, the result publisher (and its writer thread), the
// stages and the queries; borrows `model` and `db`, which must outlive it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <span>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/sqlite.h"
#include "bond_risk/db/change_log.h"
#include "bond_risk/db/database_rows.h"
#include "bond_risk/db/synchronous.h"
#include "bond_risk/live/stages/engine_stages.h"
#include "bond_risk/live/stages/event_stages.h"
#include "bond_risk/live/live_model.h"
#include "bond_risk/protocol/stats_reply.h"
#include "bond_risk/live/queries.h"
#include "bond_risk/live/result_publisher.h"
#include "bond_risk/protocol/command.h"

namespace bond_risk {

// Runs `deferred` (on any thread): its reply line, and its members when it
// succeeded (for `keep`, on the master thread).
struct DeferredAnswer {
  std::string line;
  std::optional<base::Json> members;
};
DeferredAnswer answer(const Deferred& deferred, std::stop_token stop);

// One line's reply, and for watch and unwatch what the connection follows.
struct Reply {
  std::string line;              // JSON, without a newline; empty when deferred
  // Nodes by id (ids, unlike indices, survive a reload of the model).
  std::vector<std::int64_t> watch;    // nodes to follow from now on
  std::vector<std::int64_t> unwatch;  // nodes to stop following
  bool unwatch_all = false;
  std::shared_ptr<const Deferred> deferred;  // set: the line is to come from it
  bool watch_limits = false, unwatch_limits = false;  // the limits' alerts (take_alerts)
};

class CommandExecutor {
 public:
  // Prepares `db` (WAL, `synchronous` (db/synchronous.h), the schema and
  // the change log's triggers, which turns triggers off on `db`) and starts
  // persisting `model`'s results (all of them first) to the results
  // database beside it. Both must outlive the executor.
  CommandExecutor(LiveModel& model, base::Database& db, Synchronous synchronous = Synchronous::full);
  ~CommandExecutor();  // publishes what remains
  CommandExecutor(const CommandExecutor&) = delete;
  CommandExecutor& operator=(const CommandExecutor&) = delete;

  // One reply per line of `lines`, returned after the batch's transaction
  // committed. The recalculated results wait for publish_results(), which
  // the server calls once the replies are on their way.
  std::vector<Reply> execute(std::span<const std::string> lines);

  // The rest of the last batch's recalculation, if its values came first:
  // every figure published, the limits checked, and their alerts (and what
  // the P&L explain kept of it) committed in a transaction of their own.
  void complete();

  // Hands the rows recalculated since then to the result writer, at most
  // about `budget` of them (the server publishes in slices between batches
  // and at each poll, so that a big event's rows never hold up the next
  // command); true while rows remain. The writer takes them once every row
  // of the last event is in. Every row, when the writer asks for them again
  // (ResultPublisher::needs_all). With Handover::when_wanted a new pass
  // waits while the writer is busy with rows it would copy again (false).
  bool publish_results(std::size_t budget = SIZE_MAX, Handover handover = Handover::now);

  // Which watched nodes' values may have changed, and their update lines
  // (live/stages/watched_changes.h).
  WatchedChanges& watches() { return stages_.watches; }

  // Applies the changes other programs committed since the last call, if
  // any, and publishes the results; `signalled` looks even when SQLite saw no
  // other commit (SIGUSR1). When the database refuses (locked, full), says
  // so in `stats` as a refused batch does, and tries again at the next call.
  void sync_external(bool signalled);

  // The risk limits' alerts committed since the last call, oldest first,
  // as lines for the connections that watch limits:
  // {"alert":{...limit_replies.h...},"event":N}.
  std::vector<std::string> take_alerts();

  // Whether a shutdown command was executed.
  bool shutdown_requested() const { return shutdown_; }

  // Throws std::logic_error naming a broken invariant of the model or a
  // stage (EventStages::check).
  void check() {
    complete();
    road_.check();
  }

  // The last event (event_log.seq) the served values reflect.
  std::int64_t served_event() const { return road_.served(); }
  ResultPublisher& results() { return publisher_; }

 private:
  struct Batch;  // one batch's replies (command_executor.cpp)

  // Applies the changes other programs made to the input tables through
  // the stages, inside the caller's transaction; the recalculation's JSON.
  base::Json apply_external_changes();
  // The limits checked against the recorded states, their alerts written
  // in the caller's transaction (after start-up, or a refused batch).
  void resolve_limits();
  // What the stages kept since the last commit, in a transaction of its
  // own if the write lock is free (else the next batch's or poll's).
  void write_kept();
  // The state as a read sees it now.
  Served served() const { return {model_, db_, rows_, stages_.explainer.day(), road_.served(), stages_.feed.recent()}; }
  // After the database refused a batch: every line's error says so (the
  // refusal(), naming degraded_), and a model the batch changed is read
  // back from the database.
  void refuse_batch(std::vector<std::string>& errors, bool model_changed);
  std::string refusal() const;

  LiveModel& model_;
  base::Database& db_;
  Synchronous synchronous_;
  DatabaseRows rows_{db_};  // the model's look-ups of rows it does not keep
  ChangeLog changes_;
  ResultPublisher publisher_;
  PhaseTimes phases_;
  EventStages road_;       // every event's road through the stages
  EngineStages stages_;    // the stages on it
  std::string degraded_;  // why the last batch could not be written; "" once one is
  bool sync_failed_ = false;  // other programs' changes could not be applied: sync_external retries
  std::array<std::size_t, kCommandCount> answered_{};
  Queries queries_;  // the reads (live/queries.h)
  bool shutdown_ = false;
};

}  // namespace bond_risk
