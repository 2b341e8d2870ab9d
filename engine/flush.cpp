#include "engine/flush.h"

#include <algorithm>
#include <span>
#include <stdexcept>

namespace engine {

namespace {

struct Chunk {
  TypeId type;
  std::span<const NodeIndex> nodes;
};

}  // namespace

FlushStats flush(Graph& graph, WorkerPool& pool, std::size_t grain) {
  if (grain == 0) throw std::invalid_argument("flush: grain must be at least 1");
  FlushStats stats;
  const ProcessCounters before = ProcessCounters::now();
  const Stopwatch total;
  std::vector<Chunk> chunks;
  const std::function<void(std::size_t)> run_chunk = [&](std::size_t i) {
    graph.calculation(chunks[i].type)(chunks[i].nodes);
  };

  for (unsigned tier = 1; tier <= graph.max_tier(); ++tier) {
    const Stopwatch watch;
    chunks.clear();
    std::size_t nodes = 0;
    for (TypeId type = 0; type < graph.type_count(); ++type) {
      if (graph.tier(type) != tier) continue;
      const std::span<const NodeIndex> dirty = graph.dirty(type);
      const std::size_t size = std::max<std::size_t>(1, grain / graph.cost(type));
      nodes += dirty.size();
      for (std::size_t at = 0; at < dirty.size(); at += size) {
        chunks.push_back({type, dirty.subspan(at, std::min(size, dirty.size() - at))});
      }
    }
    if (nodes == 0) continue;
    pool.run(chunks.size(), run_chunk);
    for (TypeId type = 0; type < graph.type_count(); ++type) {
      if (graph.tier(type) == tier) graph.clear_dirty(type);
    }
    stats.tiers.push_back({tier, nodes, chunks.size(), watch.seconds()});
    stats.nodes += nodes;
  }
  stats.seconds = total.seconds();
  stats.counters = ProcessCounters::now() - before;
  return stats;
}

}  // namespace engine
