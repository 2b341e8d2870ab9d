// The bond_convention table read as conventions (model/conventions/
// convention.h): each row's convention, or the reason it has none; and a
// calendar's calendar_holiday rows as its business days. For the loader,
// the live model's re-reads and `import bonds`; on the connection's thread.
#pragma once

#include <cstdint>
#include <vector>

#include "base/sqlite.h"
#include "bond_risk/model/store/store.h"

namespace bond_risk {

// Every row in name order; none when the table does not exist (a database
// from before conventions).
std::vector<StoredConvention> read_conventions(base::Database& db);

// The business days of calendar `calendar_id`: every weekday but its
// holidays (all weekdays when the table does not exist). Throws FieldError
// naming a date that cannot be read.
BusinessDays read_business_days(base::Database& db, std::int64_t calendar_id);

}  // namespace bond_risk
