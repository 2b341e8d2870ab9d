// The engine's replies about nodes and changes, encoded with the names of
// protocol/members.h: what a change did and recalculated, a node's values
// and inputs, a book's largest positions, the books there are. Each reads
// the store (and the graph, for reasons and a trade's books) as it stands;
// called by the thread that owns them, no state of its own.
#pragma once

#include <array>
#include <cstddef>

#include "base/json.h"
#include "bond_risk/model/inputs/changes.h"
#include "bond_risk/model/store/store.h"
#include "engine/graph.h"

namespace bond_risk::protocol {

// {"curve":3}, {"calendars":1}, {"id":42} (and "still_failed"), {"id":42,"books":1}.
base::Json applied_json(const Applied& applied);

// What a trade command changed, in process: {"trade":{...},"books":[{...}]}
// (the trade's values and its books' totals, without ladders: `get`,
// `book` and `watch` give those); {} for other changes.
base::Json changed_values_json(const Store& store, const engine::Graph& graph, const Applied& applied);

// {"recalculated":{"calendar":0,...},"recalc_us":12.5}: the nodes of each
// kind a recalculation calculated, and its microseconds.
base::Json recalculation_json(const std::array<std::size_t, kKindCount>& nodes, double seconds);

// A node's id, type, status, reason and published values (a calendar's
// today, a curve's number of points, a book's member count), and for a
// bond, trade or book its key-rate ladder: "key_rates":[{"ir_curve_id",
// "idx","days_forward", then kr01, or margin_kr01 and mtm_pnl_kr01}, ...]
// unless `ladder` is Ladder::without.
enum class Ladder { with, without };
base::Json node_json(const Store& store, const engine::Graph& graph, NodeRef node, Ladder ladder = Ladder::with);
// What a node is computed from, for `get` beside its values (`inputs`): a
// trade's bond, size, price, side and books, a repo's dates and cash, a
// bond's schedule, quote, calendar and curve, a curve's input rates, and
// the date the node is valued at (`today`, its calendar's); for a node whose
// own row could not be read whole, only why (`unreadable`).
base::Json inputs_json(const Store& store, const engine::Graph& graph, NodeRef node);

// An outright book's `count` largest trades by |pv01| (OK trades first, then
// by id; removed trades are no positions), each with its bond, both as
// node_json without ladders: {"id":BOOK,"positions":[{"trade":{...},
// "bond":{...}}, ...]}. Costs a partial sort of the book's members.
base::Json positions_json(const Store& store, const engine::Graph& graph, NodeRef outright_book, std::size_t count);

// Every book (not removed), by name: [{"id","name","type"}, ...].
base::Json books_json(const Store& store);

}  // namespace bond_risk::protocol
