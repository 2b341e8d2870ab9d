// A convention bond's cash flows (docs/model.md "Market conventions"), as
// QuantLib 1.29's FixedRateBond builds them: accrual dates on the trad4
// schedule (backward from maturity, unadjusted) from the dated date, the
// first period short when the dated date is off the schedule (its reference
// period then the regular one ending where it ends); each coupon paid on its
// accrual end adjusted by the payment rule, ex-dividend from the day
// ex_dividend_days business days before that; the redemption paid with the
// last coupon.
//
// In two steps: a bond's coupon dates (accrual ends, payments, ex dates),
// which depend on its terms, its calendar and its convention alone, so a
// running engine keeps them from one recalculation to the next
// (model/conventions/coupon_schedules.h); then, from those, the flows
// still to be paid after a given day, in a fixed array, so building them
// allocates nothing.
#pragma once

#include <array>
#include <cstddef>
#include <limits>
#include <span>

#include "bond_risk/model/conventions/business_days.h"
#include "bond_risk/model/conventions/convention.h"
#include "bond_risk/model/pricing/dates.h"

namespace bond_risk {

inline constexpr Date kNeverEx = std::numeric_limits<Date>::max();

struct CouponFlow {
  Date accrual_start, accrual_end;  // unadjusted
  Date ref_start, ref_end;          // the period the day count measures against
  Date pay;                         // accrual_end adjusted by the payment rule
  Date ex;                          // a buyer settling on or after it does not receive it; kNeverEx: never
  double fraction;                  // year_fraction(accrual_start, accrual_end, ref_start, ref_end)
  double amount;                    // per 100 nominal: 100 * coupon * fraction
};

// What a bond is, besides its convention and calendar.
struct BondTerms {
  Date start, maturity;  // the dated date and the maturity, start < maturity
  int coupons_per_year;  // 1, 2 or 4
  double coupon;         // annual rate
};

// A schedule's coupons paid after some day, in date order, and the redemption of 100.
struct ConventionFlows {
  // Coupons paid after a day within 60 years of maturity: quarterly, at most 4 * 61 + a few.
  static constexpr std::size_t kCapacity = 256;
  std::array<CouponFlow, kCapacity> coupon;
  std::size_t count = 0;
  Date redemption_pay = 0;
  double rate = 0;  // the annual coupon rate the amounts accrue at

  const CouponFlow* begin() const { return coupon.data(); }
  const CouponFlow* end() const { return coupon.data() + count; }
};

// One coupon period's dates.
struct CouponDate {
  Date end;  // its accrual end, unadjusted
  Date pay;  // end adjusted by the payment rule
  Date ex;   // ex_dividend_days business days before pay; kNeverEx without ex-dividend days
};

// Some of a bond's coupon dates: its periods in date order, the last
// ending at its maturity, back to those a buyer after some day may still
// be paid (ending less than a year before it), and where the first of
// them accrues from.
inline constexpr std::size_t kMaxCouponDates = 62 * 4;  // quarterly over a curve's 60 years, a year before and a period
struct CouponDates {
  Date first_start = 0, first_ref_start = 0;  // the first period's accrual start and reference period's start
  std::span<const CouponDate> periods;
};
static_assert(kMaxCouponDates <= ConventionFlows::kCapacity);

// Whether `dates` (of `terms`) hold every period a buyer after `after` may
// be paid on: they reach back to the bond's first period, or to a period
// ending a year before `after` (a payment moves less than a year).
inline bool serves(const CouponDates& dates, const BondTerms& terms, Date after) {
  return dates.first_start == terms.start || dates.first_start <= after - 367;
}

// How many periods coupon_dates() writes for `terms` and `after`: at most
// kMaxCouponDates (a bond maturing beyond any curve gets its last ones);
// 0 when none ends after the start and within a year before `after`, or
// coupons_per_year is not 1, 2 or 4.
std::size_t coupon_date_count(const BondTerms& terms, Date after);

// The coupon dates of `terms` a buyer after `after` may be paid on, under
// `convention`'s payment rule and ex-dividend days on `days`, into out[0
// .. coupon_date_count(terms, after)) (throws std::logic_error when `out`
// is shorter). They serve `after` and any later day (serves()). Requires
// a calendar that moves no payment by more than a year.
CouponDates coupon_dates(const BondTerms& terms, const Convention& convention, const BusinessDays& days, Date after,
                         std::span<CouponDate> out);

// The coupons on `dates` (of `terms`, under `convention`) paid after
// `after`, in `convention`'s day count; std::logic_error unless the dates
// serve `after`. Requires maturity - after < 60 years (a curve's longest
// horizon).
void convention_flows(const BondTerms& terms, const Convention& convention, const CouponDates& dates, Date after,
                      ConventionFlows& out);

// The same, the coupon dates found first (off the hot path: tests, the
// generator, a scenario set's base).
void convention_flows(const BondTerms& terms, const Convention& convention, const BusinessDays& days, Date after,
                      ConventionFlows& out);

}  // namespace bond_risk
