// The bond_convention table read as conventions (model/conventions/
// convention.h): each row's convention, or the reason it has none. For the
// loader and `import bonds`; on the connection's thread.
#pragma once

#include <vector>

#include "base/sqlite.h"
#include "bond_risk/model/store/store.h"

namespace bond_risk {

// Every row in name order; none when the table does not exist (a database
// from before conventions).
std::vector<StoredConvention> read_conventions(base::Database& db);

}  // namespace bond_risk
