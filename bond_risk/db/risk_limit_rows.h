// The limits in the database (schema/bond_risk.sql's risk_limit), as rows:
// one whose value is not of its column's type is kept, its row_error saying
// which (model/limits/risk_limits.h then reads it FAILED), so one bad row never
// stops the others.
#pragma once

#include <vector>

#include "base/sqlite.h"
#include "bond_risk/model/limits/risk_limits.h"

namespace bond_risk {

// Every limit in id order; none when the database has no risk_limit table
// (one from before limits).
std::vector<RiskLimit> read_limits(base::Database& db);

}  // namespace bond_risk
