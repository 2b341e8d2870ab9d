// The order of nodes in the Store's contiguous arrays. A flush visits each
// type's dirty nodes in index order and a book reads its members in member
// order, so nodes lie where those reads go in order: bonds grouped by curve,
// then by calendar and the place of their coupons on its grids (a bond reads
// its curve's running sums there, model/pricing/coupon_grid.h: in this order the
// bonds read them forward, not at random), trades in the order of their
// books' members (trades in no book last). A book sums contiguous memory, and a
// move of what a book's trades share (a desk's book sits on one curve)
// recalculates blocks of bonds and trades, not every other cache line.
//
// Indices are private to a process; ids name nodes everywhere else (the
// database, commands, results), so the order changes no result. A book's
// member list keeps its order (the order of its sums).
#pragma once

#include "bond_risk/model/store/store.h"

namespace bond_risk {

// Reorders freshly loaded bonds and trades as above (ties keep id order),
// remapping every index that refers to them. Call before the graph is built.
void group_by_dependency(Store& store);

// The nodes of `kind` in id order (the database's), for what must not
// depend on the layout: digests, rows written in key order.
std::vector<NodeIndex> in_id_order(const Store& store, Kind kind);

}  // namespace bond_risk
