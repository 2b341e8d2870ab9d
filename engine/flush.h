// Calculating the dirty nodes of a graph, tier by tier.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/graph.h"
#include "engine/scheduler.h"
#include "base/timing.h"

namespace engine {

struct TierStats {
  unsigned tier = 0;
  std::size_t nodes = 0;      // nodes calculated
  std::size_t chunks = 0;     // jobs handed to the scheduler; 0 when the master calculated the tier itself
  std::size_t workers = 0;    // worker threads that took part
  double wait_seconds = 0;    // the master's wait at the tier's barrier
  double seconds = 0;
};

struct FlushStats {
  std::vector<TierStats> tiers;  // only the tiers that had dirty nodes
  std::size_t nodes = 0;
  double seconds = 0;
  base::ProcessCounters counters;  // during the flush (context switches, faults, CPU time); peak RSS after it
};

// Calculates every dirty node of `graph` once, lowest tier first, and leaves
// the graph clean. A tier whose work (nodes times their type's cost, see
// Graph::add_type) is below `grain` is calculated by the master itself;
// otherwise each type's dirty nodes are cut into chunks of about grain / cost
// nodes that `scheduler` runs in parallel, and the next tier starts when the
// last chunk is done. Chunks are made smaller, down to an eighth of that, as
// long as a type has fewer than kChunksPerThread of them per thread that can
// run at once (Scheduler::parallelism), so that many cores share a tier
// evenly. Results do not depend on the scheduler
// or the grain.
inline constexpr std::size_t kChunksPerThread = 4;
FlushStats flush(Graph& graph, Scheduler& scheduler, std::size_t grain);

}  // namespace engine
