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
  // Each period's start is the next one's end: one date computed a period.
  Date end = terms.maturity;
  const MonthSteps from_maturity(terms.maturity);
  for (int k = 0; end > terms.start && end >= after - 366; ++k) {
    const Date quasi_start = from_maturity(-(k + 1) * step);
    const bool first = quasi_start <= terms.start;
    const Date start = first ? terms.start : quasi_start;
    // A regular period measures against itself; a short first one against the regular period ending with it.
    const Date ref_start = first && start != quasi_start ? add_months(end, -step) : start;
    const Date pay = days.adjust(end, convention.payment);
    if (pay > after) {
      if (out.count == ConventionFlows::kCapacity) throw std::logic_error("convention_flows: more coupons than a curve holds");
      const Date ex = convention.ex_dividend_days == 0 ? kNeverEx : days.advance(pay, -convention.ex_dividend_days);
      // ACT/ACT-ICMA of a whole period against itself is its months over 12 (QuantLib rounds 12 days / 365 to
      // the months, which for 1, 3, 6 and 12 months is the step), exactly: the division is not done.
      const double fraction = convention.day_count == DayCount::act_act_icma && start == ref_start
                                  ? step / 12.0
                                  : year_fraction(convention.day_count, start, end, ref_start, end);
      out.coupon[out.count++] = {start, end, ref_start, end, pay, ex, fraction, 100 * terms.coupon * fraction};
    }
    end = quasi_start;
  }
  std::reverse(out.coupon.begin(), out.coupon.begin() + static_cast<std::ptrdiff_t>(out.count));
}

}  // namespace bond_risk
