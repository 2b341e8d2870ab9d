#include "bond_risk/model/conventions/coupon_schedules.h"

#include <stdexcept>

namespace bond_risk {

void CouponSchedules::lay_out(std::span<const std::size_t> counts, std::span<const Date> from) {
  if (counts.size() != from.size()) throw std::logic_error("CouponSchedules::lay_out: spans of different sizes");
  begin_.assign(1, 0);
  begin_.reserve(counts.size() + 1);
  for (std::size_t n : counts) begin_.push_back(begin_.back() + n);
  periods_.assign(begin_.back(), CouponDate{});
  built_.resize(counts.size());
  for (std::size_t i = 0; i < from.size(); ++i) built_[i] = {from[i], 0, 0, {}};
  stale_.assign(counts.size(), 1);
}

std::optional<CouponDates> CouponSchedules::dates(std::size_t bond, const BondTerms& terms, const Convention& convention,
                                                  const BusinessDays& days, Date after) {
  const std::span<CouponDate> slot(periods_.data() + begin_[bond], begin_[bond + 1] - begin_[bond]);
  CouponDates& built = built_[bond];
  if (stale_[bond] != 0) {
    if (coupon_date_count(terms, built.from) != slot.size()) throw std::logic_error("CouponSchedules: a slot laid out for other terms");
    built = coupon_dates(terms, convention, days, built.from, slot);
    stale_[bond] = 0;
  }
  if (after < built.from && built.first_start != terms.start) return std::nullopt;
  return CouponDates{built.from, built.first_start, built.first_ref_start, slot};
}

}  // namespace bond_risk
