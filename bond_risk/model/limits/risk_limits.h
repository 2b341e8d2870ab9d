// Limits (docs/model.md "Limits"): each bounds one measure of one book, or of the
// total, and is OK (lower <= value <= upper), BREACHED, or UNKNOWN (a book
// it reads is not OK).
//
// Measures. pv01, kr01 (one input point of a curve: the pv ladder's) and
// cs01 are outright books' (the total: summed over the OK outright books, as
// the desk's totals); margin is a repo book's (the total: over the OK repo
// books); day_pnl is any book's measure less its baseline (model/pnl/pnl_day.h;
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

#include "bond_risk/model/pnl/pnl_day.h"
#include "bond_risk/model/inputs/risk_limit.h"
#include "bond_risk/model/store/store.h"

namespace bond_risk {

enum class LimitMeasure : std::uint8_t { pv01, kr01, cs01, day_pnl, margin };
std::optional<LimitMeasure> parse_limit_measure(std::string_view name);
std::string_view limit_measure_name(LimitMeasure measure);

enum class LimitState : std::uint8_t { breached, unknown, ok, failed };  // worst first
std::string_view limit_state_name(LimitState state);


// Why `limit` cannot hold against the store, or empty when it can.
std::string limit_error(const Store& store, const RiskLimit& limit);

struct LimitReading {
  LimitState state = LimitState::failed;
  double value = std::numeric_limits<double>::quiet_NaN();
  double bound = std::numeric_limits<double>::quiet_NaN();        // the bound crossed, or the one on the value's side
  double utilization = std::numeric_limits<double>::quiet_NaN();  // none: NaN
  std::string error;                                               // a FAILED limit's reason
};

// A limit that can hold, resolved against the store and the day once: its
// measure, its book (none: the total), for kr01 its point's place on the
// key-rate axis, for a book's day_pnl the book's baseline. Valid until the
// store is loaded again or a new day begins.
struct ResolvedLimit {
  LimitMeasure measure = LimitMeasure::pv01;
  std::optional<NodeRef> book;
  std::size_t kr_at = 0;
  double baseline = 0;
  double lower = -std::numeric_limits<double>::infinity(), upper = std::numeric_limits<double>::infinity();
};
// `limit` resolved; it must be one limit_error() finds nothing wrong with.
ResolvedLimit resolve_limit(const Store& store, const PnlDay& day, const RiskLimit& limit);

// A book's part of a limit's value: its measure (day_pnl: less `baseline`;
// NaN counts as 0), and whether the book is OK.
struct BookPart {
  double value = 0;
  bool ok = true;
};
BookPart book_part(const Store& store, NodeRef book, const ResolvedLimit& limit, double baseline);
// Whether a total of `limit`'s measure sums a book not OK (day_pnl: every book does).
inline bool total_sums_part(const ResolvedLimit& limit, const BookPart& part) {
  return part.ok || limit.measure == LimitMeasure::day_pnl;
}
// Whether a total of `limit`'s measure reads books of `kind`.
bool total_reads(const ResolvedLimit& limit, Kind kind);
// Calls f(book) for each book a total of `limit`'s measure reads: the
// outright books, then the repo books, in index order (the order it sums).
template <class F>
void for_each_total_book(const Store& store, const ResolvedLimit& limit, F&& f) {
  for (Kind kind : {Kind::outright_book, Kind::repo_book}) {
    if (!total_reads(limit, kind)) continue;
    for (NodeIndex b = 0; b < store.size(kind); ++b) f(ref(kind, b));
  }
}

// A value's state against the bounds, and its whole reading: UNKNOWN unless
// every book it reads is OK.
inline LimitState state_of(double value, bool all_ok, double lower, double upper) {
  if (!all_ok) return LimitState::unknown;
  return lower <= value && value <= upper ? LimitState::ok : LimitState::breached;
}
LimitReading reading_of(double value, bool all_ok, double lower, double upper);

// The limit read against the store now and the day's baselines.
LimitReading read_limit(const Store& store, const PnlDay& day, const RiskLimit& limit);
LimitReading read_limit(const Store& store, const PnlDay& day, const ResolvedLimit& limit);

}  // namespace bond_risk
