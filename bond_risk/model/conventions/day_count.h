// A coupon's fraction of a year in a bond's day count (docs/model.md "Market
// conventions"), as QuantLib 1.29 counts it: ActualActual(ISMA) without a
// schedule (the fraction of the reference period, times the period's
// length in months / 12), Thirty360(BondBasis), Thirty360(European).
#pragma once

#include "bond_risk/model/conventions/convention.h"
#include "bond_risk/model/pricing/dates.h"

namespace bond_risk {

// The fraction from d1 to d2 (negative when d2 < d1) against the
// reference period ref_start .. ref_end (ref_start < ref_end), which only
// ACT/ACT-ICMA reads; a span that begins before and ends after it is a
// logic error (no coupon's is).
double year_fraction(DayCount count, Date d1, Date d2, Date ref_start, Date ref_end);

}  // namespace bond_risk
