#include "bond_risk/db/risk_limit_rows.h"

#include <cmath>
#include <sqlite3.h>

namespace bond_risk {

namespace {

// Column `col`, named `name`, as a whole number: none for NULL; an error
// for anything else that is not one.
std::optional<std::int64_t> whole(const base::Statement& st, int col, const char* name, std::string& error) {
  const int type = st.column_type(col);
  if (type == SQLITE_NULL) return std::nullopt;
  if (type == SQLITE_INTEGER) return st.integer(col);
  if (error.empty()) error = std::string(name) + " '" + st.value_text(col) + "' is not a whole number";
  return std::nullopt;
}

// A bound: `unbounded` for NULL; an error for a value that is not a finite number.
double bound(const base::Statement& st, int col, const char* name, double unbounded, std::string& error) {
  const int type = st.column_type(col);
  if (type == SQLITE_NULL) return unbounded;
  if ((type == SQLITE_INTEGER || type == SQLITE_FLOAT) && std::isfinite(st.real(col))) return st.real(col);
  if (error.empty()) error = std::string(name) + " '" + st.value_text(col) + "' is not a finite number";
  return unbounded;
}

}  // namespace

std::vector<RiskLimit> read_limits(base::Database& db) {
  std::vector<RiskLimit> out;
  if (!db.has_table("risk_limit")) return out;
  base::Statement st = db.prepare("SELECT id, book_id, measure, ir_curve_id, idx, lower, upper FROM risk_limit ORDER BY id");
  while (st.step()) {
    RiskLimit l;
    l.id = st.integer(0);
    std::string book_error;
    l.book_id = whole(st, 1, "book_id", book_error);
    if (!book_error.empty()) l.book_text = st.value_text(1);
    l.measure = st.column_type(2) == SQLITE_NULL ? "" : std::string(st.text(2));
    l.ir_curve_id = whole(st, 3, "ir_curve_id", l.point_error);
    l.idx = whole(st, 4, "idx", l.point_error);
    l.lower = bound(st, 5, "lower", -INFINITY, l.row_error);
    l.upper = bound(st, 6, "upper", INFINITY, l.row_error);
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace bond_risk
