#include "bond_risk/model/nodes/result_row.h"

#include "bond_risk/model/store/reason.h"

namespace bond_risk {

ResultRow result_row(const Store& store, const engine::Graph& graph, NodeRef node) {
  const Status status = store.state(node).status;
  return {store.id(node), kind_of(node), status, published_values(store, node),
          status == Status::ok ? std::string() : reason(store, graph, node),
          stores_key_rates(kind_of(node)) ? key_rate_ladder(store, node) : std::vector<KeyRate>{}};
}

}  // namespace bond_risk
