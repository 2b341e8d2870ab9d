// The JSON members of the P&L explain's replies (`explain`,
// `explain-events`; MODEL.md "The P&L day and its explain").
#pragma once

#include <cstddef>
#include <optional>

#include "base/json.h"
#include "base/sqlite.h"
#include "bond_risk/model/pnl_day.h"

namespace bond_risk {

// {"day":{"after_event","time"},"books":[BOOK...],"total":TOTALS} for every
// book, or {"day",...BOOK} for one. BOOK: {"id","name","type","measure",
// "baseline", then TOTALS}; TOTALS: {"day_pnl","causes":[{"cause","actual"
// and for curves "predicted","unexplained"}, ...],"residual"} (residual:
// day_pnl less the causes' sum, the sums' rounding).
base::Json explain_json(const Store& store, const PnlDay& day, std::optional<NodeRef> book);

// A book's `count` largest moves of the day: {"id","events":[{"seq","time",
// "command","move"}, ...]}; seq 0 is changes by other programs.
base::Json explain_events_json(base::Database& db, const Store& store, const PnlDay& day, NodeRef book,
                               std::size_t count);

}  // namespace bond_risk
