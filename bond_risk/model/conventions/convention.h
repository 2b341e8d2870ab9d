// A market's conventions for a bond (docs/model.md "Market conventions"): a
// row of bond_convention as a value, its fields checked one by one. A bond
// that names one is valued by model/conventions/convention_figures.h; one
// that names none keeps the trad4 model.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bond_risk {

// How a coupon's fraction of a year is counted (QuantLib 1.29's
// ActualActual(ISMA) on the coupon's own reference period,
// Thirty360(BondBasis), Thirty360(European)).
enum class DayCount : std::uint8_t { act_act_icma, thirty_360, thirty_e_360 };
// How a payment date that is not a business day moves.
enum class PaymentRule : std::uint8_t { unadjusted, following, modified_following };
// How the yield compounds: f times a year; or so while more than one flow
// date remains, and simple interest in the last period.
enum class YieldCompounding : std::uint8_t { compounded, simple_in_last_period };

inline constexpr std::array<std::string_view, 3> kDayCountNames = {"ACT/ACT-ICMA", "30/360", "30E/360"};
inline constexpr std::array<std::string_view, 3> kPaymentRuleNames = {"UNADJUSTED", "FOLLOWING", "MODIFIED_FOLLOWING"};
inline constexpr std::array<std::string_view, 2> kYieldCompoundingNames = {"COMPOUNDED", "SIMPLE_IN_LAST_PERIOD"};

inline constexpr int kMaxSettlementDays = 7;
inline constexpr int kMaxExDividendDays = 15;

struct Convention {
  int settlement_days = 0;  // business days from today to settlement, 0 .. kMaxSettlementDays
  DayCount day_count = DayCount::act_act_icma;
  PaymentRule payment = PaymentRule::unadjusted;
  int ex_dividend_days = 0;  // business days before a payment when it goes ex, 0 (never) .. kMaxExDividendDays
  YieldCompounding yield_compounding = YieldCompounding::compounded;
  friend bool operator==(const Convention&, const Convention&) = default;
};

// A bond_convention row as stored: each field as read, NULL as nullopt.
struct ConventionRow {
  std::string name;
  std::optional<std::int64_t> settlement_days, ex_dividend_days;
  std::optional<std::string> day_count, payment_convention, yield_compounding;
};

// The convention of a row, or why it is none: the first bad field named
// with its value and the values it may take, e.g. "bond_convention UK_GILT:
// day_count 'ACT/365' is not one of ACT/ACT-ICMA, 30/360, 30E/360".
struct ParsedConvention {
  std::optional<Convention> convention;
  std::string reason;  // "" when convention holds a value
};
ParsedConvention parse_convention(const ConventionRow& row);

}  // namespace bond_risk
