#include "bond_risk/model/trade_fields.h"

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

void set_field(const Store& store, OutrightTrade& t, const Column& c, const FieldValue& v) {
  if (c.name == "bond_id") t.bond = resolve(store, Kind::bond, id_of(v));
  else if (c.name == "trade_price") t.trade_price = std::get<double>(v);
  else if (c.name == "quantity") t.quantity = std::get<std::int64_t>(v);
  else if (c.name == "buy_sell") t.dir = std::get<Side>(v).dir;
}

void set_field(const Store& store, RepoTrade& t, const Column& c, const FieldValue& v) {
  if (c.name == "bond_id") t.bond = resolve(store, Kind::bond, id_of(v));
  else if (c.name == "calendar_id") t.calendar = resolve(store, Kind::calendar, id_of(v));
  else if (c.name == "ir_curve_id") t.curve = resolve(store, Kind::ir_curve, id_of(v));
  else if (c.name == "end_date") t.end = std::get<Date>(v);
  else if (c.name == "notional") t.notional = std::get<std::int64_t>(v);
  else if (c.name == "start_cash") t.start_cash = std::get<double>(v);
  else if (c.name == "rate") t.rate = std::get<double>(v);
}

std::string check_repo_dates(Date start, Date end) {
  if (end >= start) return "";
  return "end_date " + format_date(end) + " is before start_date " + format_date(start);
}

}  // namespace bond_risk
