#include "bond_risk/model/conventions/convention_flows.h"

#include <algorithm>
#include <stdexcept>

#include "bond_risk/model/conventions/day_count.h"

namespace bond_risk {

namespace {

// The periods k = 0, 1, .. back from maturity end maturity - k * step months;
// those ending after the start are the bond's. How many of them end after
// `floor` (>= the start), uncapped.
std::size_t periods_ending_after(const BondTerms& terms, Date floor) {
  if (terms.maturity <= floor || (terms.coupons_per_year != 1 && terms.coupons_per_year != 2 && terms.coupons_per_year != 4)) {
    return 0;
  }
  const int step = 12 / terms.coupons_per_year;
  const int last = (month_number(terms.maturity) - month_number(floor)) / step;  // the furthest back in a later month or floor's
  return static_cast<std::size_t>(MonthSteps(terms.maturity)(-last * step) > floor ? last + 1 : last);
}

// Where the periods a flow after `after` may come from begin: a payment
// moves less than a year from its date, so periods ending a year or more
// before it are paid.
Date window_floor(const BondTerms& terms, Date after) { return std::max(terms.start, after - 367); }

}  // namespace

std::size_t coupon_date_count(const BondTerms& terms, Date after) {
  const std::size_t n = periods_ending_after(terms, window_floor(terms, after));  // 0 unless coupons_per_year is 1, 2 or 4
  return std::min(n, kMaxCouponDates);
}

CouponDates coupon_dates(const BondTerms& terms, const Convention& convention, const BusinessDays& days, Date after,
                         std::span<CouponDate> out) {
  const std::size_t n = coupon_date_count(terms, after);
  // None: they reach back to maturity, which serves no day before it that could be paid a coupon (serves()).
  if (n == 0) return {terms.maturity, terms.maturity, {}};
  if (out.size() < n) throw std::logic_error("coupon_dates: fewer places than coupon_date_count's");
  const int step = 12 / terms.coupons_per_year;
  const MonthSteps from_maturity(terms.maturity);
  // Period k is out[n - 1 - k]; each period's start is the next one back's end.
  for (std::size_t k = 0; k < n; ++k) {
    const Date end = from_maturity(-static_cast<int>(k) * step);
    const Date pay = days.adjust(end, convention.payment);
    const Date ex = convention.ex_dividend_days == 0 ? kNeverEx : days.advance(pay, -convention.ex_dividend_days);
    out[n - 1 - k] = {end, pay, ex};
  }
  CouponDates dates{0, 0, out.first(n)};
  const Date quasi_start = from_maturity(-static_cast<int>(n) * step);
  if (quasi_start > terms.start) {  // periods before these were paid (or are beyond any curve): not the bond's first
    dates.first_start = dates.first_ref_start = quasi_start;
  } else {  // the bond's first period: short, against the regular period ending where it ends, when it starts off the schedule
    dates.first_start = terms.start;
    dates.first_ref_start = terms.start != quasi_start ? add_months(out[0].end, -step) : terms.start;
  }
  return dates;
}

void convention_flows(const BondTerms& terms, const Convention& convention, const CouponDates& dates, Date after,
                      ConventionFlows& out) {
  const int step = 12 / terms.coupons_per_year;
  out.count = 0;
  out.rate = terms.coupon;
  out.redemption_pay = dates.periods.empty() ? terms.maturity : dates.periods.back().pay;
  if (!serves(dates, terms, after)) {
    throw std::logic_error("convention_flows: coupon dates that do not reach back to every flow still to be paid");
  }
  Date start = dates.first_start, ref_start = dates.first_ref_start;
  for (const CouponDate& d : dates.periods) {
    if (d.pay > after) {
      // ACT/ACT-ICMA of a whole period against itself is its months over 12 (QuantLib rounds 12 days / 365 to
      // the months, which for 1, 3, 6 and 12 months is the step), exactly: the division is not done.
      const double fraction = convention.day_count == DayCount::act_act_icma && start == ref_start
                                  ? step / 12.0
                                  : year_fraction(convention.day_count, start, d.end, ref_start, d.end);
      out.coupon[out.count++] = {start, d.end, ref_start, d.end, d.pay, d.ex, fraction, 100 * terms.coupon * fraction};
    }
    start = ref_start = d.end;
  }
}

void convention_flows(const BondTerms& terms, const Convention& convention, const BusinessDays& days, Date after,
                      ConventionFlows& out) {
  std::array<CouponDate, kMaxCouponDates> dates;
  convention_flows(terms, convention, coupon_dates(terms, convention, days, after, dates), after, out);
}

}  // namespace bond_risk
