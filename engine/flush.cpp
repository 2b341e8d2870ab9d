#include "engine/flush.h"

#include <algorithm>
#include <span>
#include <stdexcept>

namespace engine {

namespace {

// One job of a tier: a chunk of a type's dirty nodes, calculated whole, or
// one part of one step of a split node (graph.h, Split).
struct Job {
  TypeId type;
  std::span<const NodeIndex> nodes;  // a part's: its one node
  std::size_t step = 0, part = 0;
  bool is_part = false;
  Pass pass = Pass::whole;  // a part's: which of its type's passes (Graph::type_pass)
};

}  // namespace

FlushStats flush(Graph& graph, Scheduler& scheduler, std::size_t grain, Pass pass) {
  if (grain == 0) throw std::invalid_argument("flush: grain must be at least 1");
  if (graph.flushing() != (pass == Pass::rest)) {
    throw std::logic_error(pass == Pass::rest ? "flush: the rest of a flush whose first pass did not run"
                                              : "flush: a flush begun before the last one's rest ran");
  }
  FlushStats stats;
  const base::ProcessCounters before = base::ProcessCounters::now();
  const base::Stopwatch total;
  std::vector<Job> jobs;
  std::vector<TypeId> split;  // the tier's split types with dirty nodes
  const std::function<void(std::size_t)> run_job = [&](std::size_t i) {
    const Job& job = jobs[i];
    if (job.is_part) {
      graph.split(job.type).run(job.nodes.front(), job.step, job.part, job.pass);
    } else {
      graph.calculation(job.type, pass)(job.nodes);
    }
  };

  if (pass != Pass::rest) graph.prepare_flush();
  for (unsigned tier = 1; tier <= graph.max_tier(); ++tier) {
    const base::Stopwatch watch;
    jobs.clear();
    split.clear();
    TierStats t{.tier = tier};
    std::size_t work = 0, steps = 1;
    for (TypeId type = 0; type < graph.type_count(); ++type) {
      if (graph.tier(type) != tier || (pass == Pass::rest && !graph.calculation(type, pass))) continue;
      const std::span<const NodeIndex> dirty = graph.dirty(type);
      t.nodes += dirty.size();
      const std::size_t cost = graph.cost(type, pass);
      work += dirty.size() * cost;
      if (graph.split(type).steps > 0) {
        if (!dirty.empty()) split.push_back(type);
        steps = std::max(steps, graph.split(type).steps);
        continue;
      }
      const std::size_t threads = scheduler.parallelism();  // more chunks than these can take only add hand-offs
      std::size_t size = std::max<std::size_t>(1, grain / cost);
      if (threads > 1 && size >= 8) {
        const std::size_t even = (dirty.size() + kChunksPerThread * threads - 1) / (kChunksPerThread * threads);
        size = std::max(size / 8, std::min(size, even));
      }
      for (std::size_t at = 0; at < dirty.size(); at += size) {
        jobs.push_back({type, dirty.subspan(at, std::min(size, dirty.size() - at))});
      }
    }
    const auto clear_tier = [&] {
      if (pass == Pass::first) return;  // the rest runs over the same marks
      for (TypeId type = 0; type < graph.type_count(); ++type) {
        if (graph.tier(type) == tier) graph.clear_dirty(type);
      }
    };
    if (t.nodes == 0) {
      clear_tier();
      continue;
    }
    if (work < grain) {
      // Less than one grain of work: waking a worker would cost more than it saves.
      for (TypeId type : split) jobs.push_back({type, graph.dirty(type)});
      for (std::size_t i = 0; i < jobs.size(); ++i) run_job(i);
    } else {
      for (std::size_t step = 0; step < steps; ++step) {
        if (step > 0) jobs.clear();
        for (TypeId type : split) {
          const Split& s = graph.split(type);
          if (step >= s.steps) continue;
          const std::span<const NodeIndex> dirty = graph.dirty(type);
          const Pass type_pass = graph.type_pass(type, pass);
          for (std::size_t k = 0; k < dirty.size(); ++k) {
            const std::size_t parts = s.parts(dirty[k], step, type_pass);
            for (std::size_t part = 0; part < parts; ++part) {
              jobs.push_back({type, dirty.subspan(k, 1), step, part, true, type_pass});
            }
          }
        }
        if (jobs.empty()) continue;
        if (jobs.size() == 1) {  // the master runs a lone job rather than wait for a worker to take it
          run_job(0);
          continue;
        }
        const BatchStats batch = scheduler.run(jobs.size(), run_job, tier < graph.max_tier() || step + 1 < steps);
        t.chunks += jobs.size();
        t.workers = std::max(t.workers, batch.workers);
        t.wait_seconds += batch.wait_seconds;
      }
    }
    clear_tier();
    t.seconds = watch.seconds();
    stats.nodes += t.nodes;
    stats.tiers.push_back(t);
  }
  if (pass != Pass::first) graph.finish_flush();
  stats.seconds = total.seconds();
  stats.counters = base::ProcessCounters::now() - before;
  return stats;
}

}  // namespace engine
