// Changes to the model's inputs, as values (after LevelDB's WriteBatch).
//
// A client's command is parsed once into a Change (protocol/command.h), with
// nodes named as the client named them (an id or a name). The live model
// prepares it, resolving every name and changing nothing, into the Write it
// will make: the input rows to change, by database id, which the db layer
// persists (db/change_writer.h) before the model commits the change to the
// store and the graph (live/live_model.h). Nothing here knows words, SQL or
// JSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "bond_risk/model/pricing/dates.h"
#include "bond_risk/model/inputs/input_tables.h"
#include "bond_risk/model/inputs/kind.h"
#include "bond_risk/model/inputs/risk_limit.h"

namespace bond_risk {

// A change that cannot be applied, and why; nothing was changed. The
// message is kept whole (a client's bytes in it may hold a NUL, which
// what() would cut short).
struct CommandError : std::runtime_error {
  explicit CommandError(const std::string& why) : std::runtime_error(why), message(why) {}
  std::string message;
};

// One column of a trade set by a command, typed by its descriptor.
struct Field {
  std::string column;
  FieldValue value;
};
using Fields = std::vector<Field>;

struct BumpCurve {
  std::string curve;  // name or id
  double bp = 0;      // added to every input rate, in basis points
};

struct SetRate {
  std::string curve;
  std::int64_t idx = 0;  // the input rate's idx in ir_curve_input_rate
  double value = 0;
};

struct SetCurve {
  std::string curve;
  std::vector<double> values;  // every input rate, in idx order
};

struct RollDate {
  Date today = 0;
  std::optional<std::string> calendar;  // every calendar when none
};

struct AmendTrade {
  std::string trade;
  Fields fields;
};

struct AddTrade {
  Kind kind = Kind::outright_trade;
  Fields fields;  // the table's required columns at least
  std::optional<std::string> book;
};

struct RemoveTrade {
  std::string trade;
};

// Market quotes: each bond's clean price per 100, or none (ClearPrice).
struct SetPrices {
  std::vector<std::pair<std::string, double>> quotes;  // (bond id or name, clean price), one tick
};

struct ClearPrice {
  std::string bond;
};

// Begins a P&L day: every book's measure now becomes its baseline (model/pnl/pnl_day.h).
struct StartDay {};

// A new risk limit (model/limits/risk_limits.h): of a book, or of the total (none);
// kr01's input point by its curve and idx; an unbounded side is none.
struct SetLimit {
  std::optional<std::string> book;  // name or id
  std::string measure;
  std::optional<std::string> curve;
  std::optional<std::int64_t> idx;
  std::optional<double> lower, upper;
};

struct RemoveLimit {
  std::int64_t id = 0;
};

// Rows other programs changed in the input tables (db/change_log.h
// records them), by table and id: the model reads them again. No client's
// command is one; `reload` applies them.
struct RowsChanged {
  struct Row {
    std::string table;
    std::int64_t id = 0;
  };
  std::vector<Row> rows;
};

using Change = std::variant<BumpCurve, SetRate, SetCurve, RollDate, AmendTrade, AddTrade, RemoveTrade, SetPrices,
                            ClearPrice, StartDay, SetLimit, RemoveLimit, RowsChanged>;

// The rows an applied change writes, every node resolved to its database id.
struct CurveRates {
  std::int64_t curve_id = 0;
  std::vector<std::pair<std::int64_t, double>> rates;  // (idx, value)
};

struct CalendarDates {
  std::vector<std::int64_t> calendar_ids;
  Date today = 0;
};

struct TradeRow {
  Kind kind = Kind::outright_trade;
  std::int64_t id = 0;
  Fields fields;  // the columns to set; a new row's are complete
  bool insert = false;
  std::optional<std::int64_t> book_id;  // a new trade's book
};

struct TradeRemoval {
  Kind kind = Kind::outright_trade;
  std::int64_t id = 0;
};

struct BondQuotes {
  std::vector<std::pair<std::int64_t, std::optional<double>>> quotes;  // (bond id, clean price; none: deleted)
};

// No input row: the day's baselines are written beside the event (db/pnl_day_log.h).
struct DayStart {};

// A risk_limit row to insert, whole, and one to delete.
struct LimitRow {
  RiskLimit limit;
};

struct LimitRemoval {
  std::int64_t id = 0;
};

// No row: other programs wrote them (RowsChanged).
struct RowsWritten {};

using Write =
    std::variant<CurveRates, CalendarDates, TradeRow, TradeRemoval, BondQuotes, DayStart, LimitRow, LimitRemoval, RowsWritten>;

// What applying a change did.
struct Applied {
  Write write;
  std::size_t books = 0;     // remove-trade: the books that held the trade
  std::string still_failed = {};  // amend-trade of a FAILED trade: what is still wrong with it
};

}  // namespace bond_risk
