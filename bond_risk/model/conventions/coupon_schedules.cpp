#include "bond_risk/model/conventions/coupon_schedules.h"

#include <limits>
#include <stdexcept>

namespace bond_risk {

void CouponSchedules::lay_out(std::span<const std::size_t> counts, std::span<const Date> from) {
  if (counts.size() != from.size()) throw std::logic_error("CouponSchedules::lay_out: spans of different sizes");
  begin_.assign(1, 0);
  begin_.reserve(counts.size() + 1);
  std::size_t total = 0;
  for (std::size_t n : counts) {
    total += n;
    if (total > std::numeric_limits<std::uint32_t>::max()) throw std::length_error("CouponSchedules: over 4 billion coupon dates");
    begin_.push_back(static_cast<std::uint32_t>(total));
  }
  periods_.assign(total, CouponDate{});
  slots_.resize(counts.size());
  for (std::size_t i = 0; i < from.size(); ++i) slots_[i] = {from[i], 0, 0, 1};
}

std::optional<CouponDates> CouponSchedules::dates(std::size_t bond, const BondTerms& terms, const Convention& convention,
                                                  const BusinessDays& days, Date after) {
  const std::span<CouponDate> periods(periods_.data() + begin_[bond], begin_[bond + 1] - begin_[bond]);
  Slot& slot = slots_[bond];
  if (slot.stale != 0) {
    if (coupon_date_count(terms, slot.from) != periods.size()) throw std::logic_error("CouponSchedules: a slot laid out for other terms");
    const CouponDates built = coupon_dates(terms, convention, days, slot.from, periods);
    slot = {slot.from, built.first_start, built.first_ref_start, 0};
  }
  const CouponDates kept{slot.first_start, slot.first_ref_start, periods};
  if (!serves(kept, terms, after)) return std::nullopt;
  return kept;
}

}  // namespace bond_risk
