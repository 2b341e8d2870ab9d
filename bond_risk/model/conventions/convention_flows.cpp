#include "bond_risk/model/conventions/convention_flows.h"

#include <algorithm>
#include <stdexcept>

#include "bond_risk/model/conventions/day_count.h"

namespace bond_risk {

void convention_flows(const BondTerms& terms, const Convention& convention, const BusinessDays& days, Date after,
                      ConventionFlows& out) {
  const int step = 12 / terms.coupons_per_year;
  out.count = 0;
  out.rate = terms.coupon;
  out.redemption_pay = days.adjust(terms.maturity, convention.payment);
  // Backward from maturity; a payment moves less than a year from its date, so earlier ones are all paid.
  for (int k = 0;; ++k) {
    const Date end = add_months(terms.maturity, -k * step);
    if (end <= terms.start || end < after - 366) break;
    const Date quasi_start = add_months(terms.maturity, -(k + 1) * step);
    const bool first = quasi_start <= terms.start;
    const Date start = first ? terms.start : quasi_start;
    // A regular period measures against itself; a short first one against the regular period ending with it.
    const Date ref_start = first && start != quasi_start ? add_months(end, -step) : start;
    const Date pay = days.adjust(end, convention.payment);
    if (pay <= after) continue;
    if (out.count == ConventionFlows::kCapacity) throw std::logic_error("convention_flows: more coupons than a curve holds");
    const Date ex = convention.ex_dividend_days == 0 ? kNeverEx : days.advance(pay, -convention.ex_dividend_days);
    const double fraction = year_fraction(convention.day_count, start, end, ref_start, end);
    out.coupon[out.count++] = {start, end, ref_start, end, pay, ex, fraction, 100 * terms.coupon * fraction};
  }
  std::reverse(out.coupon.begin(), out.coupon.begin() + static_cast<std::ptrdiff_t>(out.count));
}

}  // namespace bond_risk
