// Why a node is not OK, in words: what `get`, the result tables and the
// tests show next to a status.
#pragma once

#include <string>

#include "bond_risk/model/store/store.h"
#include "engine/graph.h"

namespace bond_risk {

// "" for an OK node; otherwise its invalid data, the date that put it past
// the curve horizon or expired it, or the inputs that made it STALE.
std::string reason(const Store& store, const engine::Graph& graph, NodeRef node);

}  // namespace bond_risk
