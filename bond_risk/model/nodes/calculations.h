// The seven node types' calculations, wired into an engine graph.
#pragma once

#include "bond_risk/model/store/store.h"
#include "engine/graph.h"

namespace bond_risk {

// Registers the node types of `store` with `graph` (type id = Kind), adds one
// graph node per stored node and the subscription edges of docs/model.md. Nodes
// with invalid static data get no edges to what they reference. The graph's
// calculations keep a reference to `store`.
void build_graph(Store& store, engine::Graph& graph);

// Whether `trade`'s values would be finite with the inputs it reads now
// (true when those inputs publish nothing): the trade commands refuse one
// that would not, rather than let it fail.
bool values_finite(const Store& store, const OutrightTrade& trade);
bool values_finite(const Store& store, const RepoTrade& trade);

}  // namespace bond_risk
