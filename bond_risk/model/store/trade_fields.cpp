#include "bond_risk/model/store/trade_fields.h"

#include <cmath>
#include <string_view>
#include <variant>

namespace bond_risk {

namespace {

// "a bond", "an ir_curve".
std::string with_article(std::string_view noun) {
  return (std::string_view("aeiou").find(noun.front()) == std::string_view::npos ? "a " : "an ") + std::string(noun);
}

std::int64_t id_of(const FieldValue& v) { return std::get<std::int64_t>(v); }

}  // namespace

NodeIndex resolve(const Store& store, Kind kind, std::int64_t id) {
  const NodeRef* node = store.by_id.find(id);
  if (!node || store.state(*node).status == Status::removed) {
    throw FieldError("unknown " + std::string(kind_name(kind)) + " id " + std::to_string(id));
  }
  if (kind_of(*node) != kind) {
    throw FieldError("id " + std::to_string(id) + " is " + with_article(kind_name(kind_of(*node))) + ", not " +
                     with_article(kind_name(kind)));
  }
  return node->index;
}

TradeField trade_field(const Column& c) {
  for (const FieldRule& f : kFieldRules) {
    if (c.name == f.column) return f.field;
  }
  return TradeField::none;
}

void check_value(TradeField field, const FieldValue& v) {
  for (const FieldRule& f : kFieldRules) {
    if (f.field != field) continue;
    const bool whole = std::holds_alternative<std::int64_t>(v), real = std::holds_alternative<double>(v);
    const double x = whole ? static_cast<double>(std::get<std::int64_t>(v)) : real ? std::get<double>(v) : 0;
    switch (f.rule) {
      case ValueRule::any: return;
      case ValueRule::positive_whole:
        if (whole && std::get<std::int64_t>(v) > 0) return;
        throw FieldError(std::string(f.column) + " " + field_text(v) + " is not a positive whole number");
      case ValueRule::positive_finite:
        if (std::isfinite(x) && x > 0) return;
        throw FieldError(std::string(f.column) + " " + field_text(v) + " is not a finite positive number");
      case ValueRule::finite:
        if (std::isfinite(x)) return;
        throw FieldError(std::string(f.column) + " " + field_text(v) + " is not a finite number");
    }
  }
}

std::vector<TradeField> trade_fields(const InputTable& table) {
  std::vector<TradeField> fields;
  for (const Column& c : table.columns) fields.push_back(trade_field(c));
  return fields;
}

void set_field(const Store& store, OutrightTrade& t, TradeField field, const FieldValue& v) {
  check_value(field, v);
  switch (field) {
    case TradeField::bond: t.bond = resolve(store, Kind::bond, id_of(v)); break;
    case TradeField::trade_price: t.trade_price = std::get<double>(v); break;
    case TradeField::quantity: t.quantity = std::get<std::int64_t>(v); break;
    case TradeField::side: t.dir = std::get<Side>(v).dir; break;
    default: break;
  }
}

void set_field(const Store& store, RepoTrade& t, TradeField field, const FieldValue& v) {
  check_value(field, v);
  switch (field) {
    case TradeField::bond: t.bond = resolve(store, Kind::bond, id_of(v)); break;
    case TradeField::calendar: t.calendar = resolve(store, Kind::calendar, id_of(v)); break;
    case TradeField::curve: t.curve = resolve(store, Kind::ir_curve, id_of(v)); break;
    case TradeField::end_date: t.end = std::get<Date>(v); break;
    case TradeField::notional: t.notional = std::get<std::int64_t>(v); break;
    case TradeField::start_cash: t.start_cash = std::get<double>(v); break;
    case TradeField::rate: t.rate = std::get<double>(v); break;
    default: break;
  }
}

std::string check_repo_dates(Date start, Date end) {
  if (end >= start) return "";
  return "end_date " + format_date(end) + " is before start_date " + format_date(start);
}

}  // namespace bond_risk
