#include "bond_risk/cli/flush_report.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <stdexcept>

#include "engine/affinity.h"

namespace bond_risk {

namespace {

std::string fixed(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", seconds);
  return buf;
}

std::string hex(std::uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(value));
  return buf;
}

// The middle value (the mean of the two middle ones for an even count).
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

std::string status_counts_json(const Store& store) {
  std::string out = "{";
  for (std::size_t k = 0; k < kKindCount; ++k) {
    const auto c = count_statuses(store, static_cast<Kind>(k));
    out += std::string(k ? ", " : "") + "\"" + std::string(kind_name(static_cast<Kind>(k))) + "\": {";
    for (int s = 0; s < kStatusCount; ++s) {
      out += std::string(s ? ", " : "") + "\"" + std::string(status_name(static_cast<Status>(s))) +
             "\": " + std::to_string(c[s]);
    }
    out += "}";
  }
  return out + "}";
}

void print_report(std::ostream& out, const RunReport& r, const Store& store, bool detail) {
  out << "Loaded " << store.size() << " objects from " << r.db << " in " << fixed(r.load_seconds) << " seconds.\n";
  const engine::SchedulerOptions& s = r.scheduler;
  out << "Threads: " << s.threads << (s.threads == 0 ? " (single-threaded: the master calculates)" : " workers")
      << ", scheduler " << engine::to_string(s.kind);
  if (s.kind == engine::SchedulerKind::pthreads) out << ", wait " << engine::to_string(s.wait);
  if (!s.cpus.empty()) out << ", CPUs " << engine::format_cpu_list(s.cpus);
  if (s.master_cpu) out << ", master on CPU " << *s.master_cpu;
  out << ", grain " << r.grain << ".\n";
  for (const engine::TierStats& t : r.flush.tiers) {
    out << "Tier " << t.tier << " ran " << t.nodes << " objects in " << fixed(t.seconds) << " seconds.\n";
    if (!detail) continue;
    if (t.chunks == 0) {
      out << "  tier " << t.tier << ": calculated by the master (less than one grain of work)\n";
    } else {
      out << "  tier " << t.tier << ": " << t.chunks << " chunks, " << t.workers << " workers took part, master waited "
          << fixed(t.wait_seconds) << " seconds at the barrier\n";
    }
  }
  out << "All tiers ran " << r.flush.nodes << " objects in " << fixed(r.flush.seconds) << " seconds.\n";
  if (r.flush_seconds.size() > 1) {
    const auto& f = r.flush_seconds;
    double sum = 0;
    for (double s : f) sum += s;
    out << "Full flush repeated " << f.size() << " times: median " << fixed(median(f)) << ", min "
        << fixed(*std::min_element(f.begin(), f.end())) << ", mean " << fixed(sum / f.size()) << " seconds.\n";
  }
  out << "Context switches during the flush: " << r.flush.counters.voluntary_switches << " voluntary, "
      << r.flush.counters.involuntary_switches << " involuntary; " << r.flush.counters.minor_faults
      << " minor page faults. Peak RSS " << r.flush.counters.peak_rss_kb / 1024
      << " MB.\n";
  out << "Results digest: " << hex(r.digest) << "\n";
  for (std::size_t k = 0; k < kKindCount; ++k) {
    const auto c = count_statuses(store, static_cast<Kind>(k));
    char line[160];
    std::snprintf(line, sizeof line, "%-15s %8zu OK %6zu FAILED %6zu STALE %6zu EXPIRED\n",
                  std::string(kind_name(static_cast<Kind>(k))).c_str(), c[0], c[1], c[2], c[3]);
    out << line;
  }
}

void write_json(const std::string& path, const RunReport& r, const Store& store) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write JSON to " + path);
  std::string db;
  for (char c : r.db) {
    if (c == '"' || c == '\\') db += '\\';
    db += c;
  }
  out << "{\n  \"db\": \"" << db << "\",\n  \"threads\": " << r.scheduler.threads << ",\n  \"scheduler\": \""
      << engine::to_string(r.scheduler.kind) << "\",\n  \"wait_policy\": \"" << engine::to_string(r.scheduler.wait)
      << "\",\n  \"cpu_affinity\": \"" << engine::format_cpu_list(r.scheduler.cpus) << "\",\n  \"grain\": " << r.grain
      << ",\n  \"load_seconds\": " << fixed(r.load_seconds) << ",\n  \"flush_seconds\": " << fixed(r.flush.seconds)
      << ",\n  \"flush_median_seconds\": " << fixed(median(r.flush_seconds)) << ",\n  \"flush_repeat_seconds\": [";
  for (std::size_t i = 0; i < r.flush_seconds.size(); ++i) out << (i ? ", " : "") << fixed(r.flush_seconds[i]);
  out << "],\n  \"objects\": " << r.flush.nodes << ",\n  \"tiers\": [";
  for (std::size_t i = 0; i < r.flush.tiers.size(); ++i) {
    const engine::TierStats& t = r.flush.tiers[i];
    out << (i ? ", " : "") << "{\"tier\": " << t.tier << ", \"objects\": " << t.nodes << ", \"chunks\": " << t.chunks
        << ", \"workers\": " << t.workers << ", \"wait_seconds\": " << fixed(t.wait_seconds)
        << ", \"seconds\": " << fixed(t.seconds) << "}";
  }
  out << "],\n  \"voluntary_context_switches\": " << r.flush.counters.voluntary_switches
      << ",\n  \"involuntary_context_switches\": " << r.flush.counters.involuntary_switches
      << ",\n  \"minor_page_faults\": " << r.flush.counters.minor_faults
      << ",\n  \"peak_rss_kb\": " << r.flush.counters.peak_rss_kb << ",\n  \"results_digest\": \"" << hex(r.digest)
      << "\",\n  \"counts\": " << status_counts_json(store) << "\n}\n";
  if (!out) throw std::runtime_error("cannot write JSON to " + path);
}

}  // namespace bond_risk
