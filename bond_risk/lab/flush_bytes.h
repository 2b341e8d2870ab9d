// The bytes a full flush must move through memory, counted from the data
// structures: what each tier reads (static data, states, input values,
// coupon grids, book member lists; not the dirty index lists, whose full
// flush's consecutive indices every type counts) and writes
// (published values, states, coupon grids). Inputs a tier reads at random
// from a small array (a bond's price for its trades, a curve's daily arrays
// and grid sums) are counted once, as one pass over that array. Key-rate
// ladders are not counted. With write-allocate caches a written
// line is read first, so the traffic is read + 2 x written; divided by the
// memory bandwidth, that is the floor no flush can beat.
#pragma once

#include <cstddef>

#include "bond_risk/model/store/store.h"

namespace bond_risk {

struct FlushBytes {
  std::size_t read = 0, written = 0;
  std::size_t traffic() const { return read + 2 * written; }
};

FlushBytes full_flush_bytes(const Store& store);

}  // namespace bond_risk
