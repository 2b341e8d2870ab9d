// A stage of every event (live/stages/event_stage.h): which nodes' values may
// have changed since the server last built its watchers' updates, so that
// a batch costs its watchers in proportion to what it changed and an idle
// poll nothing; and those updates' lines. A node may have changed when it
// was recalculated or removed, every book after a new day (each one's
// day_pnl starts again from 0), every node when the model was read again
// whole. Used by the master thread only; borrows the model and the P&L
// day's keeper, which outlive it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "bond_risk/live/stages/event_stage.h"
#include "bond_risk/live/stages/pnl_explainer.h"
#include "engine/bitmap.h"

namespace bond_risk {

class WatchedChanges : public EventStage {
 public:
  WatchedChanges(const LiveModel& model, const PnlExplainer& explainer) : model_(model), explainer_(explainer) {}

  Phase phase() const override { return Phase::recalculate; }
  void after(const Event& event) override;  // a new day: every book, once it settles
  void settled(const Settled& settled) override;
  void refused(bool read_back) override;

  // Whether any node's values may have changed since forget(), and
  // whether node `id`'s may.
  bool any() const { return any_; }
  bool changed(std::int64_t id) const;
  void forget();

  // A watched node's values as JSON ({...node...}, a book's with its
  // day_pnl, or {"id":ID,"status":"REMOVED"} once it is gone); `stats`
  // counts the lines built (lines()).
  std::string update_values(std::int64_t id);
  std::size_t lines() const { return lines_; }

 private:
  void every_book_changed();

  const LiveModel& model_;
  const PnlExplainer& explainer_;
  std::array<engine::Bitmap, kKindCount> changed_;  // by node index, since forget()
  bool all_ = true, any_ = true;
  bool day_started_ = false;  // a new day awaits its recalculation
  std::size_t lines_ = 0;     // update lines built since start-up
};

}  // namespace bond_risk
