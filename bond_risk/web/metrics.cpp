#include "bond_risk/web/metrics.h"

#include <charconv>
#include <optional>

namespace bond_risk::web {

namespace {

// The shortest text that reads back as `value`.
std::string number(double value) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  return std::string(text, end);
}

void family(std::string& out, const char* name, const char* type, const std::string& help) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

void sample(std::string& out, const std::string& name, double value) {
  out.append(name).append(" ").append(number(value)).append("\n");
}

// A histogram's buckets (cumulative, with le="+Inf"), _sum and _count; nothing before the engine gave one.
void histogram(std::string& out, const char* name, const char* help, const std::optional<protocol::HistogramFigures>& h) {
  if (!h) return;
  family(out, name, "histogram", help);
  const std::string bucket = std::string(name) + "_bucket{le=\"";
  for (std::size_t i = 0; i < h->le.size(); ++i) {
    char le[32];  // as Prometheus' client libraries write a bound: 0.0001, not 1e-04
    const auto end = std::to_chars(le, le + sizeof le, h->le[i], std::chars_format::fixed).ptr;
    sample(out, bucket + std::string(le, end) + "\"}", static_cast<double>(h->cumulative[i]));
  }
  sample(out, bucket + "+Inf\"}", static_cast<double>(h->count));
  sample(out, std::string(name) + "_sum", h->sum);
  sample(out, std::string(name) + "_count", static_cast<double>(h->count));
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
  histogram(out, "bond_risk_recalc_latency_seconds", "Seconds of each recalculation since the engine started.",
            health.recalc_seconds);
  histogram(out, "bond_risk_commit_latency_seconds",
            "Seconds of each durable commit (a batch of events) since the engine started.", health.commit_seconds);
  return out;
}

}  // namespace bond_risk::web
