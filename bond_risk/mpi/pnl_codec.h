// Scenario P&L (and the books it is over) as bytes, to cross between MPI ranks: doubles as their bits
// (a gathered result is the very number its rank computed) and each error's
// text. Both ends are the same binary on the same kind of machine.
#pragma once

#include <string>
#include <vector>

#include "bond_risk/model/risk/scenarios.h"

namespace bond_risk::mpi {

// What a rank sends rank 0 for one set: the books it revalued (empty when
// every rank holds every book) and its P&L per scenario, over those books.
struct RankShare {
  BookList books;
  std::vector<ScenarioPnl> pnl;
};

std::string encode(const RankShare& share);
// Throws std::runtime_error if `bytes` are cut short.
RankShare decode(const std::string& bytes);

}  // namespace bond_risk::mpi
