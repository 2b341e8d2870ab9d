#include "bond_risk/model/conventions/convention.h"

#include <span>

namespace bond_risk {

namespace {

// The index of `text` among `names`, or nullopt.
std::optional<std::size_t> index_of(std::span<const std::string_view> names, std::string_view text) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == text) return i;
  }
  return std::nullopt;
}

std::string one_of(std::span<const std::string_view> names) {
  std::string out;
  for (std::string_view n : names) out.append(out.empty() ? "" : ", ").append(n);
  return out;
}

// Built by append: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
std::string quoted(std::string_view text) { return std::string(1, '\'').append(text.substr(0, 60)).append(1, '\''); }

}  // namespace

ParsedConvention parse_convention(const ConventionRow& row) {
  const std::string where = "bond_convention " + row.name + ": ";
  const auto bad = [&](std::string why) { return ParsedConvention{std::nullopt, where + why}; };
  Convention c;
  const auto whole = [&](std::string_view field, const std::optional<std::int64_t>& value, int max, int& out) {
    if (!value) return std::string(field).append(" is NULL; it must be a whole number 0..").append(std::to_string(max));
    if (*value < 0 || *value > max) {
      return std::string(field) + " " + std::to_string(*value) + " is not within 0.." + std::to_string(max);
    }
    out = static_cast<int>(*value);
    return std::string();
  };
  const auto named = [&](std::string_view field, const std::optional<std::string>& value,
                         std::span<const std::string_view> names, auto& out) {
    if (!value) return std::string(field).append(" is NULL; it must be one of ").append(one_of(names));
    const std::optional<std::size_t> i = index_of(names, *value);
    if (!i) return std::string(field) + " " + quoted(*value) + " is not one of " + one_of(names);
    out = static_cast<std::remove_reference_t<decltype(out)>>(*i);
    return std::string();
  };
  for (std::string why : {whole("settlement_days", row.settlement_days, kMaxSettlementDays, c.settlement_days),
                          named("day_count", row.day_count, kDayCountNames, c.day_count),
                          named("payment_convention", row.payment_convention, kPaymentRuleNames, c.payment),
                          whole("ex_dividend_days", row.ex_dividend_days, kMaxExDividendDays, c.ex_dividend_days),
                          named("yield_compounding", row.yield_compounding, kYieldCompoundingNames,
                                c.yield_compounding)}) {
    if (!why.empty()) return bad(why);
  }
  return {c, ""};
}

}  // namespace bond_risk
