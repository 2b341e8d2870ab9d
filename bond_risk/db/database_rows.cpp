#include "bond_risk/db/database_rows.h"

#include "bond_risk/db/change_writer.h"
#include "bond_risk/db/convention_rows.h"
#include "bond_risk/db/limit_alert_log.h"
#include "bond_risk/db/loader.h"
#include "bond_risk/db/risk_limit_rows.h"

namespace bond_risk {

std::optional<std::int64_t> DatabaseRows::id_by_name(std::string_view name) const { return find_id_by_name(db_, name); }

std::optional<Date> DatabaseRows::date(Kind kind, std::int64_t id, std::string_view column) const {
  return stored_date(db_, kind, id, column);
}

std::int64_t DatabaseRows::largest_limit_id() const { return bond_risk::largest_limit_id(db_); }

bool DatabaseRows::read_back(Store& store, NodeRef node) const { return reread(db_, store, node); }

std::vector<StoredConvention> DatabaseRows::conventions() const { return read_conventions(db_); }

std::optional<BusinessDays> DatabaseRows::business_days(std::int64_t calendar_id) const {
  try {
    return read_business_days(db_, calendar_id);
  } catch (const FieldError&) {
    return std::nullopt;  // the calendar fails: a whole load says why
  }
}

std::vector<RiskLimit> DatabaseRows::limits() const { return read_limits(db_); }

Store DatabaseRows::load() const { return bond_risk::load(db_).store; }

}  // namespace bond_risk
