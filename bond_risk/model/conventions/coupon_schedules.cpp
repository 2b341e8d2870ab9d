#include "bond_risk/model/conventions/coupon_schedules.h"

#include <stdexcept>

namespace bond_risk {

void CouponSchedules::lay_out(std::span<const std::size_t> counts) {
  begin_.assign(1, 0);
  begin_.reserve(counts.size() + 1);
  for (std::size_t n : counts) begin_.push_back(begin_.back() + n);
  periods_.assign(begin_.back(), CouponDate{});
  first_.assign(counts.size(), FirstStart{});
  stale_.assign(counts.size(), 1);
}

CouponDates CouponSchedules::dates(std::size_t bond, const BondTerms& terms, const Convention& convention,
                                   const BusinessDays& days) {
  const std::span<CouponDate> slot(periods_.data() + begin_[bond], begin_[bond + 1] - begin_[bond]);
  if (stale_[bond] != 0) {
    if (coupon_date_count(terms) != slot.size()) throw std::logic_error("CouponSchedules: a slot laid out for other terms");
    const CouponDates built = coupon_dates(terms, convention, days, slot);
    first_[bond] = {built.first_start, built.first_ref_start};
    stale_[bond] = 0;
  }
  return {first_[bond].start, first_[bond].ref_start, slot};
}

}  // namespace bond_risk
