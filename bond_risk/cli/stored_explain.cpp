#include "bond_risk/cli/stored_explain.h"

#include <map>
#include <stdexcept>

#include "base/cli_args.h"
#include "bond_risk/db/change_writer.h"
#include "bond_risk/db/pnl_day_log.h"

namespace bond_risk {

namespace {

std::string cause_text(base::Database& db, const Cause& cause) {
  std::string out(cause_kind_name(cause.kind));
  if (cause.kind != CauseKind::curve) return out;
  base::Statement name = db.prepare("SELECT name FROM ir_curve WHERE id = ?");
  name.bind(1, cause.curve_id);
  return out + " " + (name.step() ? std::string(name.text(0)) : std::to_string(cause.curve_id));
}

}  // namespace

StoredExplain stored_explain(base::Database& db, const std::optional<std::string>& book) {
  const std::optional<PnlDay> day = db.has_table("pnl_day") ? read_day(db) : std::nullopt;
  if (!day) {
    throw std::runtime_error("no P&L day in " + db.path() + ": a running engine begins one (bond_risk run --db " +
                             db.path() + ", then bond_risk send start-day)");
  }
  StoredExplain out{"the total", day->started_after(), day->started_at(), 0, 0, {}};
  std::optional<std::int64_t> only;
  if (book) {
    const std::optional<StoredBook> found = find_stored_book(db, *book);
    if (!found) throw base::UsageError("no outright_book or repo_book with id or name '" + *book + "' in " + db.path());
    only = found->id;
    out.whose = "book " + found->name + " (id " + std::to_string(found->id) + ")";
  }
  std::map<Cause, CauseTotal> sums;
  for (const std::int64_t id : day->book_ids()) {
    if (only && *only != id) continue;
    out.baseline += day->baseline(id);
    for (const auto& [cause, total] : day->explain(id)) sums[cause] += total;
  }
  for (const auto& [cause, total] : sums) {
    out.causes.emplace_back(cause_text(db, cause), total);
    out.day_pnl += total.actual;
  }
  return out;
}

}  // namespace bond_risk
