// A trade's place in the graph as its static data changes: linking it to
// the bond, calendar and curve it references, adding a new one, and taking
// one out of the graph and its books. Each keeps the store and the graph in
// step and marks what must be recalculated.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bond_risk/model/store/store.h"
#include "engine/graph.h"

namespace bond_risk {

// Subscribes `trade` to exactly the inputs its static data names (none when
// that data is invalid).
void link_trade(const Store& store, engine::Graph& graph, NodeRef trade);

// A new trade node of `kind` with database id `id`, default static data and
// no edges; dirty.
NodeRef add_trade_node(Store& store, engine::Graph& graph, Kind kind, std::int64_t id);

// Adds `trade` to `book`'s members; the book is recalculated whole.
void join_book(Store& store, engine::Graph& graph, NodeRef book, NodeRef trade);

// Takes `trade` out of its books (which are recalculated whole) and retires
// it from the graph for good (engine::Graph::retire); its status is
// removed. Returns how many books held it.
std::size_t detach_trade(Store& store, engine::Graph& graph, NodeRef trade);

}  // namespace bond_risk
