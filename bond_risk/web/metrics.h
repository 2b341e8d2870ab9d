// The gateway's /metrics page, in Prometheus' text exposition format
// (version 0.0.4): a HELP and a TYPE line before each metric's samples,
// names and units as Prometheus documents them (seconds, bytes, _total for
// a counter). The engine's figures are left out while the feed does not
// reach it, rather than shown stale; bond_risk_engine_up says which.
#pragma once

#include <cstddef>
#include <string>

#include "bond_risk/web/desk_state.h"

namespace bond_risk::web {

inline constexpr const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

// `streams`: the gateway's open /stream connections; `books`: the books it shows.
std::string metrics_text(const DeskState::Health& health, std::size_t streams, std::size_t books);

}  // namespace bond_risk::web
