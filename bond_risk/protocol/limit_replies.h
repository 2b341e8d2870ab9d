// The replies of `limits` (docs/model.md "Limits"; model/limits/risk_limits.h):
// each limit read against the store now and the P&L day's baselines; and
// an alert; encoded with the names of protocol/members.h. Plain functions:
// the thread that owns the store calls them.
#pragma once

#include <optional>
#include <span>

#include "base/json.h"
#include "bond_risk/model/pnl/pnl_day.h"
#include "bond_risk/model/limits/limit_checks.h"
#include "bond_risk/model/limits/risk_limits.h"
#include "bond_risk/model/store/store.h"

namespace bond_risk::protocol {

// Which limits to list: every one, the total's, or one book's; the first
// `count` (0: all of them).
struct LimitsOf {
  bool total = false;
  std::optional<std::int64_t> book_id;
  std::size_t count = 0;
};

// {"risk_limits":[{"id","book_name" (or "total"),"book_id","measure",
// "ir_curve_id","idx" (kr01),"value","lower","upper","bound","utilization",
// "state","reason" (FAILED)}, ...],"states":{"BREACHED":n,...}}, worst
// first: BREACHED, UNKNOWN, OK, FAILED, and within a state by utilization,
// largest first, then by id; states counts every limit of the selection.
// An unbounded side, and a value or utilization there is none of, is null.
base::Json limits_json(const Store& store, const PnlDay& day, std::span<const RiskLimit> limits, const LimitsOf& which);

// An alert: {"id","seq","time","cause","limit_id","book_id","book_name"
// (or "total"),"measure","from","to","value","bound"}.
base::Json alert_json(const Store& store, const StoredAlert& alert);

}  // namespace bond_risk::protocol
