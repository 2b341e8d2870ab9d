// A calendar's business days (docs/model.md "Market conventions"): Monday to
// Friday, less its calendar_holiday dates. Moves dates as QuantLib 1.29's
// Calendar does (advance by business days, adjust by a payment rule).
// A value: read from any thread once built.
#pragma once

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

  std::span<const Date> holidays() const { return holidays_; }

 private:
  Date next(Date d) const;      // d, or the first business day after it
  Date previous(Date d) const;  // d, or the last business day before it
  std::vector<Date> holidays_;  // weekdays only, ascending, no repeats
};

}  // namespace bond_risk
