#include "bond_risk/protocol/stats_reply.h"

#include <vector>

#include "base/percentile.h"
#include "base/process_memory.h"
#include "bond_risk/model/store/status_counts.h"
#include "bond_risk/protocol/messages.h"

namespace bond_risk::protocol {

base::Json stats_json(const EngineStats& s) {
  base::Json commands = base::Json::object();
  for (const CommandInfo& c : command_table()) commands[std::string(c.name)] = s.answered[static_cast<std::size_t>(c.id)];
  base::Json latency = nullptr;
  if (!s.latencies_us.empty()) {
    latency = base::Json::object();
    const char* names[] = {member::min, member::p50, member::p90, member::p99, member::p99_9, member::max};
    const double points[] = {0, 50, 90, 99, 99.9, 100};
    const std::vector<double> values = base::percentiles(s.latencies_us, points);  // one sort
    for (std::size_t k = 0; k < values.size(); ++k) latency[names[k]] = values[k];
  }
  base::Json time_us = {{member::batches, s.phases.batches}};
  for (std::size_t i = 0; i < kPhaseNames.size(); ++i) time_us[std::string(kPhaseNames[i])] = s.phases.seconds[i] * 1e6;
  base::Json tiers_us = base::Json::object();
  for (const auto& [types, seconds] : s.tier_seconds) tiers_us[types] = seconds * 1e6;
  const base::ProcessMemory memory = base::process_memory();
  base::Json stats = {{member::counts, status_counts_json(s.store)},
                      {member::events, s.events},
                      {member::commands, commands},
                      {member::recalc_us, latency},
                      {member::recalc_seconds, histogram_json(s.latency)},
                      {member::commit_seconds, histogram_json(s.phases.commits)},
                      {member::time_us, time_us},
                      {member::recalculate_tiers_us, tiers_us},
                      {member::memory_kb, {{member::vm_peak, memory.vm_peak_kb}, {member::vm_rss, memory.vm_rss_kb}}}};
  stats[member::event] = s.event;
  stats[member::results_as_of] = s.results_as_of;
  if (!s.results_recovering.empty()) stats[member::results_recovering] = s.results_recovering;
  // What waits for the writer, at most since start-up: nodes marked to be
  // copied, rows assembled for it (each at most one per node).
  stats[member::results_pending] = {{member::marked_peak, s.marked_peak},
                                    {member::assembled_peak, s.assembled_peak},
                                    {member::nodes, s.store.size()}};
  stats[member::watch_lines] = s.watch_lines;
  if (!s.degraded.empty()) stats[member::degraded] = "the last batch could not be written: " + s.degraded;
  if (!s.results_error.empty()) stats[member::results_error] = s.results_error;
  return stats;
}

}  // namespace bond_risk::protocol
