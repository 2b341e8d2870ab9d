// A trade's static data set from typed column values (input_tables.h): the
// one mapping from columns to OutrightTrade and RepoTrade fields, used by
// the loader for rows and by the trade commands. Columns the model does not
// keep (name, trade_date, start_date, cash_ccy; buy_sell of a repo) are
// checked by their type only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bond_risk/model/inputs/input_tables.h"
#include "bond_risk/model/store/store.h"

namespace bond_risk {

// What a column of a trade table sets, found by its name once (a load
// reads hundreds of thousands of rows of the same columns): `none` for the
// columns the model does not keep.
enum class TradeField : std::uint8_t {
  none, bond, calendar, curve, start_date, end_date, notional, start_cash, rate, trade_price, quantity, side
};
TradeField trade_field(const Column& column);

// docs/model.md's rules for a trade's sizes and prices (outright_trade,
// repo_trade): quantity and notional positive whole numbers, trade_price
// and start_cash finite positive numbers, a repo's rate any finite number
// (repo rates can be negative). The one table the loader (a row outside it
// is FAILED, naming the field) and the trade commands (refused) read.
enum class ValueRule : std::uint8_t { any, positive_whole, positive_finite, finite };
struct FieldRule {
  std::string_view column;
  TradeField field;
  ValueRule rule;
};
inline constexpr FieldRule kFieldRules[] = {
    {"bond_id", TradeField::bond, ValueRule::any},
    {"calendar_id", TradeField::calendar, ValueRule::any},
    {"ir_curve_id", TradeField::curve, ValueRule::any},
    {"start_date", TradeField::start_date, ValueRule::any},
    {"end_date", TradeField::end_date, ValueRule::any},
    {"notional", TradeField::notional, ValueRule::positive_whole},
    {"start_cash", TradeField::start_cash, ValueRule::positive_finite},
    {"rate", TradeField::rate, ValueRule::finite},
    {"trade_price", TradeField::trade_price, ValueRule::positive_finite},
    {"quantity", TradeField::quantity, ValueRule::positive_whole},
    {"buy_sell", TradeField::side, ValueRule::any},
};
// Throws FieldError naming the column when `value` breaks `field`'s rule.
void check_value(TradeField field, const FieldValue& value);
// trade_field of each of a table's columns, in order.
std::vector<TradeField> trade_fields(const InputTable& table);

// Sets `field` of `trade` to `value`, which has its column's type (a field
// the trade does not have is left alone); checks it first (check_value). A reference is resolved through
// `store`; throws FieldError if it names no node of the column's kind.
void set_field(const Store& store, OutrightTrade& trade, TradeField field, const FieldValue& value);
void set_field(const Store& store, RepoTrade& trade, TradeField field, const FieldValue& value);

// The index of the node of `kind` whose database id is `id`; throws
// FieldError ("unknown bond id 999", "id 2 is an ir_curve, not a calendar").
NodeIndex resolve(const Store& store, Kind kind, std::int64_t id);

// Why a repo's dates cannot both hold, or "" when they can.
std::string check_repo_dates(Date start, Date end);

}  // namespace bond_risk
