// What the live model needs of the input database beyond what the store
// keeps in memory (the store names calendars, curves and books, not bonds
// and trades): a node's id by its name, a repo's dates as stored, the
// largest risk-limit id ever given, a FAILED trade's row read back whole
// once its amendment is stored, and the conventions and holidays other
// programs edit.
//
// The live model reads through it to find a node, and to prepare and commit
// a change; it never writes. The db layer implements it over a connection (db/database_rows.h).
// Not thread-safe: one per connection, used by the thread that owns it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "bond_risk/model/pricing/dates.h"
#include "bond_risk/model/store/store.h"

namespace bond_risk {

class StoredRows {
 public:
  virtual ~StoredRows() = default;
  // The id of the bond or trade named `name`, if one is.
  virtual std::optional<std::int64_t> id_by_name(std::string_view name) const = 0;
  // A date column of the node's stored row; nullopt when NULL or unreadable.
  virtual std::optional<Date> date(Kind kind, std::int64_t id, std::string_view column) const = 0;
  // The largest risk-limit id the database ever gave, removed ones included.
  virtual std::int64_t largest_limit_id() const = 0;
  // Reads `node`'s row into `store` again (its values, state and reason);
  // false when the row is gone.
  virtual bool read_back(Store& store, NodeRef node) const = 0;
  // Every bond_convention row, read again, in name order.
  virtual std::vector<StoredConvention> conventions() const = 0;
  // Calendar `calendar_id`'s business days, read again; nullopt when one of
  // its holidays is not a date.
  virtual std::optional<BusinessDays> business_days(std::int64_t calendar_id) const = 0;
  // Every risk limit, read again.
  virtual std::vector<RiskLimit> limits() const = 0;
  // The whole store, read again.
  virtual Store load() const = 0;
};

}  // namespace bond_risk
