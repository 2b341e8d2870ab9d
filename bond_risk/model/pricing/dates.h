// Calendar dates as whole days since 1970-01-01, and ISO YYYY-MM-DD text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bond_risk {

using Date = std::int32_t;

// The date of "YYYY-MM-DD", or nullopt if the text is not exactly a valid date.
std::optional<Date> parse_date(std::string_view text);

std::string format_date(Date date);

// `date` moved by `months` (may be negative); a day past the end of the
// target month becomes that month's last day (31 Mar - 1 month = 28/29 Feb).
Date add_months(Date date, int months);

// add_months of one date by many counts (a schedule's dates), the date
// read once rather than at each.
class MonthSteps {
 public:
  explicit MonthSteps(Date date);
  Date operator()(int months) const;  // add_months(date, months)

 private:
  int month_number_ = 0;  // as month_number()
  unsigned day_ = 1;
};

// The month of `date` counted from year 0: year * 12 + month - 1.
int month_number(Date date);

}  // namespace bond_risk
