// Where the running engine's time goes: seconds summed over every command
// since start-up, by phase. A change is parsed, applied (model, input row
// and event_log row), recalculated with the others of its batch, committed
// with them, and replied to; a read is parsed, read and replied to. The P&L
// explain's bookkeeping of an event (explain), the checks of the limits it
// may move (limits) and the writing of their alerts (alerts) are counted
// apart from its apply and recalculation, so a benchmark reads their cost. Between
// batches the event loop hands recalculated rows to the result writer
// (publish). `stats` reports the sums, so a benchmark divides their change
// by the commands it sent; it also reports each durable commit's seconds as
// a histogram (for /metrics). Owned by the executor, on the server's one thread.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "base/histogram.h"

namespace bond_risk {

enum class Phase { parse, apply, recalculate, explain, limits, alerts, read, commit, reply, publish };
inline constexpr std::array<std::string_view, 10> kPhaseNames = {
    "parse", "apply", "recalculate", "pnl_explain", "limit_checks", "limit_alerts", "read", "commit", "reply", "publish"};

struct PhaseTimes {
  std::array<double, kPhaseNames.size()> seconds{};
  std::size_t batches = 0;  // transactions (or read-only batches) executed
  base::Histogram commits;  // each durable commit's seconds

  void add(Phase p, double s) { seconds[static_cast<std::size_t>(p)] += s; }
};

}  // namespace bond_risk
