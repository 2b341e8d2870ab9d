#include "bond_risk/model/inputs/input_tables.h"

#include <charconv>
#include <cmath>

namespace bond_risk {

namespace {

using T = ColumnType;

constexpr Column kCalendar[] = {{"id", T::id}, {"name", T::name}, {"today", T::date}};
constexpr Column kCurve[] = {{"id", T::id}, {"name", T::name}, {"ccy", T::text}};
constexpr Column kRate[] = {{"ir_curve_id", T::reference, Kind::ir_curve},
                            {"idx", T::integer},
                            {"days_forward", T::integer},
                            {"value", T::real}};
constexpr Column kBond[] = {{"id", T::id},
                            {"name", T::name},
                            {"calendar_id", T::reference, Kind::calendar},
                            {"ir_curve_id", T::reference, Kind::ir_curve},
                            {"start_date", T::date},
                            {"maturity_date", T::date},
                            {"coupons_per_year", T::integer},
                            {"coupon", T::real},
                            {"convention", T::text, Kind::calendar, false, true},
                            {"isin", T::text, Kind::calendar, false, true}};
constexpr Column kConvention[] = {{"name", T::text},
                                  {"settlement_days", T::integer},
                                  {"day_count", T::text},
                                  {"payment_convention", T::text},
                                  {"ex_dividend_days", T::integer},
                                  {"yield_compounding", T::text}};
constexpr Column kHoliday[] = {{"calendar_id", T::reference, Kind::calendar}, {"date", T::date}};
constexpr Column kQuote[] = {{"bond_id", T::reference, Kind::bond}, {"clean_price", T::real}};
constexpr Column kOutright[] = {{"id", T::id},
                                {"name", T::name},
                                {"bond_id", T::reference, Kind::bond, true},
                                {"trade_date", T::date},
                                {"trade_price", T::real, Kind::calendar, true},
                                {"quantity", T::integer, Kind::calendar, true},
                                {"buy_sell", T::side, Kind::calendar, true}};
constexpr Column kRepo[] = {{"id", T::id},
                            {"name", T::name},
                            {"bond_id", T::reference, Kind::bond, true},
                            {"calendar_id", T::reference, Kind::calendar},
                            {"ir_curve_id", T::reference, Kind::ir_curve},
                            {"start_date", T::date},
                            {"end_date", T::date, Kind::calendar, true},
                            {"notional", T::integer, Kind::calendar, true},
                            {"start_cash", T::real, Kind::calendar, true},
                            {"rate", T::real, Kind::calendar, true},
                            {"cash_ccy", T::text, Kind::calendar, true},
                            {"buy_sell", T::side, Kind::calendar, true}};
constexpr Column kBook[] = {{"id", T::id}, {"name", T::name}};
constexpr Column kOutrightMember[] = {{"book_id", T::reference, Kind::outright_book},
                                      {"trade_id", T::reference, Kind::outright_trade}};
constexpr Column kRepoMember[] = {{"book_id", T::reference, Kind::repo_book},
                                  {"trade_id", T::reference, Kind::repo_trade}};

constexpr InputTable kTables[] = {
    {"calendar", "id", kCalendar},
    {"calendar_holiday", "calendar_id", kHoliday, true},
    {"bond_convention", "rowid", kConvention, true},
    {"ir_curve", "id", kCurve},
    {"ir_curve_input_rate", "ir_curve_id", kRate},
    {"bond", "id", kBond},
    {"bond_quote", "bond_id", kQuote, true},
    {"outright_trade", "id", kOutright},
    {"repo_trade", "id", kRepo},
    {"outright_book", "id", kBook},
    {"outright_book_trade", "book_id", kOutrightMember},
    {"repo_book", "id", kBook},
    {"repo_book_trade", "book_id", kRepoMember},
};

// Built by append: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
std::string quoted(std::string_view text) { return std::string(1, '\'').append(text.substr(0, 60)).append(1, '\''); }

}  // namespace

const Column* InputTable::find(std::string_view column) const {
  for (const Column& c : columns) {
    if (c.name == column) return &c;
  }
  return nullptr;
}

int InputTable::index(std::string_view column) const {
  const Column* c = find(column);
  if (!c) throw std::logic_error(std::string(name) + " has no column " + std::string(column));
  return static_cast<int>(c - columns.data());
}

std::string InputTable::column_list() const {
  std::string out;
  for (const Column& c : columns) out.append(out.empty() ? "" : ", ").append(c.name);
  return out;
}

std::string InputTable::settable_list() const {
  std::string out;
  for (const Column& c : columns) {
    if (c.type != ColumnType::id) out.append(out.empty() ? "" : ", ").append(c.name);
  }
  return out;
}

std::span<const InputTable> input_tables() { return kTables; }

const InputTable& input_table(Kind kind) { return input_table(kind_name(kind)); }

const InputTable& input_table(std::string_view name) {
  for (const InputTable& t : kTables) {
    if (t.name == name) return t;
  }
  throw std::logic_error("no input table " + std::string(name));
}

const InputTable& membership_table(Kind book_kind) {
  for (const InputTable& t : kTables) {
    if (t.name.starts_with(kind_name(book_kind)) && t.name.ends_with("_trade")) return t;
  }
  throw std::logic_error("no membership table for " + std::string(kind_name(book_kind)));
}

FieldValue parse_field(const Column& column, std::string_view text) {
  const std::string what = std::string(column.name) + " " + quoted(text);
  switch (column.type) {
    case ColumnType::id:
    case ColumnType::integer:
    case ColumnType::reference: {
      std::int64_t v = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
        throw FieldError(what + " is not a whole number");
      }
      return v;
    }
    case ColumnType::real: {
      // A leading '+' as a desk types a move ("+5"); from_chars takes only '-'.
      const std::string_view number = text.size() > 1 && text[0] == '+' && text[1] != '-' ? text.substr(1) : text;
      double v = 0;
      const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
      if (number.empty() || ec != std::errc() || end != number.data() + number.size() || !std::isfinite(v)) {
        throw FieldError(what + " is not a finite number");
      }
      return v;
    }
    case ColumnType::date: {
      const auto d = parse_date(text);
      if (!d) throw FieldError(what + " is not a YYYY-MM-DD date");
      return *d;
    }
    case ColumnType::side:
      if (text == "BUY") return Side{1};
      if (text == "SELL") return Side{-1};
      throw FieldError(what + " is not BUY or SELL");
    case ColumnType::text: return std::string(text);
    case ColumnType::name:
      if (text.empty() || text.find_first_not_of("0123456789") == std::string_view::npos) {
        throw FieldError(what + " is not a name: a name must not be empty or all digits (those are ids)");
      }
      return std::string(text);
  }
  throw std::logic_error("parse_field: unknown column type");
}

std::string field_text(const FieldValue& value) {
  struct Text {
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const {
      char buf[32];
      const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
      return std::string(buf, end);
    }
    std::string operator()(Date d) const { return format_date(d); }
    std::string operator()(Side s) const { return s.dir > 0 ? "BUY" : "SELL"; }
    std::string operator()(const std::string& s) const { return s; }
  };
  return std::visit(Text{}, value);
}

}  // namespace bond_risk
