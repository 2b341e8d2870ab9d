// The engine's scenario and VaR replies, encoded with the names of
// protocol/members.h from a scenario set's revaluation (model/risk/scenarios.h).
// Plain functions: any thread (the server's job runner calls them).
#pragma once

#include <string>
#include <vector>

#include "base/json.h"
#include "bond_risk/model/risk/scenarios.h"

namespace bond_risk::protocol {

// A scenario's P&L: {"name","id","set","total","books":[{"id","name","pnl"
// and, for repo books, "margin_change"}, ...]}.
base::Json scenario_json(const ScenarioBase& base, const Scenario& scenario, const std::string& set, const ScenarioPnl& pnl);

// VaR and ES of a historical set from its scenarios' `pnl`: {"set",
// "scenarios","total":{"var_99","es_975"},"books":[{"id","name","var_99",
// "es_975"}, ...]}, with "left_out" (the scenarios left out, each with why)
// and "note" (fewer than 100 scenarios: few_scenarios_note) when there are.
// Throws CommandError when no scenario is usable (no_var_reason).
base::Json var_json(const ScenarioBase& base, const ScenarioSet& set, const std::vector<ScenarioPnl>& pnl);

}  // namespace bond_risk::protocol
