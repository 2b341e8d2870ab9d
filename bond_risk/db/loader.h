// Loading the input tables of schema/bond_risk.sql into a Store.
#pragma once

#include <string>
#include <vector>

#include "base/sqlite.h"
#include "bond_risk/model/store/store.h"

namespace bond_risk {

struct Loaded {
  Store store;
  // Rows that belong to no node (a rate or book row naming an unknown curve
  // or book): reported, not used.
  std::vector<std::string> warnings;
};

// Reads every input table, selecting the columns of its descriptor
// (model/inputs/input_tables.h), all in one read transaction (a savepoint, so also
// inside the caller's transaction): the tables as of one moment. Throws std::runtime_error if a table or column is
// missing. A row with bad data becomes a FAILED node with the reason (see
// Store::fail); it never stops the load. The risk limits are read as rows
// (db/risk_limit_rows.h) into Store::limits.
//
// With `books`, only those books (by id) are read, with the trades in them,
// the bonds those trades hold and every calendar and curve: one rank's share
// of the graph (bond_risk_mpi --split books). Nodes keep the relative order
// a whole load gives them, so a book's sums run in the same order.
Loaded load(base::Database& db, const std::vector<std::int64_t>* books = nullptr);

// Reads a trade's, calendar's or curve's input row(s) again after another
// program changed them, replacing its static data and static error in
// `store` (its status stays as last calculated until the next flush); false
// if its row is gone or a curve's number of points changed (the key-rate
// axis is laid out at load): the caller loads everything again.
bool reread(base::Database& db, Store& store, NodeRef node);

}  // namespace bond_risk
