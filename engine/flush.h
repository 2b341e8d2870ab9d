// Calculating the dirty nodes of a graph, tier by tier.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/graph.h"
#include "engine/timing.h"
#include "engine/worker_pool.h"

namespace engine {

struct TierStats {
  unsigned tier = 0;
  std::size_t nodes = 0;   // nodes calculated
  std::size_t chunks = 0;  // jobs handed to the pool
  double seconds = 0;
};

struct FlushStats {
  std::vector<TierStats> tiers;  // only the tiers that had dirty nodes
  std::size_t nodes = 0;
  double seconds = 0;
  ProcessCounters counters;  // context switches during the flush; peak RSS after it
};

// Calculates every dirty node of `graph` once, lowest tier first, and leaves
// the graph clean. Within a tier, each type's dirty nodes are cut into chunks
// of at most grain / cost nodes (see Graph::add_type) that `pool` runs in parallel; a tier starts only
// when the one below has finished. Results do not depend on the pool's size
// or the grain.
FlushStats flush(Graph& graph, WorkerPool& pool, std::size_t grain);

}  // namespace engine
