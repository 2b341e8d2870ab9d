// The input tables' schema on a database: checked before a load, brought
// up to date before the engine or an import writes (schema/bond_risk.sql,
// then the columns added since, model/inputs/input_tables.h's added_later).
// Used on the thread that owns the connection.
#pragma once

#include "base/sqlite.h"

namespace bond_risk {

// Throws std::runtime_error naming the first missing input table or column
// (a table or column added later may be missing: it reads as empty, NULL).
void check_input_schema(base::Database& db);

// Creates what is missing: the tables and indices of schema/bond_risk.sql,
// the columns added later, and the unique index on bond.isin.
void upgrade_input_schema(base::Database& db);

}  // namespace bond_risk
