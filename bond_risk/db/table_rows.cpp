#include "bond_risk/db/table_rows.h"

#include <cmath>

namespace bond_risk {

namespace {

// "coupon 'NaN'", "quantity 1.5", "idx (a blob)": the column and the value as stored.
std::string named(const base::Statement& st, int col, const Column& column) {
  if (st.column_type(col) == SQLITE_BLOB) return std::string(column.name) + " (a blob)";
  const std::string value = st.value_text(col).substr(0, 40);
  return std::string(column.name) + " " + (st.column_type(col) == SQLITE_TEXT ? "'" + value + "'" : value);
}

}  // namespace

std::string select_all(const InputTable& table, base::Database& db) {
  std::string columns;
  for (const Column& c : table.columns) {
    const bool present = !c.added_later || db.has_column(std::string(table.name), std::string(c.name));
    columns.append(columns.empty() ? "" : ", ").append(present ? "" : "NULL AS ").append(c.name);
  }
  return "SELECT " + columns + " FROM " + std::string(table.name);
}

std::string insert_all(const InputTable& table) {
  std::string params;
  for (std::size_t i = 0; i < table.columns.size(); ++i) params += i ? ", ?" : "?";
  return "INSERT INTO " + std::string(table.name) + " (" + table.column_list() + ") VALUES (" + params + ")";
}

void bind_value(base::Statement& st, int param, const FieldValue& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value)) {
    st.bind(param, *i);
  } else if (const auto* d = std::get_if<double>(&value)) {
    st.bind(param, *d);
  } else {
    st.bind(param, std::string_view(field_text(value)));
  }
}

FieldValue read_value(const base::Statement& st, int col, const Column& column) {
  const base::ColumnValue value = st.column(col);
  const int type = value.type();
  switch (column.type) {
    case ColumnType::id:
    case ColumnType::integer:
    case ColumnType::reference: {
      if (type == SQLITE_INTEGER) return value.integer();
      const double v = value.real();
      if (type == SQLITE_FLOAT && std::isfinite(v) && v == std::trunc(v) && std::abs(v) < 9e15) {
        return static_cast<std::int64_t>(v);
      }
      throw FieldError(named(st, col, column) +
                       (column.type == ColumnType::reference ? " is not an id" : " is not a whole number"));
    }
    case ColumnType::real: {
      if (type != SQLITE_FLOAT && type != SQLITE_INTEGER) throw FieldError(named(st, col, column) + " is not a number");
      const double v = value.real();
      if (!std::isfinite(v)) throw FieldError(named(st, col, column) + " is not finite");
      return v;
    }
    case ColumnType::date:
      if (type == SQLITE_TEXT) {
        if (const auto d = parse_date(value.text())) return *d;
      }
      throw FieldError(named(st, col, column) + " is not a YYYY-MM-DD date");
    case ColumnType::side: {
      const std::string_view v = type == SQLITE_TEXT ? value.text() : "";
      if (v == "BUY") return Side{1};
      if (v == "SELL") return Side{-1};
      throw FieldError(named(st, col, column) + " is not BUY or SELL");
    }
    case ColumnType::text:
    case ColumnType::name: return std::string(value.text());
  }
  throw std::logic_error("read_value: unknown column type");
}

std::optional<FieldValue> read_optional(const base::Statement& st, int col, const Column& column) {
  if (st.column_type(col) == SQLITE_NULL) return std::nullopt;
  return read_value(st, col, column);
}

}  // namespace bond_risk
