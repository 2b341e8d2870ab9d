// StoredRows (model/store/stored_rows.h) over a connection to the input database:
// the live model's look-ups of rows it does not keep in memory. Borrows
// `db`, which must outlive it; reads only, in whatever transaction the
// connection is in (so a change prepared in a batch sees the batch's rows).
// Used by the thread that uses the connection.
#pragma once

#include "base/sqlite.h"
#include "bond_risk/model/store/stored_rows.h"

namespace bond_risk {

class DatabaseRows final : public StoredRows {
 public:
  explicit DatabaseRows(base::Database& db) : db_(db) {}
  std::optional<std::int64_t> id_by_name(std::string_view name) const override;
  std::optional<Date> date(Kind kind, std::int64_t id, std::string_view column) const override;
  std::int64_t largest_limit_id() const override;
  bool read_back(Store& store, NodeRef node) const override;
  std::vector<StoredConvention> conventions() const override;
  std::optional<BusinessDays> business_days(std::int64_t calendar_id) const override;
  std::vector<RiskLimit> limits() const override;
  Store load() const override;

 private:
  base::Database& db_;
};

}  // namespace bond_risk
