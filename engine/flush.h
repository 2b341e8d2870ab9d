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
  std::size_t chunks = 0;     // jobs handed to the scheduler (chunks and parts, every step's); 0 when the master calculated the tier itself
  std::size_t workers = 0;    // worker threads that took part
  double wait_seconds = 0;    // the master's wait at the tier's barriers (one per step)
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
// evenly. A split type's nodes (graph.h, Split) go to the scheduler in
// parts instead, a step at a time; below a grain the master calculates
// them whole. A batch of one job (one chunk, or a step of one part) the
// master runs itself. Results do not depend on the scheduler or the grain.
//
// `pass` (graph.h): Pass::first runs each tier's first passes and leaves
// the graph dirty and flushing (its changed inputs and previous values
// kept); nothing may be marked until Pass::rest, over the same nodes, runs
// the rest and leaves the graph clean. The stats of each count the types
// each calculates.
inline constexpr std::size_t kChunksPerThread = 4;
FlushStats flush(Graph& graph, Scheduler& scheduler, std::size_t grain, Pass pass = Pass::whole);

}  // namespace engine
