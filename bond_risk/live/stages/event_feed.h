// A stage of every event (live/stages/event_stage.h): the last events, as
// `last-events` replies them, oldest first: {"seq","time","command",
// "nodes","engine_us"}. An event joins the feed once its batch commits,
// with the nodes its recalculation touched and the engine's time from the
// batch's start to its commit; those logged before this engine started
// have null nodes and engine_us. Used by the master thread only.
// Owns the events it keeps; borrows nothing (`db` is read only in the
// constructor).
#pragma once

#include <cstddef>
#include <deque>
#include <vector>

#include "base/json.h"
#include "base/sqlite.h"
#include "base/timing.h"
#include "bond_risk/live/stages/event_stage.h"

namespace bond_risk {

class EventFeed : public EventStage {
 public:
  static constexpr std::size_t kRecentEvents = 100;

  // Starts with the last events `db` logged.
  explicit EventFeed(base::Database& db);

  Phase phase() const override { return Phase::recalculate; }
  void begin() override;
  void after(const Event& event) override;
  void settled(const Settled& settled) override;
  void committed() override;
  void refused(bool read_back) override;

  const std::deque<base::Json>& recent() const { return recent_; }

 private:
  std::deque<base::Json> recent_;
  std::vector<base::Json> logged_;  // this batch's events
  std::size_t logged_settled_ = 0;  // of logged_, those recalculated
  base::Stopwatch batch_clock_;
};

}  // namespace bond_risk
