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

FlushStats flush(Graph& graph, Scheduler& scheduler, std::size_t grain) {
  if (grain == 0) throw std::invalid_argument("flush: grain must be at least 1");
  FlushStats stats;
  const base::ProcessCounters before = base::ProcessCounters::now();
  const base::Stopwatch total;
  std::vector<Chunk> chunks;
  const std::function<void(std::size_t)> run_chunk = [&](std::size_t i) {
    graph.calculation(chunks[i].type)(chunks[i].nodes);
  };

  graph.prepare_flush();
  for (unsigned tier = 1; tier <= graph.max_tier(); ++tier) {
    const base::Stopwatch watch;
    chunks.clear();
    TierStats t{.tier = tier};
    std::size_t work = 0;
    for (TypeId type = 0; type < graph.type_count(); ++type) {
      if (graph.tier(type) != tier) continue;
      const std::span<const NodeIndex> dirty = graph.dirty(type);
      const std::size_t threads = scheduler.parallelism();  // more chunks than these can take only add hand-offs
      std::size_t size = std::max<std::size_t>(1, grain / graph.cost(type));
      if (threads > 1 && size >= 8) {
        const std::size_t even = (dirty.size() + kChunksPerThread * threads - 1) / (kChunksPerThread * threads);
        size = std::max(size / 8, std::min(size, even));
      }
      t.nodes += dirty.size();
      work += dirty.size() * graph.cost(type);
      for (std::size_t at = 0; at < dirty.size(); at += size) {
        chunks.push_back({type, dirty.subspan(at, std::min(size, dirty.size() - at))});
      }
    }
    if (t.nodes == 0) continue;
    if (work < grain) {
      // Less than one grain of work: waking a worker would cost more than it saves.
      for (std::size_t i = 0; i < chunks.size(); ++i) run_chunk(i);
    } else {
      const BatchStats batch = scheduler.run(chunks.size(), run_chunk, tier < graph.max_tier());
      t.chunks = chunks.size();
      t.workers = batch.workers;
      t.wait_seconds = batch.wait_seconds;
    }
    for (TypeId type = 0; type < graph.type_count(); ++type) {
      if (graph.tier(type) == tier) graph.clear_dirty(type);
    }
    t.seconds = watch.seconds();
    stats.nodes += t.nodes;
    stats.tiers.push_back(t);
  }
  graph.finish_flush();
  stats.seconds = total.seconds();
  stats.counters = base::ProcessCounters::now() - before;
  return stats;
}

}  // namespace engine
