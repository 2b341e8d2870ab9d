#include "bond_risk/cli/flush_report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <stdexcept>

#include "base/fnv1a.h"
#include "base/json.h"
#include "base/percentile.h"
#include "bond_risk/model/store/status_counts.h"
#include "engine/affinity.h"

namespace bond_risk {

namespace {

std::string fixed(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", seconds);
  return buf;
}

}  // namespace

void print_report(std::ostream& out, const RunReport& r, const Store& store, const engine::Graph& graph, bool detail) {
  out << "Loaded " << store.size() << " objects from " << r.db << " in " << fixed(r.load_seconds) << " seconds.\n";
  const engine::SchedulerOptions& s = r.scheduler;
  out << "Threads: " << s.threads << (s.threads == 0 ? " (single-threaded: the master calculates)" : " workers")
      << ", scheduler " << engine::to_string(s.kind);
  if (s.kind == engine::SchedulerKind::pthreads) {  // the pool's settings: oneTBB uses neither
    out << ", wait " << engine::to_string(s.wait);
    if (const std::vector<int> cpus = engine::pinned_worker_cpus(s); !cpus.empty()) {
      out << ", CPUs " << engine::format_cpu_list(cpus);
    }
    if (s.master_cpu) out << ", master on CPU " << *s.master_cpu;
  }
  out << ", grain " << r.grain << ".\n";
  for (const engine::TierStats& t : r.flush.tiers) {
    out << "Tier " << t.tier << " (" << graph.tier_types(t.tier, ", ") << ") ran " << t.nodes << " objects in " << fixed(t.seconds) << " seconds.\n";
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
    out << "Full flush repeated " << f.size() << " times: median " << fixed(base::median(f)) << ", min "
        << fixed(*std::min_element(f.begin(), f.end())) << ", mean " << fixed(sum / f.size()) << " seconds.\n";
  }
  const double mb = 1e6;
  char bytes[200];
  std::snprintf(bytes, sizeof bytes, "A full flush moves %.1f MB: %.1f MB read, %.1f MB written (%.1f MB of traffic with write-allocate).\n",
                (r.bytes.read + r.bytes.written) / mb, r.bytes.read / mb, r.bytes.written / mb, r.bytes.traffic() / mb);
  out << bytes;
  if (r.bandwidth > 0) {
    const double floor = static_cast<double>(r.bytes.traffic()) / r.bandwidth;
    char line[200];
    std::snprintf(line, sizeof line, "Memory bandwidth (triad, %zu thread%s): %.1f GB/s; memory floor %.6f seconds; "
                  "flush median / floor %.2f.\n", r.bandwidth_threads, r.bandwidth_threads == 1 ? "" : "s",
                  r.bandwidth / 1e9, floor, base::median(r.flush_seconds) / floor);
    out << line;
  }
  out << "Context switches during the flush: " << r.flush.counters.voluntary_switches << " voluntary, "
      << r.flush.counters.involuntary_switches << " involuntary; " << r.flush.counters.minor_faults
      << " minor page faults. Peak RSS " << r.flush.counters.peak_rss_kb / 1024
      << " MB.\n";
  out << "Results digest: " << base::hex(r.digest) << "\n";
  for (std::size_t k = 0; k < kKindCount; ++k) {
    const auto c = count_statuses(store, static_cast<Kind>(k));
    char line[160];
    std::snprintf(line, sizeof line, "%-15s %8zu OK %6zu FAILED %6zu STALE %6zu EXPIRED\n",
                  std::string(kind_name(static_cast<Kind>(k))).c_str(), c[0], c[1], c[2], c[3]);
    out << line;
  }
  // The desk's totals, as the desk page sums them: over the OK books.
  OutrightValue outright;
  double cs01 = 0;
  RepoValue repo;
  for (NodeIndex b = 0; b < store.outright_books.size(); ++b) {
    if (store.state(ref(Kind::outright_book, b)).status != Status::ok) continue;
    const OutrightValue& v = store.outright_books[b].total;
    outright.pv += v.pv, outright.pv01 += v.pv01, outright.pnl += v.pnl, cs01 += store.outright_books[b].cs01;
  }
  for (NodeIndex b = 0; b < store.repo_books.size(); ++b) {
    if (store.state(ref(Kind::repo_book, b)).status != Status::ok) continue;
    repo.margin += store.repo_books[b].total.margin, repo.mtm_pnl += store.repo_books[b].total.mtm_pnl;
  }
  char risk[400];
  std::snprintf(risk, sizeof risk,
                "Risk over the OK books: outright pv %.2f, pv01 %.2f, cs01 %.2f, pnl %.2f; repo margin %.2f, mtm_pnl %.2f.\n",
                outright.pv, outright.pv01, cs01, outright.pnl, repo.margin, repo.mtm_pnl);
  out << risk;
}

void write_json(const std::string& path, const RunReport& r, const Store& store) {
  // Seconds to the microsecond, as the text report prints them.
  auto micro = [](double seconds) { return std::round(seconds * 1e6) / 1e6; };
  std::vector<double> flushes;
  for (double s : r.flush_seconds) flushes.push_back(micro(s));
  base::Json tiers = base::Json::array();
  for (const engine::TierStats& t : r.flush.tiers) {
    tiers.push_back({{"tier", t.tier},
                     {"objects", t.nodes},
                     {"chunks", t.chunks},
                     {"workers", t.workers},
                     {"wait_seconds", micro(t.wait_seconds)},
                     {"seconds", micro(t.seconds)}});
  }
  base::Json report = {
      {"db", r.db},
      {"threads", r.scheduler.threads},
      {"scheduler", engine::to_string(r.scheduler.kind)},
      {"wait_policy", r.scheduler.kind == engine::SchedulerKind::pthreads ? engine::to_string(r.scheduler.wait) : ""},
      {"cpu_affinity", engine::format_cpu_list(engine::pinned_worker_cpus(r.scheduler))},  // "" when none is pinned
      {"grain", r.grain},
      {"load_seconds", micro(r.load_seconds)},
      {"flush_seconds", micro(r.flush.seconds)},
      {"flush_median_seconds", micro(base::median(r.flush_seconds))},
      {"flush_repeat_seconds", flushes},
      {"objects", r.flush.nodes},
      {"tiers", tiers},
      {"voluntary_context_switches", r.flush.counters.voluntary_switches},
      {"involuntary_context_switches", r.flush.counters.involuntary_switches},
      {"minor_page_faults", r.flush.counters.minor_faults},
      {"peak_rss_kb", r.flush.counters.peak_rss_kb},
      {"results_digest", base::hex(r.digest)},
      {"flush_bytes_read", r.bytes.read},
      {"flush_bytes_written", r.bytes.written},
      {"flush_traffic_bytes", r.bytes.traffic()},
      {"counts", status_counts_json(store)},
  };
  if (r.bandwidth > 0) {
    report["bandwidth_bytes_per_second"] = std::round(r.bandwidth);
    report["bandwidth_threads"] = r.bandwidth_threads;
    report["memory_floor_seconds"] = static_cast<double>(r.bytes.traffic()) / r.bandwidth;
  }
  std::ofstream out(path);
  out << report.dump(2, ' ', false, base::Json::error_handler_t::replace) << "\n";
  if (!out) throw std::runtime_error("cannot write JSON to " + path);
}

}  // namespace bond_risk
