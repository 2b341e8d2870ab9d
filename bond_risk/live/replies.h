// The JSON members of the running engine's replies: what a command did, a
// node's values, and the engine's statistics. The server wraps them as
// replies (protocol/messages.h), one line each.
#pragma once

#include <array>
#include <cstddef>

#include "base/json.h"
#include "bond_risk/db/scenario_sets.h"
#include "bond_risk/protocol/command.h"
#include "bond_risk/live/live_model.h"
#include "bond_risk/live/phase_times.h"
#include "bond_risk/model/risk/scenarios.h"

namespace bond_risk {

// {"curve":3}, {"calendars":1}, {"id":42} (and "still_failed"), {"id":42,"books":1}.
base::Json applied_json(const Applied& applied);

// What a trade command changed, in process: {"trade":{...},"books":[{...}]}
// (the trade's values and its books' totals, without ladders: `get`,
// `book` and `watch` give those); {} for other changes.
base::Json changed_values_json(const LiveModel& model, const Applied& applied);

// {"recalculated":{"calendar":0,...},"recalc_us":12.5}
base::Json recalculation_json(const LiveModel::Recalculation& recalculation);

// A node's id, type, status, reason and published values (a calendar's
// today, a curve's number of points, a book's member count), and for a
// bond, trade or book its key-rate ladder: "key_rates":[{"ir_curve_id",
// "idx","days_forward", then kr01, or margin_kr01 and mtm_pnl_kr01}, ...]
// unless `ladder` is Ladder::without.
enum class Ladder { with, without };
base::Json node_json(const LiveModel& model, NodeRef node, Ladder ladder = Ladder::with);
// What a node is computed from, for `get` beside its values (`inputs`): a
// trade's bond, size, price, side and books, a repo's dates and cash, a
// bond's schedule, quote, calendar and curve, a curve's input rates, and
// the date the node is valued at (`today`, its calendar's); for a node whose
// own row could not be read whole, only why (`unreadable`).
base::Json inputs_json(const LiveModel& model, NodeRef node);

// An outright book's `count` largest trades by |pv01| (OK trades first, then
// by id; removed trades are no positions), each with its bond, both as
// node_json without ladders: {"id":BOOK,"positions":[{"trade":{...},
// "bond":{...}}, ...]}. Costs a partial sort of the book's members.
base::Json positions_json(const LiveModel& model, NodeRef outright_book, std::size_t count);

// Every book (not removed), by name: [{"id","name","type"}, ...].
base::Json books_json(const Store& store);

// A scenario's P&L: {"name","id","set","total","books":[{"id","name","pnl"
// and, for repo books, "margin_change"}, ...]}.
base::Json scenario_json(const ScenarioBase& base, const Scenario& scenario, const std::string& set, const ScenarioPnl& pnl);

// VaR and ES of a historical set from its scenarios' `pnl`: {"set",
// "scenarios","total":{"var_99","es_975"},"books":[{"id","name","var_99",
// "es_975"}, ...]}, with "left_out" (the scenarios left out, each with why)
// and "note" (fewer than 100 scenarios: few_scenarios_note) when there are.
// Throws CommandError when no scenario is usable (no_var_reason).
base::Json var_json(const ScenarioBase& base, const ScenarioSet& set, const std::vector<ScenarioPnl>& pnl);

// Counts per kind and status, changes applied, commands answered per name
// (`answered`, indexed by CommandId), recalculation latency percentiles (of
// the last LiveModel::kLatencyWindow),
// microseconds spent per phase ("time_us", summed since start-up) and the
// process's memory ("memory_kb": vm_peak, vm_rss).
base::Json stats_json(const LiveModel& model, const std::array<std::size_t, kCommandCount>& answered,
                      const PhaseTimes& phases);

}  // namespace bond_risk
