#include "bond_risk/live/external_changes.h"

#include <optional>

#include "bond_risk/db/loader.h"

namespace bond_risk {

namespace {

// The kind of node whose rows `table` holds, when they can be re-read one by one.
std::optional<Kind> row_by_row(std::string_view table) {
  for (Kind kind : {Kind::calendar, Kind::outright_trade, Kind::repo_trade}) {
    if (table == kind_name(kind)) return kind;
  }
  if (table == "ir_curve_input_rate") return Kind::ir_curve;  // a curve's rates, re-read together
  if (table == "bond_quote") return Kind::bond;                // a bond's quote
  return std::nullopt;
}

}  // namespace

LiveModel::Recalculation apply_external(LiveModel& model, const std::vector<ChangeLog::Change>& changes,
                                        base::Database& db) {
  bool limits = false;
  for (const ChangeLog::Change& c : changes) {
    if (c.table == "risk_limit") {
      limits = true;
      continue;
    }
    const std::optional<Kind> kind = row_by_row(c.table);
    if (!kind || !model.reread(*kind, c.id, db)) return model.reload(load(db).store);
  }
  if (limits) model.reread_limits(db);
  return model.recalculate();
}

}  // namespace bond_risk
