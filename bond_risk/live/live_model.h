// The running engine's model: the loaded store and its graph, kept up to
// date by changes (model/changes.h): curve bumps, date rolls, trade
// bookings and amendments, and rows other programs changed.
//
// apply() validates a change whole before anything changes; it then writes
// it to the database through the db layer (in the caller's transaction,
// when given one), changes the store and the graph, and marks what it
// affects dirty. recalculate() brings the dirty nodes up to date, tier by
// tier, on the scheduler's workers, and says which nodes' results changed
// (their persistence is the caller's: live/result_publisher.h).
//
// Not thread-safe: one thread calls everything; the workers only calculate
// inside recalculate() and flush_all().
#pragma once

#include <array>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "base/sqlite.h"
#include "bond_risk/model/changes.h"
#include "bond_risk/model/store.h"
#include "engine/flush.h"
#include "engine/graph.h"
#include "engine/scheduler.h"

namespace bond_risk {

class LiveModel {
 public:
  struct Recalculation {
    std::array<std::size_t, kKindCount> nodes{};               // recalculated, per Kind
    std::array<std::vector<NodeIndex>, kKindCount> changed;    // whose result rows changed: recalculated or removed
    bool whole = false;                                        // every node (a reload): replace every row
    double seconds = 0;
  };

  // Builds the graph over `store` (every node dirty) and starts the scheduler.
  LiveModel(Store store, const engine::SchedulerOptions& options, std::size_t grain);
  LiveModel(const LiveModel&) = delete;
  LiveModel& operator=(const LiveModel&) = delete;

  // Applies `change`, writing it to `db` when given; throws CommandError,
  // having changed nothing, if it cannot be applied.
  Applied apply(const Change& change, base::Database* db);

  // Re-reads the input row(s) of node `id` of `kind` (a trade, a calendar or
  // a curve's rates) after another program changed them; a trade booked by
  // another program is added. False when only a whole reload can apply the
  // change (a deleted row: its book memberships decide what it means).
  bool reread(Kind kind, std::int64_t id, base::Database& db);
  // Re-reads every risk limit after another program changed them.
  void reread_limits(base::Database& db);

  // Recalculates every dirty node.
  Recalculation recalculate();

  // Calculates every node: the start-up flush.
  engine::FlushStats flush_all();

  // Replaces the model with `store` (the database as another program left
  // it) and calculates every node.
  Recalculation reload(Store store);

  // The node with this id or name: calendars, curves and books by the names
  // kept in memory, bonds and trades by `db`'s. Throws CommandError.
  NodeRef find(std::string_view key, base::Database* db) const;

  const Store& store() const { return store_; }
  const engine::Graph& graph() const { return graph_; }
  // The workers, for batch work between recalculations (scenarios).
  engine::Scheduler& scheduler() { return *scheduler_; }
  std::size_t events() const { return events_; }                                // changes applied
  // Microseconds of the last kLatencyWindow recalculations (in no order once
  // the window is full): what `stats` takes percentiles of, in bounded memory
  // and time however long the engine runs.
  static constexpr std::size_t kLatencyWindow = 1 << 16;
  std::span<const double> latencies_us() const { return latencies_us_; }
  std::size_t recalculations() const { return recalculations_; }  // since start: a state version

 private:
  struct Apply;  // applies each kind of change (live_model.cpp)

  NodeRef find_kind(std::string_view key, Kind kind, base::Database* db) const;
  // engine::flush, then drops the ladder parts held for it (model/ladders.h).
  engine::FlushStats flush();
  NodeRef find_trade(std::string_view key, base::Database* db) const;

  Store store_;
  engine::Graph graph_;
  std::unique_ptr<engine::Scheduler> scheduler_;
  std::size_t grain_;
  std::size_t events_ = 0;
  std::vector<double> latencies_us_;  // a ring of kLatencyWindow once full
  std::size_t recalculations_ = 0;
  std::vector<NodeRef> removed_;  // trades removed since the last recalculation
};

}  // namespace bond_risk
