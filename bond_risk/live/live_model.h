// The running engine's model: the loaded store and its graph, kept up to
// date by changes (model/inputs/changes.h): curve bumps, date rolls, trade
// bookings and amendments, and rows other programs changed.
//
// A change is applied as a write batch, in three steps: prepare() validates
// it whole against the model and the stored rows (model/store/stored_rows.h),
// changing nothing, and says the rows it will write; the caller persists
// them (db/change_writer.h, in its transaction); commit() then changes the
// store and the graph and marks what the change affects dirty
// (live/apply_change.h does all three). recalculate() brings the dirty
// nodes up to date, tier by tier, on the scheduler's workers, and says
// which nodes' results changed (their persistence is the caller's:
// live/result_publisher.h).
//
// Not thread-safe: one thread calls everything; the workers only calculate
// inside recalculate() and flush_all().
// Owns the store, the graph (whose calculations refer to the store, so the
// model cannot move) and the scheduler with its workers; borrows `rows` only
// for the call it is given to.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "base/histogram.h"
#include "bond_risk/model/inputs/changes.h"
#include "bond_risk/model/store/store.h"
#include "bond_risk/model/store/stored_rows.h"
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
    std::vector<std::int64_t> limits;                          // ids of the limits added or removed
    double seconds = 0;
  };

  // Builds the graph over `store` (every node dirty) and starts the scheduler.
  LiveModel(Store store, const engine::SchedulerOptions& options, std::size_t grain);
  LiveModel(const LiveModel&) = delete;
  LiveModel& operator=(const LiveModel&) = delete;

  // A change checked and looked up, not yet applied: the rows it writes,
  // and what commit() does to the store (one step per kind of change;
  // std::monostate for a new day, which changes no input).
  struct Prepared {
    struct Curve { NodeRef curve; std::vector<CurvePoint> points; };
    struct Dates { std::vector<NodeIndex> calendars; Date today; };
    using Trade = std::variant<OutrightTrade, RepoTrade>;
    struct Amendment { NodeRef trade; Trade amended; bool was_failed; };
    struct Booking { Kind kind; std::int64_t id; Trade trade; std::optional<NodeRef> book; };
    struct Quotes { std::vector<NodeIndex> bonds; };  // in the order of the write's quotes
    struct NewLimit { RiskLimit limit; };
    struct DroppedLimit { std::int64_t id; };
    struct Removal { NodeRef trade; };
    // Other programs' rows: trades, calendars, curves' rates and quotes read
    // again one by one (a trade they booked is added), a calendar's
    // holidays and the conventions marking only the convention bonds that
    // use them, the limits all together; any other table's rows, or a row
    // gone, read the whole store.
    struct Reread {
      std::vector<std::pair<Kind, std::int64_t>> nodes;
      std::vector<std::int64_t> holidays;  // of these calendars
      bool conventions = false, limits = false, whole = false;
    };
    using Step =
        std::variant<std::monostate, Curve, Dates, Amendment, Booking, Quotes, NewLimit, DroppedLimit, Removal, Reread>;
    Write write;  // what the caller persists before commit()
    Step step;
  };
  // Validates `change` whole and looks up what it names; throws
  // CommandError, having changed nothing, if it cannot be applied.
  Prepared prepare(const Change& change, const StoredRows& rows) const;
  // Applies a prepared change, once its write is persisted: a FAILED
  // trade's amended row is read back from `rows` whole (committed without
  // persisting, as the benchmarks time the model alone, it reads the row as
  // stored). Other programs' rows (RowsChanged) are read from `rows` here.
  // Prepare and commit with no change to the model between them.
  Applied commit(Prepared prepared, const StoredRows& rows);

  // Recalculates every dirty node. `values_first`: only their first passes
  // (engine::Pass: prices and values, not the ladders, the quote analytics
  // and cs01), so that a caller may answer with the values; complete()
  // must then run before anything else is asked of the model. A
  // recalculation of quotes runs whole, and so does one with neither key
  // rates nor quote analytics on (nothing is left for a rest).
  Recalculation recalculate(bool values_first = false);
  // The rest of a recalculation begun with values_first, if one awaits: a
  // bond its quote analytics fail for the first time (its first pass valued
  // it, and its trades and books with it; one they failed before solves
  // them in its first pass), or whose cs01 overflows a trade's, is then
  // recalculated again, with everything on it.
  // The two passes' seconds are one latency of latencies_us().
  // Returns what it recalculated again (no nodes when nothing failed).
  Recalculation complete();
  bool completing() const { return completing_; }

  // Calculates every node, solving every figure afresh: the start-up flush.
  engine::FlushStats flush_all();

  // Replaces the model with `store` (the database as another program left
  // it); the next recalculate() calculates every node and says so (whole).
  void reload(Store store);

  // The node with this id or name: calendars, curves and books by the names
  // kept in memory, bonds and trades by the stored rows'. Throws CommandError.
  NodeRef find(std::string_view key, const StoredRows& rows) const;

  const Store& store() const { return store_; }
  const engine::Graph& graph() const { return graph_; }
  // The workers, for batch work between recalculations (scenarios).
  engine::Scheduler& scheduler() { return *scheduler_; }
  std::size_t events() const { return events_; }  // changes applied (other programs' not counted)
  // Microseconds of the last kLatencyWindow recalculations (in no order once
  // the window is full): what `stats` takes percentiles of, in bounded memory
  // and time however long the engine runs.
  static constexpr std::size_t kLatencyWindow = 1 << 16;
  std::span<const double> latencies_us() const { return latencies_us_; }
  std::size_t recalculations() const { return recalculations_; }  // since start: a state version
  // Every recalculation's seconds since start, for Prometheus (/metrics).
  const base::Histogram& latency_histogram() const { return latency_histogram_; }
  // Seconds the recalculations' flushes spent in each tier since start-up
  // (not the start-up flush): the tier's types' names joined by '+', and
  // its seconds; tiers that never ran are left out.
  std::vector<std::pair<std::string, double>> tier_seconds() const;

 private:
  struct Prepare;  // validates each kind of change (live_model.cpp)
  struct Commit;   // applies each kind of step

  NodeRef find_kind(std::string_view key, Kind kind, const StoredRows& rows) const;
  NodeRef find_trade(std::string_view key, const StoredRows& rows) const;
  // engine::flush, then, unless it leaves the rest to run, drops the
  // ladder parts held for it (model/risk/ladders.h).
  engine::FlushStats flush(engine::Pass pass = engine::Pass::whole);
  // Appends each kind's dirty nodes, in index order, to into[kind].
  void list_dirty(std::array<std::vector<NodeIndex>, kKindCount>& into);
  // Adds a recalculation's flush to tier_seconds().
  void count_tiers(const engine::FlushStats& stats);
  void record_latency(double seconds);

  Store store_;
  engine::Graph graph_;
  std::unique_ptr<engine::Scheduler> scheduler_;
  std::size_t grain_;
  std::size_t events_ = 0;
  std::vector<double> latencies_us_;  // a ring of kLatencyWindow once full
  std::size_t recalculations_ = 0;
  base::Histogram latency_histogram_;
  std::vector<double> tier_seconds_;  // [tier], summed by recalculate()
  std::vector<NodeRef> removed_;  // trades removed since the last recalculation
  std::vector<std::int64_t> limits_changed_;  // limits added or removed since then, by id
  // Bonds quoted since the last recalculation, held by the graph
  // (mark_dirty_through), each with its status before its first quote.
  std::vector<std::pair<NodeIndex, Status>> quoted_;
  bool reloaded_ = false;  // since the last recalculation: every node is recalculated
  bool completing_ = false;  // a recalculation's rest awaits complete()
  double first_seconds_ = 0;  // its first pass's
  std::vector<NodeIndex> first_bonds_;  // the bonds its first pass left OK
  std::vector<NodeIndex> first_books_;  // the outright books it recalculated
  // Re-reads node `id` of `kind` from `rows` (a trade they booked is added);
  // false when only reading the whole store can apply it.
  bool reread(Kind kind, std::int64_t id, const StoredRows& rows);
  // Calendar `id`'s holidays, and every convention, read again from
  // `rows`: only the convention bonds whose calendar or convention changed
  // are marked. False when only reading the whole store can apply it (a
  // calendar or a convention that is, or was, unreadable; a convention
  // added, removed or renamed).
  bool reread_holidays(std::int64_t id, const StoredRows& rows);
  bool reread_conventions(const StoredRows& rows);
  // Marks dirty each convention bond `uses` is true of, and forgets its quote yield.
  template <class Uses>
  void mark_convention_bonds(Uses uses);
};

}  // namespace bond_risk
