// A curve's calculation in parts the workers share (engine::Split): too
// much work for one thread, it runs in kCurveSteps steps, each of parts
// that write what no other part of the step writes:
//   0. its status (FAILED by its own bad data, else OK: it has no inputs),
//      its arrays and its grids' rows sized (a grid of a calendar that is
//      not OK emptied), its rates;
//   1. its discount factors and key-rate shares, a range of days a part
//      (ranges start at multiples of kAlignedDays: the bits of one range);
//   2. its running sums: each grid's moments, cum_df, the key rates'
//      discounted sums, each grid's key-rate sums and coupon sums, the
//      grids' in parts of the grids; longest first, so that the workers
//      taking them in order finish together.
// How a curve is cut depends on its data alone, so the parts give the bits
// of running them all in order on one thread, for every NUM_THREADS. In a
// flush in two passes (engine::Pass) the first computes what values are
// read off (its rates, discount factors, cum_df and coupon sums), the rest
// its key-rate shares and sums and its grids' moments.
// curve_parts is asked once the earlier steps have run (it reads the
// status); parts of one step may run at the same time on different threads.
#pragma once

#include <cstddef>

#include "bond_risk/model/store/store.h"
#include "engine/graph.h"

namespace bond_risk {

inline constexpr std::size_t kCurveSteps = 3;

// How many parts step `step` of curve `curve` has in `pass` (0 when it is not OK).
std::size_t curve_parts(const Store& store, NodeIndex curve, std::size_t step, engine::Pass pass);

// Runs part `part` of step `step` of curve `curve` in `pass`.
void curve_part(Store& store, NodeIndex curve, std::size_t step, std::size_t part, engine::Pass pass);

}  // namespace bond_risk
