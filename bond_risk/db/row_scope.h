// Which rows of the input tables a load reads: every row, or a share of the
// books (bond_risk_mpi --split books): the share's books, the trades in
// them, the bonds those trades hold, and every calendar and curve.
//
// A share keeps each kind's ids sorted and reads a table in runs of nearby
// ids, one range query a run, skipping the rows of other books between its
// own: books of one desk hold consecutive trades and bonds, so a share reads
// little more than its own rows, and a scattered one about a look-up a row.
// Rows come in key order either way, as a whole load reads them.
//
// Not thread-safe to build; const use from any thread, each with its own
// connection.
// A plain value: owns its id lists and keeps no connection (`db` is borrowed
// for each call only).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/sqlite.h"
#include "bond_risk/model/inputs/kind.h"

namespace bond_risk {

class RowScope {
 public:
  RowScope() = default;  // every row

  // The share of `books` (ids of either kind; unknown ones select nothing):
  // reads the membership tables of those books and the bond ids of their
  // trades on `db`.
  RowScope(base::Database& db, const std::vector<std::int64_t>& books);

  // The sorted ids of `kind`'s rows in a share; nullptr: every row.
  const std::vector<std::int64_t>* ids(Kind kind) const;

  // Calls on_row(st) for each row of `select` ("SELECT ... FROM table", with
  // a WHERE only when every row is in scope) whose first column, `key`, is
  // one of `kind`'s ids, or for every row; in key order, then `then`'s.
  void each_row(base::Database& db, const std::string& select, Kind kind, std::string_view key,
                const std::function<void(const base::Statement&)>& on_row, std::string_view then = "") const;

 private:
  bool whole_ = true;
  std::vector<std::int64_t> books_, bonds_;
  std::array<std::vector<std::int64_t>, 2> trades_;  // outright, repo
};

}  // namespace bond_risk
