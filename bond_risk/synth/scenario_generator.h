// The two scenario sets `bond_risk generate` adds to a data set, for every
// curve of the database (docs/model.md "Scenarios"):
// - "ladder" (stress): parallel shifts from -200 to +200bp, steepening and
//   flattening twists (-/+50bp at the ends, linear in the point's index) and
//   butterflies (the wings against the belly);
// - "historical": 500 synthetic daily moves of every input point,
//   deterministic for a seed: a level, slope and curvature factor per day
//   (the second curve's factors correlated 0.8 with the first's), a little
//   noise per point, and one calm day in twenty replaced by a stressed one
//   at 3x the volatility, so that the tail looks like rates.
#pragma once

#include <cstdint>
#include <string>

#include "base/sqlite.h"

namespace bond_risk {

inline constexpr int kHistoricalDays = 500;

// Writes both sets into `db` (whose curves are loaded), in the caller's
// transaction; scenario ids continue after the largest one there.
void generate_scenario_sets(base::Database& db, std::uint64_t seed);

// Adds both sets to the existing database at `path` (the scenario tables
// are created if missing), replacing sets of those names, in one
// transaction; the other tables are not touched.
void add_scenario_sets(const std::string& path, std::uint64_t seed);

}  // namespace bond_risk
