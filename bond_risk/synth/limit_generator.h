// The risk limits `bond_risk generate` adds to a data set (docs/model.md
// "Limits"), set from the values of a full flush of its inputs, so that
// every generated limit starts OK; deterministic for a seed.
//
// Each book's limits, in this order, as many as asked (they repeat at
// wider multiples once the list is used up):
// - an outright book: its pv01, its two largest key-rate buckets (kr01),
//   its cs01, each within +-1.3 to 1.7 times its size now, and a day's
//   loss (day_pnl's lower bound) of 30 to 70bp of its pv01; then its other
//   key-rate buckets, largest first;
// - a repo book: its margin within +-1.3 to 1.7 times its size, and a
//   day's loss of 3 to 7% of its margin;
// - the total: its pv01 and margin likewise, and a day's loss of 50bp of
//   its pv01.
// A size of 0 counts as 1. Multiples are drawn per limit from the seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/sqlite.h"

namespace bond_risk {

inline constexpr std::size_t kDefaultLimitsPerBook = 5;

// Replaces the limits of `db` (whose inputs are complete) with a generated
// set of `per_book` limits per book (0: none) and three of the total (none
// with 0), in the caller's transaction; returns how many it wrote.
std::size_t generate_limit_set(base::Database& db, std::uint64_t seed, std::size_t per_book);

// The same on the existing database at `path`, in one transaction (the
// risk_limit table is created if missing); the other tables are not touched.
std::size_t add_limit_set(const std::string& path, std::uint64_t seed, std::size_t per_book);

}  // namespace bond_risk
