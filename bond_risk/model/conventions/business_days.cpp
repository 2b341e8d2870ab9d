#include "bond_risk/model/conventions/business_days.h"

#include <algorithm>

namespace bond_risk {

BusinessDays::BusinessDays(std::span<const Date> holidays) {
  for (Date d : holidays) {
    if (weekday(d) != 0 && weekday(d) != 6) holidays_.push_back(d);
  }
  std::sort(holidays_.begin(), holidays_.end());
  holidays_.erase(std::unique(holidays_.begin(), holidays_.end()), holidays_.end());
}

bool BusinessDays::is_business_day(Date d) const {
  const int w = weekday(d);
  return w != 0 && w != 6 && !std::binary_search(holidays_.begin(), holidays_.end(), d);
}

Date BusinessDays::next(Date d) const {
  while (!is_business_day(d)) ++d;
  return d;
}

Date BusinessDays::previous(Date d) const {
  while (!is_business_day(d)) --d;
  return d;
}

Date BusinessDays::advance(Date d, int n) const {
  if (n == 0) return next(d);
  for (; n > 0; --n) d = next(d + 1);
  for (; n < 0; ++n) d = previous(d - 1);
  return d;
}

Date BusinessDays::adjust(Date d, PaymentRule rule) const {
  switch (rule) {
    case PaymentRule::unadjusted: return d;
    case PaymentRule::following: return next(d);
    case PaymentRule::modified_following: {
      const Date later = next(d);
      return month_number(later) == month_number(d) ? later : previous(d);
    }
  }
  return d;
}

}  // namespace bond_risk
