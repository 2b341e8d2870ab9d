// The P&L explain a database holds (db/pnl_day_log.h), read without an
// engine: for `bond_risk explain` and `bond_risk plot explain`. Its day_pnl
// is the sum of its causes (the measures now need a flush; the running
// engine's `explain` gives them).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/sqlite.h"
#include "bond_risk/model/pnl/pnl_day.h"

namespace bond_risk {

struct StoredExplain {
  std::string whose;  // "book NAME (id N)" or "the total"
  std::int64_t after_event = 0;
  std::string started_at;
  double baseline = 0, day_pnl = 0;
  std::vector<std::pair<std::string, CauseTotal>> causes;  // by cause name, in cause order
};

// Of the book named `book` (id or name), or of every book together; throws
// std::runtime_error naming what is missing (no day, no such book).
StoredExplain stored_explain(base::Database& db, const std::optional<std::string>& book);

}  // namespace bond_risk
