// Limits (MODEL.md "Limits"): each bounds one measure of one book, or of the
// total, and is OK (lower <= value <= upper), BREACHED, or UNKNOWN (a book
// it reads is not OK).
//
// Measures. pv01, kr01 (one input point of a curve: the pv ladder's) and
// cs01 are outright books' (the total: summed over the OK outright books, as
// the desk's totals); margin is a repo book's (the total: over the OK repo
// books); day_pnl is any book's measure less its baseline (model/pnl_day.h;
// the total: over every book, as the explain's total). A total is UNKNOWN
// while a book of its kind is not OK. A limit that cannot hold (an unknown book or measure, a measure
// the book's kind has not, a kr01 point its curve has not, lower above
// upper) is FAILED with the reason, and read no further.
//
// Utilization: the value over the bound on its side (upper for a value
// above 0, lower below), when that bound is finite and of the value's sign;
// none otherwise. Plain values and functions, used by one thread.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "bond_risk/model/pnl_day.h"
#include "bond_risk/model/store.h"

namespace bond_risk {

enum class LimitMeasure : std::uint8_t { pv01, kr01, cs01, day_pnl, margin };
std::optional<LimitMeasure> parse_limit_measure(std::string_view name);
std::string_view limit_measure_name(LimitMeasure measure);

enum class LimitState : std::uint8_t { breached, unknown, ok, failed };  // worst first
std::string_view limit_state_name(LimitState state);

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

// Why `limit` cannot hold against the store, or empty when it can.
std::string limit_error(const Store& store, const RiskLimit& limit);

struct LimitReading {
  LimitState state = LimitState::failed;
  double value = std::numeric_limits<double>::quiet_NaN();
  double bound = std::numeric_limits<double>::quiet_NaN();        // the bound crossed, or the one on the value's side
  double utilization = std::numeric_limits<double>::quiet_NaN();  // none: NaN
  std::string error;                                               // a FAILED limit's reason
};

// The limit read against the store now and the day's baselines.
LimitReading read_limit(const Store& store, const PnlDay& day, const RiskLimit& limit);

}  // namespace bond_risk
