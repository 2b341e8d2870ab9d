// QuantLib 1.29 as the oracle of convention bonds (docs/model.md "Market
// conventions"): a FixedRateBond built from a bond's fields as the model
// says (backward unadjusted schedule from the dated date; the market's
// calendar for settlement, payments and ex-coupon dates; includeSettlement-
// DateFlows false), priced off daily discount factors; yields from its
// coupons re-timed by their unadjusted dates, as the model times them.
#pragma once

#include <vector>

#include "bond_risk/model/conventions/convention_flows.h"
#include "bond_risk/synth/holiday_rules.h"

namespace test {

struct ConventionBond {
  bond_risk::HolidayRules calendar;  // QuantLib's calendar of these rules (quantlib_calendar)
  bond_risk::Convention convention;
  bond_risk::BondTerms terms;
  bond_risk::Date today;
};

// Every figure the model publishes for a convention bond.
struct ConventionOracle {
  bond_risk::Date settlement;
  double price, pv01, dirty, accrued, clean, yield, macaulay, modified, convexity;
  double quote_yield, z_spread, cs01;
};

// Its figures off discount factors `df` (days from today) and their
// parallel shifts by one basis point `up` and `dn`, with clean quote `quote`.
ConventionOracle quantlib_convention_figures(const ConventionBond& bond, double quote, const std::vector<double>& df,
                                             const std::vector<double>& up, const std::vector<double>& dn);

}  // namespace test
