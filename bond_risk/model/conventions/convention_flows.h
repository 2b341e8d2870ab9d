// A convention bond's cash flows (docs/model.md "Market conventions"), as
// QuantLib 1.29's FixedRateBond builds them: accrual dates on the trad4
// schedule (backward from maturity, unadjusted) from the dated date, the
// first period short when the dated date is off the schedule (its reference
// period then the regular one ending where it ends); each coupon paid on its
// accrual end adjusted by the payment rule, ex-dividend from the day
// ex_dividend_days business days before that; the redemption paid with the
// last coupon. Only the flows still to be paid after a given day are kept:
// they fit a fixed array, so building them allocates nothing.
#pragma once

#include <array>
#include <cstddef>
#include <limits>

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

// The coupons of `terms` paid after `after` (all of them when none is
// before it), in `convention`'s day count, payment rule and ex-dividend
// days on `days`. Requires maturity - after < 60 years (a curve's longest
// horizon) and a calendar that moves no payment by more than a year.
void convention_flows(const BondTerms& terms, const Convention& convention, const BusinessDays& days, Date after,
                      ConventionFlows& out);

}  // namespace bond_risk
