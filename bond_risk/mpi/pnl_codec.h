// Scenario P&L as bytes, to cross between MPI ranks: doubles as their bits
// (a gathered result is the very number its rank computed) and each error's
// text. Both ends are the same binary on the same kind of machine.
#pragma once

#include <string>
#include <vector>

#include "bond_risk/model/scenarios.h"

namespace bond_risk::mpi {

std::string encode(const std::vector<ScenarioPnl>& pnl);
// Appends the results `bytes` hold to `out`; throws std::runtime_error if they are cut short.
void decode(const std::string& bytes, std::vector<ScenarioPnl>& out);

}  // namespace bond_risk::mpi
