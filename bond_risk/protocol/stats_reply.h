// The `stats` reply: what a running engine reports of itself, encoded with
// the names of protocol/members.h, and the phases its time is counted in.
//
// Where the running engine's time goes: seconds summed over every command
// since start-up, by phase. A change is parsed, applied (model, input row
// and event_log row), recalculated with the others of its batch, committed
// with them, and replied to; a read is parsed, read and replied to. The P&L
// explain's bookkeeping of an event (explain), the checks of the limits it
// may move (limits) and the writing of their alerts (alerts) are counted
// apart from its apply and recalculation, so a benchmark reads their cost.
// Between batches the event loop hands recalculated rows to the result
// writer (publish). `stats` reports the sums under time_us, keyed by
// kPhaseNames, so a benchmark divides their change by the commands it
// sent; it also reports each durable commit's seconds as a histogram (for
// /metrics). PhaseTimes is a value, kept by the engine's one thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "base/histogram.h"
#include "base/json.h"
#include "bond_risk/model/store/store.h"
#include "bond_risk/protocol/command.h"

namespace bond_risk {

// recalculate_rest: what follows the replies of a recalculation answered
// with its values first (live/command_executor.h).
enum class Phase { parse, apply, recalculate, rest, explain, limits, alerts, read, commit, reply, publish };
inline constexpr std::array<std::string_view, 11> kPhaseNames = {
    "parse",        "apply",        "recalculate", "recalculate_rest", "pnl_explain", "limit_checks",
    "limit_alerts", "read",         "commit",      "reply",            "publish"};

struct PhaseTimes {
  std::array<double, kPhaseNames.size()> seconds{};
  std::size_t batches = 0;  // transactions (or read-only batches) executed
  base::Histogram commits;  // each durable commit's seconds

  void add(Phase p, double s) { seconds[static_cast<std::size_t>(p)] += s; }
};

namespace protocol {

// What `stats` reports, borrowed for one reply.
struct EngineStats {
  const Store& store;
  std::size_t events = 0;                   // changes applied
  std::span<const double> latencies_us;     // the recalculations' (their last window)
  const base::Histogram& latency;           // every recalculation's seconds
  const std::array<std::size_t, kCommandCount>& answered;  // by CommandId
  const PhaseTimes& phases;
  std::span<const std::pair<std::string, double>> tier_seconds;  // the recalculations' per tier (LiveModel::tier_seconds)
  std::int64_t event = 0, results_as_of = 0;  // served, and held by the results database
  std::string results_recovering;  // why the writer is rewriting the results ("" when not)
  std::size_t marked_peak = 0, assembled_peak = 0;  // waiting for the writer, at most since start-up
  std::size_t watch_lines = 0;     // update lines built for watchers since start-up
  std::string degraded;            // why the last batch could not be written ("" once one is)
  std::string results_error;       // the writer's last error
};

// Counts per kind and status, changes applied, commands answered per name,
// recalculation latency percentiles, microseconds per phase ("time_us",
// summed since start-up) and of the recalculations per tier
// ("recalculate_tiers_us", keyed by the tier's types joined by '+'), the recalculations' and commits' histograms, the
// event served and the results' state, what waits for the writer, the
// update lines built, and the process's memory ("memory_kb": vm_peak,
// vm_rss); "degraded" and "results_error" when there is one.
base::Json stats_json(const EngineStats& stats);

}  // namespace protocol
}  // namespace bond_risk
