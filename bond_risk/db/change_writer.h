// Persisting applied changes (model/inputs/changes.h) to the input tables, and the
// few look-ups of stored input the live model needs: names of bonds and
// trades (not kept in memory) and a trade's stored dates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/sqlite.h"
#include "bond_risk/model/inputs/changes.h"

namespace bond_risk {

// Writes `write` to the input tables in the caller's transaction. Throws
// std::runtime_error if the database refuses a row (a duplicate name, a
// constraint); the caller rolls back to its savepoint.
void persist(base::Database& db, const Write& write);

// The id of the bond or trade called `name`, or nullopt.
std::optional<std::int64_t> find_id_by_name(base::Database& db, std::string_view name);

// The book (either table) whose id or name is `key`, as the database holds it.
struct StoredBook {
  Kind kind = Kind::outright_book;
  std::int64_t id = 0;
  std::string name;
};
std::optional<StoredBook> find_stored_book(base::Database& db, std::string_view key);

// The stored text of a trade's date column (start_date, end_date, ...), or
// nullopt if the row is gone or the value is not a date.
std::optional<Date> stored_date(base::Database& db, Kind kind, std::int64_t id, std::string_view column);

}  // namespace bond_risk
