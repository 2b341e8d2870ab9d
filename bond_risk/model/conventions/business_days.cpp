#include "bond_risk/model/conventions/business_days.h"

#include <algorithm>

namespace bond_risk {

namespace {

// A weekday not among `holidays` (ascending): the rule, day by day.
bool weekday_not_holiday(const std::vector<Date>& holidays, Date d) {
  const int w = weekday(d);
  return w != 0 && w != 6 && !std::binary_search(holidays.begin(), holidays.end(), d);
}

}  // namespace

BusinessDays::BusinessDays(std::span<const Date> holidays) {
  for (Date d : holidays) {
    if (weekday(d) != 0 && weekday(d) != 6) holidays_.push_back(d);
  }
  std::sort(holidays_.begin(), holidays_.end());
  holidays_.erase(std::unique(holidays_.begin(), holidays_.end()), holidays_.end());
  // Holidays over more than 200 years (no real calendar lists them; a typo's year could) keep no table.
  if (holidays_.empty() || holidays_.back() - holidays_.front() > 200 * 366) return;
  first_ = holidays_.front() - 366;
  const Date end = holidays_.back() + 367;
  before_.reserve(static_cast<std::size_t>(end - first_) + 1);
  before_.push_back(0);
  for (Date d = first_; d < end; ++d) {
    if (weekday_not_holiday(holidays_, d)) business_.push_back(d);
    before_.push_back(static_cast<std::int32_t>(business_.size()));
  }
}

bool BusinessDays::is_business_day(Date d) const {
  if (in_table(d)) return before_[static_cast<std::size_t>(d - first_) + 1] != before_[static_cast<std::size_t>(d - first_)];
  return weekday_not_holiday(holidays_, d);
}

Date BusinessDays::next(Date d) const {
  if (in_table(d)) {
    const auto k = static_cast<std::size_t>(before_[static_cast<std::size_t>(d - first_)]);
    if (k < business_.size()) return business_[k];
  }
  while (!is_business_day(d)) ++d;
  return d;
}

Date BusinessDays::previous(Date d) const {
  if (in_table(d)) {
    const auto k = static_cast<std::size_t>(before_[static_cast<std::size_t>(d - first_) + 1]);
    if (k > 0) return business_[k - 1];
  }
  while (!is_business_day(d)) --d;
  return d;
}

Date BusinessDays::advance(Date d, int n) const {
  if (n == 0) return next(d);
  if (in_table(d)) {  // the n-th business day after d, or before it
    const std::int64_t k = n > 0 ? std::int64_t{before_[static_cast<std::size_t>(d - first_) + 1]} + n - 1
                                 : std::int64_t{before_[static_cast<std::size_t>(d - first_)]} + n;
    if (k >= 0 && k < static_cast<std::int64_t>(business_.size())) return business_[static_cast<std::size_t>(k)];
  }
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
