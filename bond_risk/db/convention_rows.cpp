#include "bond_risk/db/convention_rows.h"

#include "bond_risk/db/table_rows.h"
#include "bond_risk/model/inputs/input_tables.h"

namespace bond_risk {

std::vector<StoredConvention> read_conventions(base::Database& db) {
  const InputTable& table = input_table("bond_convention");
  std::vector<StoredConvention> out;
  if (!db.has_table(std::string(table.name))) return out;
  base::Statement st = db.prepare(select_all(table, db) + " ORDER BY name");
  while (st.step()) {
    ConventionRow row{std::string(st.text(0)), {}, {}, {}, {}, {}};
    std::string unreadable;
    const auto field = [&](int col) -> std::optional<FieldValue> {
      try {
        return read_optional(st, col, table.columns[static_cast<std::size_t>(col)]);
      } catch (const FieldError& e) {
        if (unreadable.empty()) unreadable = e.message;
        return std::nullopt;
      }
    };
    const auto whole = [](const std::optional<FieldValue>& v) { return v ? std::optional(std::get<std::int64_t>(*v)) : std::nullopt; };
    const auto text = [](const std::optional<FieldValue>& v) { return v ? std::optional(std::get<std::string>(*v)) : std::nullopt; };
    row.settlement_days = whole(field(table.index("settlement_days")));
    row.day_count = text(field(table.index("day_count")));
    row.payment_convention = text(field(table.index("payment_convention")));
    row.ex_dividend_days = whole(field(table.index("ex_dividend_days")));
    row.yield_compounding = text(field(table.index("yield_compounding")));
    ParsedConvention parsed = unreadable.empty() ? parse_convention(row)
                                                 : ParsedConvention{std::nullopt, "bond_convention " + row.name + ": " + unreadable};
    out.push_back({std::move(row.name), std::move(parsed)});
  }
  return out;
}

BusinessDays read_business_days(base::Database& db, std::int64_t calendar_id) {
  const InputTable& table = input_table("calendar_holiday");
  if (!db.has_table(std::string(table.name))) return {};
  base::Statement st = db.prepare(select_all(table, db) + " WHERE calendar_id = ? ORDER BY date");
  st.bind(1, calendar_id);
  std::vector<Date> dates;
  while (st.step()) dates.push_back(std::get<Date>(read_value(st, 1, table.columns[1])));
  return BusinessDays(dates);
}

}  // namespace bond_risk
