// The input tables of schema/bond_risk.sql, each described once: its
// columns, in the schema's order, and the type of value each holds. The
// loader and the row re-reads select by these descriptors, the schema check
// and the change log's triggers walk them, commands parse and validate
// trade fields by them, and the generator inserts by them.
//
// A value read from a row or typed in a command is a FieldValue; a column's
// type decides which alternative it holds.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

#include "bond_risk/model/pricing/dates.h"
#include "bond_risk/model/inputs/kind.h"

namespace bond_risk {

enum class ColumnType : std::uint8_t {
  id,         // the row's own node id: integer
  integer,    // a whole number: std::int64_t
  real,       // a finite number: double
  text,       // std::string
  name,       // std::string, not empty and not all digits: commands take an id or a name in one place
  date,       // YYYY-MM-DD text: Date
  side,       // BUY or SELL: Side
  reference,  // the id of a node of `refers_to`: std::int64_t
};

// +1 for BUY, -1 for SELL.
struct Side {
  int dir = 1;
  friend bool operator==(Side, Side) = default;
};

using FieldValue = std::variant<std::int64_t, double, Date, Side, std::string>;

struct Column {
  std::string_view name;
  ColumnType type;
  Kind refers_to = Kind::calendar;  // for references
  bool required = false;            // a new trade must give it (add-outright, add-repo); others default
  // A column added after databases existed: one without it reads NULL
  // (select_all), and the engine and imports add it (upgrade_input_schema).
  bool added_later = false;
};

struct InputTable {
  std::string_view name;
  std::string_view node_column;  // the column naming the node a row belongs to
  std::span<const Column> columns;
  // A table added after databases existed: one without it loads as if it
  // were empty (the running engine then creates it, empty).
  bool optional = false;

  // The column called `name`, or nullptr.
  const Column* find(std::string_view column) const;
  // Its position in `columns` (= in a SELECT of column_list()); throws std::logic_error if absent.
  int index(std::string_view column) const;
  // "id, name, ...": every column, in order.
  std::string column_list() const;
  // The columns a command may set, for messages: "quantity, trade_price, ...".
  std::string settable_list() const;
};

// Every input table, in load order (a table's references point to earlier ones).
std::span<const InputTable> input_tables();
// The table of a kind of node, or called `name`; throws std::logic_error if none.
const InputTable& input_table(Kind kind);
const InputTable& input_table(std::string_view name);
// A book kind's membership table (outright_book_trade, repo_book_trade).
const InputTable& membership_table(Kind book_kind);

// A bad value: what it is and why, e.g. "quantity '1.5' is not a whole
// number"; the message is kept whole, NUL bytes and all.
struct FieldError : std::invalid_argument {
  explicit FieldError(const std::string& why) : std::invalid_argument(why), message(why) {}
  std::string message;
};

// Parses command text as a value of `column`; throws FieldError.
FieldValue parse_field(const Column& column, std::string_view text);

// The value as SQL text for messages and `send` lines ("BUY", "2025-01-02", "0.5").
std::string field_text(const FieldValue& value);

}  // namespace bond_risk
