// The JSON members of the P&L explain's replies (`explain`,
// `explain-events`; docs/model.md "The P&L day and its explain").
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "base/json.h"
#include "base/sqlite.h"
#include "bond_risk/model/pnl/pnl_day.h"

namespace bond_risk {

// {"day":{"after_event","time"},"books":[BOOK...],"total":TOTALS} for every
// book, or {"day",...BOOK} for one. BOOK: {"id","name","type","measure",
// "baseline", then TOTALS}; TOTALS: {"day_pnl","causes":[{"cause","actual"
// and for curves "predicted","unexplained"}, ...],"residual"} (residual:
// day_pnl less the causes' sum, the sums' rounding).
base::Json explain_json(const Store& store, const PnlDay& day, std::optional<NodeRef> book);

// A book's `count` largest moves of the day: {"id","events":[{"seq","time",
// "command","cause","move"}, ...]}; seq 0 is changes by other programs. A
// move is a recalculation's, under its last event; the command shown is the
// last one of the move's cause up to it (`cause_of` tells a command's), as
// when ticks of curves apart were recalculated together.
using CauseOfCommand = std::function<std::optional<Cause>(const std::string& command)>;
base::Json explain_events_json(base::Database& db, const Store& store, const PnlDay& day, NodeRef book,
                               std::size_t count, const CauseOfCommand& cause_of);

}  // namespace bond_risk
