// The P&L explain's replies (`explain`, `explain-events`; docs/model.md
// "The P&L day and its explain"), encoded with the names of
// protocol/members.h. Plain functions on what they are given: the thread
// that owns it calls them.
#pragma once

#include <cstddef>
#include <span>
#include <optional>
#include <string>

#include "base/json.h"
#include "bond_risk/model/pnl/pnl_day.h"

namespace bond_risk::protocol {

// {"day":{"after_event","time"},"books":[BOOK...],"total":TOTALS} for every
// book, or {"day",...BOOK} for one. BOOK: {"id","name","type","measure",
// "baseline", then TOTALS}; TOTALS: {"day_pnl","causes":[{"cause","actual"
// and for curves "predicted","unexplained"}, ...],"residual"} (residual:
// day_pnl less the causes' sum, the sums' rounding).
base::Json explain_json(const Store& store, const PnlDay& day, std::optional<NodeRef> book);

// One of a book's largest moves of the day (model/pnl/pnl_day.h) and the
// logged event shown for it: the last one of the move's cause up to the
// move's seq (as when ticks of curves apart were recalculated together);
// none for changes by other programs.
struct ShownMove {
  EventMove move;
  struct Logged {
    std::int64_t seq = 0;
    std::string time, command;
  };
  std::optional<Logged> event;
};
// {"id","events":[{"seq","time","command","cause","move"}, ...]}; seq 0 is
// changes by other programs.
base::Json explain_events_json(const Store& store, NodeRef book, std::span<const ShownMove> moves);

}  // namespace bond_risk::protocol
