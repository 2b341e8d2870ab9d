// SQL over an input table's descriptor (model/inputs/input_tables.h): statements
// that select or insert every column in the descriptor's order, and one
// column of a row read as the model's typed value.
#pragma once

#include <optional>
#include <string>

#include "base/sqlite.h"
#include "bond_risk/model/inputs/input_tables.h"

namespace bond_risk {

// "SELECT <every column> FROM <table>": column i of a row is the table's
// column i; a column added later that `db` lacks is selected as NULL.
std::string select_all(const InputTable& table, base::Database& db);

// "INSERT INTO <table> (<every column>) VALUES (?, ...)": parameter i + 1 is column i.
std::string insert_all(const InputTable& table);

// Binds parameter `param` of `st` to `value`: dates and sides as their text.
void bind_value(base::Statement& st, int param, const FieldValue& value);

// The value of column `col` of the current row of `st`, which holds
// `column`. Throws FieldError naming the column and the bad value
// ("coupon 'NaN' is not a number", "buy_sell 'HOLD' is not BUY or SELL").
FieldValue read_value(const base::Statement& st, int col, const Column& column);

// The same for a nullable column: nullopt for NULL.
std::optional<FieldValue> read_optional(const base::Statement& st, int col, const Column& column);

}  // namespace bond_risk
