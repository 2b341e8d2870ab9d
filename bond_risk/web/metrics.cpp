#include "bond_risk/web/metrics.h"

#include <algorithm>
#include <charconv>
#include <string_view>

namespace bond_risk::web {

namespace {

// The shortest text that reads back as `value`.
std::string number(double value) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  return std::string(text, end);
}

// The quantile a percentile of the engine's stats names, as decimal text
// (no binary rounding: p99.9 is "0.999"): min 0, max 1, pN N/100; "" for another name.
std::string quantile(std::string_view name) {
  if (name == "min") return "0";
  if (name == "max" || name == "p100") return "1";
  if (!name.starts_with('p')) return "";
  const std::string_view percent = name.substr(1);
  const std::size_t point = std::min(percent.find('.'), percent.size());
  const std::string_view whole = percent.substr(0, point);
  const std::string_view fraction = percent.substr(std::min(point + 1, percent.size()));
  auto digits = [](std::string_view d) { return d.find_first_not_of("0123456789") == std::string_view::npos; };
  if (whole.empty() || whole.size() > 2 || !digits(whole) || !digits(fraction)) return "";
  std::string q = "0." + std::string(2 - whole.size(), '0') + std::string(whole) + std::string(fraction);
  q.erase(q.find_last_not_of('0') + 1);
  if (q.back() == '.') q.pop_back();
  return q;
}

void family(std::string& out, const char* name, const char* type, const std::string& help) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

void sample(std::string& out, const std::string& name, double value) {
  out.append(name).append(" ").append(number(value)).append("\n");
}

}  // namespace

std::string metrics_text(const DeskState::Health& health, std::size_t streams, std::size_t books) {
  std::string out;
  family(out, "bond_risk_engine_up", "gauge", "Whether the gateway's feed reaches the engine (1) or not (0).");
  sample(out, "bond_risk_engine_up", health.connected ? 1 : 0);
  family(out, "bond_risk_web_streams", "gauge", "Server-Sent Events streams the gateway has open.");
  sample(out, "bond_risk_web_streams", static_cast<double>(streams));
  family(out, "bond_risk_web_books", "gauge", "Books the desk page shows.");
  sample(out, "bond_risk_web_books", static_cast<double>(books));
  if (!health.has_figures) return out;
  family(out, "bond_risk_events_total", "counter", "Events the engine has numbered (its last event number).");
  sample(out, "bond_risk_events_total", static_cast<double>(health.event));
  family(out, "bond_risk_results_lag_events", "gauge",
         "Events the engine's results database is behind its last event (event - results_as_of).");
  sample(out, "bond_risk_results_lag_events", static_cast<double>(health.event - health.results_as_of));
  family(out, "bond_risk_resident_memory_bytes", "gauge", "The engine's resident memory (VmRSS).");
  sample(out, "bond_risk_resident_memory_bytes", static_cast<double>(health.resident_kb) * 1024);
  if (health.recalc_us.empty()) return out;  // no recalculation yet
  family(out, "bond_risk_recalc_latency_seconds", "summary",
         "Recalculation latency over the engine's latest recalculations (a bounded window), by quantile; "
         "no _sum or _count: the engine reports percentiles only.");
  for (const auto& [name, us] : health.recalc_us) {
    const std::string q = quantile(name);
    if (!q.empty()) sample(out, "bond_risk_recalc_latency_seconds{quantile=\"" + q + "\"}", us / 1e6);
  }
  return out;
}

}  // namespace bond_risk::web
