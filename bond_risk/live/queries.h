// The running engine's reads: get, book, top-positions, list-books,
// last-events, explain, explain-events, limits, scenario, var (answer()),
// each
// answered from the state as served (the model after the last event, the
// P&L day, the input database's rows) and none writing anything. A scenario
// and VaR are prepared here, against a copy of the market, and computed on
// another thread (Deferred); a VaR reply is kept per set until the state or
// the set's rows change.
//
// Not thread-safe: the master thread answers; only a Deferred's run() goes
// to another thread, and its keep() comes back to the master.
// Owns its VaR cache; borrows `served` for one answer. A Deferred's run()
// holds shared copies of what it reads; its keep() refers to this Queries,
// which must outlive the job (the server joins its JobRunner first).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <stop_token>
#include <string>

#include "base/json.h"
#include "base/sqlite.h"
#include "bond_risk/db/scenario_sets.h"
#include "bond_risk/live/live_model.h"
#include "bond_risk/protocol/stats_reply.h"
#include "bond_risk/model/pnl/pnl_day.h"
#include "bond_risk/model/store/stored_rows.h"
#include "bond_risk/protocol/command.h"

namespace bond_risk {

// A reply too long to compute on the master thread (scenario, var):
// prepared there against a copy of what it reads. `run` computes the
// reply's members on another thread (the server's JobRunner), throwing
// CommandError for the client's error and giving up once `stop` is
// requested; `keep`, if any, is then called back on the master thread with
// them (to cache them).
struct Deferred {
  std::function<base::Json(std::stop_token stop)> run;
  std::function<void(const base::Json&)> keep;
};

// The state a read sees, borrowed for one answer.
struct Served {
  const LiveModel& model;
  base::Database& db;      // the input database (scenario sets, the event log)
  const StoredRows& rows;  // the names of bonds and trades
  const PnlDay& day;       // the explain's and the limits' day
  std::int64_t event;      // the last event the model reflects
  const std::deque<base::Json>& recent_events;  // as last-events replies them, oldest first
};

class Queries {
 public:
  // The most scenarios one var request revalues (a bigger set is for
  // `bond_risk scenarios` or bond_risk_mpi).
  static constexpr std::size_t kMaxLiveScenarios = 10'000;

  // A reply's members, or (scenario, var) null and the Deferred that computes them.
  struct Answer {
    base::Json members;
    std::shared_ptr<const Deferred> deferred;
  };
  // Answers a read; throws CommandError naming what the client got wrong.
  // std::logic_error for stats (stats() answers it) or a command that is
  // not one of the reads above.
  Answer answer(const Command& command, const Served& served);

 private:
  struct Visit;  // one read of each kind (queries.cpp)
  // The last var reply of each set, with the state (event, recalculations)
  // and the set's rows it was computed from.
  struct KeptVar {
    std::string state;
    ScenarioSet set;
    base::Json reply;
  };
  std::map<std::string, KeptVar> var_cache_;
};

}  // namespace bond_risk
