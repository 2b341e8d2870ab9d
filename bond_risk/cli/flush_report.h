// Reporting a run: the text lines benchmark scripts parse, and JSON.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "bond_risk/lab/flush_bytes.h"
#include "bond_risk/model/store/store.h"
#include "engine/flush.h"
#include "engine/graph.h"
#include "engine/scheduler.h"

namespace bond_risk {

struct RunReport {
  std::string db;
  engine::SchedulerOptions scheduler;
  std::size_t grain = 0;
  double load_seconds = 0;
  engine::FlushStats flush;                // the start-up flush
  std::vector<double> flush_seconds;       // it and its repeats (FLUSHES), in order
  std::uint64_t digest = 0;  // results_digest() of the flushed store
  FlushBytes bytes;          // what a full flush moves (lab/flush_bytes.h)
  double bandwidth = 0;      // bytes a second measured with as many threads as calculate; 0 = not measured
  std::size_t bandwidth_threads = 0;
};

// "Tier 3 (bond) ran 40000 objects in 0.012345 seconds." per tier (its
// types named as `graph` has them), then "All tiers ran N objects in S
// seconds.", with repeats "Full flush repeated N times: median S, min S,
// mean S seconds.", the bytes a flush moves and, when measured, the
// bandwidth, the memory floor and the flush's ratio to it, then counts per
// type and status and the books' risk in total (over the OK books).
// `detail` adds a line per tier: chunks, workers taking part, barrier wait.
void print_report(std::ostream& out, const RunReport& report, const Store& store, const engine::Graph& graph,
                  bool detail);

// The same figures as a JSON object, written to `path`.
void write_json(const std::string& path, const RunReport& report, const Store& store);

}  // namespace bond_risk
