// What happens after a change is applied, as stages. A change's road is
// always the same: the stages are asked whether it may be recalculated with
// the changes awaiting recalculation (if any says no, those are recalculated
// first); it is applied to the model (and, by the executor, persisted and
// logged as an event) between each stage's before() and after(); when the
// group it joined is recalculated every stage sees the recalculation
// (settled()), and again once every figure of it is published
// (completed()). Before the transaction commits each stage writes the rows
// it kept (write()); after, it makes what it holds visible (committed());
// when the database refuses the batch it forgets it (refused()). Changes
// other programs committed take the same road as a group of their own.
//
// A recalculation settled values first (LiveModel::recalculate) is
// completed after the batch's commit and replies, before anything else is
// asked of the engine: what stages keep in completed() is then written in
// a transaction of its own. Any other is completed at once.
//
// Each stage is one feature's bookkeeping (the P&L explain, the limits'
// checks and alerts, the event feed, the result marks, the watchers'
// changes); EventStages (live/stages/event_stages.h) calls them in order and
// counts each one's time under its phase. Stages run on the master thread.
#pragma once

#include <cstdint>

#include "base/sqlite.h"
#include "bond_risk/db/event_log.h"
#include "bond_risk/live/live_model.h"
#include "bond_risk/protocol/stats_reply.h"
#include "bond_risk/model/inputs/changes.h"

namespace bond_risk {

// One event as the stages see it: a client's change, or the changes other
// programs committed (a RowsChanged).
struct Event {
  const Change* change = nullptr;
  const Applied* applied = nullptr;       // what it did, from after() on
  const LoggedEvent* logged = nullptr;    // its event_log row, from after() on (none for other programs')
};

// A recalculation of the events awaiting it.
struct Settled {
  const LiveModel::Recalculation& recalculation;
  std::int64_t served = 0;  // the last event it reflects
  bool external = false;    // the events were other programs' changes
  // In completed(): what the recalculation's rest recalculated again, with
  // everything on it, having moved since settled() (a bond its quote
  // analytics failed, and its trades and books: LiveModel::complete).
  const LiveModel::Recalculation* again = nullptr;
};

class EventStage {
 public:
  virtual ~EventStage() = default;
  // What `stats` counts this stage's time under.
  virtual Phase phase() const = 0;
  // A batch of commands begins.
  virtual void begin() {}
  // Whether a change may be recalculated with the events awaiting (asked
  // of every stage, once per change, before it is applied; other
  // programs' changes are recalculated alone whatever the answer).
  virtual bool joins(const Event&) { return true; }
  virtual void before(const Event&) {}
  virtual void after(const Event&) {}
  virtual void settled(const Settled&) {}
  // The same recalculation, its ladders, quote analytics and cs01 published.
  virtual void completed(const Settled&) {}
  // In the batch's transaction, before it commits.
  virtual void write(base::Database&) {}
  // Whether write() has rows to write.
  virtual bool writes() const { return false; }
  virtual void committed() {}
  // The transaction was rolled back; `read_back`: the model was read again
  // from the database, every node's index may have moved.
  virtual void refused(bool /*read_back*/) {}
  // Throws std::logic_error naming a broken invariant of what the stage
  // keeps (debug and sanitizer builds ask after every recalculation).
  virtual void check() const {}
};

}  // namespace bond_risk
