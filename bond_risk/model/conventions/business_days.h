// A calendar's business days (docs/model.md "Market conventions"): Monday to
// Friday, less its calendar_holiday dates. Moves dates as QuantLib 1.29's
// Calendar does (advance by business days, adjust by a payment rule).
//
// Model. From a year before its first holiday to a year after its last,
// a table counts the business days before each day and lists them, so
// that a move is two look-ups (a convention bond moves every coupon's
// payment and ex date at each flush); outside it, and for a calendar
// without holidays or whose holidays span over 200 years, days are
// stepped one at a time. Both give the same dates. A value: read from any
// thread once built.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "bond_risk/model/conventions/convention.h"
#include "bond_risk/model/pricing/dates.h"

namespace bond_risk {

// 0 = Sunday .. 6 = Saturday (1970-01-01, day 0, was a Thursday).
constexpr int weekday(Date d) { return ((d % 7) + 7 + 4) % 7; }

class BusinessDays {
 public:
  BusinessDays() = default;  // every weekday is a business day
  // Any order, repeats and weekend dates allowed (a weekend is never a business day anyway).
  explicit BusinessDays(std::span<const Date> holidays);

  bool is_business_day(Date d) const;

  // `n` business days after `d` (before it when n < 0), stepping a day at
  // a time and over every non-business day; with n = 0, `d` if it is a
  // business day, else the next one (QuantLib's advance in Days).
  Date advance(Date d, int n) const;

  // A payment date moved by `rule`: FOLLOWING to the next business day;
  // MODIFIED_FOLLOWING likewise unless that leaves the month, then to the
  // previous one; UNADJUSTED not at all.
  Date adjust(Date d, PaymentRule rule) const;

 private:
  Date next(Date d) const;      // d, or the first business day after it
  Date previous(Date d) const;  // d, or the last business day before it
  bool in_table(Date d) const { return d >= first_ && d < first_ + static_cast<Date>(before_.size()) - 1; }
  std::vector<Date> holidays_;  // weekdays only, ascending, no repeats
  Date first_ = 0;                     // the table's first day
  std::vector<std::int32_t> before_;   // before_[d - first_]: business days in [first_, d), one past the last day too
  std::vector<Date> business_;         // the table's business days, ascending
};

}  // namespace bond_risk
