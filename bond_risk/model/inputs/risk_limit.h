// One row of the input table risk_limit (schema/bond_risk.sql), as read: a
// limit on one measure of one book, or of the total. A value that was not
// of its column's type is kept as an error, so that the row reads FAILED
// (model/limits/risk_limits.h) and never stops the others. A plain value.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace bond_risk {

struct RiskLimit {
  std::int64_t id = 0;
  std::optional<std::int64_t> book_id;  // none: the total, unless book_text
  std::string book_text;                // a book_id that is not a whole number, as stored
  std::string measure;                  // as stored; parse_limit_measure tells which
  std::optional<std::int64_t> ir_curve_id, idx;  // kr01's input point (ir_curve_input_rate's idx)
  double lower = -std::numeric_limits<double>::infinity();  // an unbounded side is infinite
  double upper = std::numeric_limits<double>::infinity();
  std::string row_error;    // a value of its row that is not of its column's type
  std::string point_error;  // the same, of ir_curve_id or idx (a kr01 limit's only)

  bool of_total() const { return !book_id && book_text.empty(); }
};

}  // namespace bond_risk
