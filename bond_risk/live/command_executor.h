// Executes the running engine's commands as the server receives them, in
// batches. If the database refuses a batch (locked too long by another
// program, a full disk), every line of it gets an error saying so, the model
// is read back from the database, and `stats` shows the engine degraded
// until a batch is written again. The state-changing commands of a batch are applied in one
// transaction of the input database (group commit; WAL, synchronous=FULL
// unless the engine was started with less),
// each with an event_log row; the nodes they affect are recalculated in
// process, and the transaction commits before any reply is built, so an
// acknowledged change is durable. Results are persisted behind the
// acknowledgement by a ResultPublisher. A read sees every change before it
// on its connection (read your writes) and writes nothing: the queries
// answer it (live/queries.h; stats with the status the executor gives).
// The executor keeps the batch, reload, shutdown and the publication
// bookkeeping. Changes other programs committed to the input tables are
// applied before a batch, and when sync_external() finds them.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <stop_token>
#include <span>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/sqlite.h"
#include "base/timing.h"
#include "bond_risk/db/database_rows.h"
#include "bond_risk/db/change_log.h"
#include "bond_risk/db/limit_alert_log.h"
#include "bond_risk/db/synchronous.h"
#include "bond_risk/protocol/command.h"
#include "bond_risk/live/live_model.h"
#include "bond_risk/live/phase_times.h"
#include "bond_risk/live/pnl_explainer.h"
#include "bond_risk/live/queries.h"
#include "bond_risk/live/result_marks.h"
#include "bond_risk/live/result_publisher.h"
#include "bond_risk/model/limits/limit_checks.h"
#include "engine/bitmap.h"

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
  // the change log's triggers) and starts persisting `model`'s results (all
  // of them first) to the results database beside it. Both must outlive the
  // executor.
  CommandExecutor(LiveModel& model, base::Database& db, Synchronous synchronous = Synchronous::full);
  ~CommandExecutor();  // publishes what remains
  CommandExecutor(const CommandExecutor&) = delete;
  CommandExecutor& operator=(const CommandExecutor&) = delete;

  // One reply per line of `lines`, returned after the batch's transaction
  // committed. The recalculated results wait for publish_results(), which
  // the server calls once the replies are on their way.
  std::vector<Reply> execute(std::span<const std::string> lines);

  // Hands the rows recalculated since then to the result writer, at most
  // about `budget` of them (the server publishes in slices between batches
  // and at each poll, so that a big event's rows never hold up the next
  // command); true while rows remain. The writer takes them once every row
  // of the last event is in. Every row, when the writer asks for them again
  // (ResultPublisher::needs_all).
  bool publish_results(std::size_t budget = SIZE_MAX);

  // A watched node's values as JSON ({...node...}, a book's with its
  // day_pnl, or {"id":ID,"status":"REMOVED"} once it is gone), as of
  // served_event(); `stats` counts the updates built (watch_lines).
  std::string update_values(std::int64_t id);
  // Whether any node's values may have changed since the last
  // forget_changes(), and whether node `id`'s may: it was recalculated or
  // removed, or the model was read again whole. The server builds updates
  // only for those, so a batch costs its watchers in proportion to what it
  // changed, and an idle poll nothing.
  bool changed_since_notified() const { return any_changed_; }
  bool changed_since_notified(std::int64_t id) const;
  void forget_changes();

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

  // The last event (event_log.seq) the served values reflect.
  std::int64_t served_event() const { return served_event_; }
  ResultPublisher& results() { return publisher_; }

 private:
  struct Batch;  // one batch's replies and pending recalculation (command_executor.cpp)

  base::Json apply_external_changes();
  // The state as a read sees it now.
  Served served() const { return {model_, db_, rows_, explainer_->day(), served_event_, recent_events_}; }
  // Runs the explainer's bookkeeping f, timed as Phase::explain; returns its seconds.
  template <class F>
  double explain(F&& f) {
    const base::Stopwatch clock;
    f();
    const double seconds = clock.seconds();
    phases_.add(Phase::explain, seconds);
    return seconds;
  }
  // Checks the limits recalculation `r` may have moved (every one when
  // `all`) and writes their alerts, after served_event_, in the caller's
  // transaction; timed as Phase::limits and Phase::alerts; returns its seconds.
  double check_limits(const LiveModel::Recalculation& r, AlertCause cause, bool all);
  // The alerts written since the last call are durable: take_alerts() has them.
  void alerts_committed();
  // After the database refused a batch: every line's error says so (the
  // refusal(), naming degraded_), and a model the batch changed is read
  // back from the database.
  void refuse_batch(std::vector<std::string>& errors, bool model_changed);
  std::string refusal() const;

  LiveModel& model_;
  base::Database& db_;
  DatabaseRows rows_{db_};  // the model's look-ups of rows it does not keep
  ChangeLog changes_;
  ResultPublisher publisher_;
  std::optional<PnlExplainer> explainer_;  // set once the served event is known
  LimitChecks limit_checks_;
  std::vector<LimitAlert> alerts_;  // one check's (reused)
  std::vector<std::string> uncommitted_alerts_, committed_alerts_;  // alert lines
  // Marks a recalculation's nodes for publication and for watchers; a whole
  // one (a reload, whose node indices may all have moved) replaces every mark.
  void unpublished(const LiveModel::Recalculation& r);
  // Every book's watchers are due an update (their day_pnl moved with no
  // recalculation: a new day).
  void every_book_changed();

  ResultMarks marks_;  // results not yet handed to the writer (live/result_marks.h)
  std::array<engine::Bitmap, kKindCount> changed_;  // by node index, since forget_changes()
  bool all_changed_ = true, any_changed_ = true;
  std::size_t watch_lines_ = 0;  // update lines built for watchers since start-up
  std::int64_t served_event_ = 0;
  std::string degraded_;  // why the last batch could not be written; "" once one is
  bool sync_failed_ = false;  // other programs' changes could not be applied: sync_external retries
  std::array<std::size_t, kCommandCount> answered_{};
  PhaseTimes phases_;
  Queries queries_;  // the reads (live/queries.h)
  // The last events, oldest first, as `last-events` replies them:
  // {"seq","time","command","nodes","engine_us"} (those logged before this
  // engine started have null nodes and engine_us).
  static constexpr std::size_t kRecentEvents = 100;
  std::deque<base::Json> recent_events_;
  bool shutdown_ = false;
};

}  // namespace bond_risk
