// A desk's bond list imported into the bond table (`bond_risk import
// bonds`): comma-separated values with a header naming the columns
//
//   isin,name,coupon,maturity,dated_date,coupons_per_year,convention,calendar,curve[,clean_quote]
//
// in any order (clean_quote may be left out, or empty on a line: no
// quote). Every line is validated first: a real ISIN (its check digit), a
// name, a finite coupon, dates, 1, 2 or 4 coupons a year, a maturity after
// the dated date, a bond_convention row, a calendar and a curve (name or
// id), a finite positive quote; ISINs and names unique in the file and the
// database. Then all of it goes in, in one transaction, with ids after the
// largest node id; or, if any line is bad, nothing. A running engine sees
// the new rows as another program's change. On the connection's thread.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "base/progress.h"
#include "base/sqlite.h"

namespace bond_risk {

struct BondImport {
  std::size_t lines = 0;              // data lines read (the header not counted)
  std::vector<std::string> rejected;  // "line 7: isin 'GB0009997998': check digit 8, not 9 ...", in line order
  std::int64_t first_id = 0, last_id = 0;  // the ids given, when imported
  std::size_t quotes = 0;                  // bond_quote rows written
  bool imported() const { return rejected.empty() && lines > 0; }
};

// Validates every line of `csv` and imports them all, or none (see above);
// `progress` advances a unit a line, twice (validated, written). Throws
// std::runtime_error for a header that lacks a column or names an unknown one.
BondImport import_bonds(base::Database& db, std::istream& csv, base::ProgressBar* progress = nullptr);

// Lines of `csv`, for a progress bar's total (the stream is rewound).
std::size_t count_lines(std::istream& csv);

}  // namespace bond_risk
