// The ordered list of a running engine's per-event stages
// (live/stages/event_stage.h) and the road every event takes through them: the
// executor's commands, the changes other programs committed, and the
// benchmarks' in-process events all go through apply() or external() and
// settle(). It recalculates the model; what to persist, and when to
// commit, stays the caller's. Owns its stages; the master thread calls it.
// Borrows `model` and `phases`, which must outlive it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "base/timing.h"
#include "bond_risk/live/stages/event_stage.h"
#include "bond_risk/live/live_model.h"
#include "bond_risk/protocol/stats_reply.h"

namespace bond_risk {

class EventStages {
 public:
  // Stages see `model`; their time, and the recalculations', go to `phases`.
  // `served`: the last event the model reflects.
  EventStages(LiveModel& model, PhaseTimes& phases, std::int64_t served) : model_(model), phases_(phases), served_(served) {}

  // Adds a stage after those added before it.
  template <class S, class... Args>
  S& add(Args&&... args) {
    auto stage = std::make_unique<S>(std::forward<Args>(args)...);
    S& added = *stage;
    stages_.push_back(std::move(stage));
    return added;
  }

  // What applying a change returns: what it did and its event_log row
  // (none for other programs' changes).
  struct Logged {
    Applied applied;
    std::optional<LoggedEvent> event;
  };
  // Whether a change may be recalculated with the events awaiting (every
  // stage is asked); when it may not, settle() them before apply().
  bool joins(const Change& change);
  // A client's change, once joins() was asked: `apply` applies it (timed
  // as Phase::apply) between the stages' before() and after(). Its
  // recalculation waits for settle(). What `apply` throws goes through,
  // after the stages' before() alone.
  Applied apply(const Change& change, const std::function<Logged()>& apply);
  // Changes other programs committed (`rows`, a RowsChanged), as apply()
  // takes a change, but recalculated alone and at once: what awaits is
  // recalculated first. Returns their recalculation.
  const LiveModel::Recalculation& external(const Change& rows, const std::function<Logged()>& apply);
  // Recalculates the events awaiting, if any, and every stage sees it
  // (settled(), then completed()); returns it, or null when none awaited
  // (valid until the next call). `values_first`: the model's values only
  // (LiveModel::recalculate), and the stages' completed() waits for
  // complete(), which must come before anything else is asked of the road.
  const LiveModel::Recalculation* settle(bool values_first = false);
  // The rest of a recalculation settled values first, if one awaits, and
  // then every stage's completed(); their rows are the caller's to write.
  void complete();
  bool completing() const { return model_.completing(); }
  bool awaiting() const { return awaiting_; }
  // Whether a stage has rows to write.
  bool writes() const;

  void begin();
  void write(base::Database& db);
  void committed();
  // The batch was rolled back. `served`: the last event the database holds.
  // Every stage is told, even if one throws; the first exception is then
  // rethrown.
  void refused(bool read_back, std::int64_t served);

  std::int64_t served() const { return served_; }

  // Throws std::logic_error naming a broken invariant: of the graph
  // (engine::Graph::check), of the store's indices (Store::check), or of a
  // stage (EventStage::check). Debug and sanitizer builds (no NDEBUG) call
  // it after every recalculation; linear in the model.
  void check() const;

 private:
  // Every stage's completed() of the last recalculation, given what its
  // rest recalculated again.
  void completed(LiveModel::Recalculation again);
  // Calls f(stage) on each stage in order, timing each under its phase().
  template <class F>
  void each(F&& f) {
    for (const auto& stage : stages_) {
      const base::Stopwatch clock;
      f(*stage);
      phases_.add(stage->phase(), clock.seconds());
    }
  }

  LiveModel& model_;
  PhaseTimes& phases_;
  std::vector<std::unique_ptr<EventStage>> stages_;
  std::int64_t served_;
  bool awaiting_ = false;  // applied events not yet recalculated
  bool apart_ = false;     // the last change asked of joins() may not join them
  bool external_ = false;  // the events awaiting are other programs' changes
  bool settled_external_ = false;  // last_ was other programs' changes
  LiveModel::Recalculation last_, again_;
};

}  // namespace bond_risk
