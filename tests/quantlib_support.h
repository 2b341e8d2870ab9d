// QuantLib as the test suite's independent oracle: MODEL.md's curves as
// daily discount factors written out from the formulas, and its bonds as
// QuantLib FixedRateBonds priced off them.
#pragma once

#include <ql/cashflows/duration.hpp>
#include <ql/instruments/bonds/fixedratebond.hpp>
#include <ql/termstructures/yieldtermstructure.hpp>
#include <ql/time/calendar.hpp>
#include <ql/time/daycounter.hpp>

#include <memory>
#include <vector>

#include "bond_risk/model/pricing/dates.h"
#include "bond_risk/model/pricing/pricing.h"
#include "bond_risk/synth/holiday_rules.h"

namespace test {

// QuantLib's date of `d` (its serial numbers count from 30 December 1899).
QuantLib::Date ql_date(bond_risk::Date d);

// QuantLib 1.29's calendar that `rules` follow: UnitedKingdom(Settlement),
// UnitedStates(GovernmentBond), TARGET.
QuantLib::Calendar quantlib_calendar(bond_risk::HolidayRules rules);

// Daily discount factors from `today` as a QuantLib curve, with times in
// years of `day_counter`: at its nodes, the factors themselves.
QuantLib::ext::shared_ptr<QuantLib::YieldTermStructure> daily_curve(QuantLib::Date today, const std::vector<double>& df,
                                                                   const QuantLib::DayCounter& day_counter);

// Discount factors of MODEL.md for `points` (days 0 .. the last point's - 1),
// written out here from the formulas (not with build_curve).
std::vector<double> discount_factors(const std::vector<bond_risk::CurvePoint>& points);

// The same with point `bumped` moved by `shift`.
std::vector<double> bumped_discount_factors(std::vector<bond_risk::CurvePoint> points, std::size_t bumped, double shift);

// The bond of MODEL.md in QuantLib: a FixedRateBond on a backward,
// unadjusted schedule whose first period starts a whole number of periods
// before maturity, so that every coupon is a full period's (ActualActual
// ISMA on regular periods), priced off a curve of daily discount factors.
class QuantLibBond {
 public:
  QuantLibBond(bond_risk::Date start, bond_risk::Date maturity, int coupons_per_year, double coupon, bond_risk::Date today);
  // Price per 100 nominal off daily discount factors from today.
  double price(const std::vector<double>& df) const;

  // Quote analytics (MODEL.md "Quote analytics") by QuantLib's
  // BondFunctions and CashFlows, settling today, a cash flow paid today
  // included (Settings::includeTodaysCashFlows, as MODEL.md's t >= today).
  // Accrued interest per 100 (the coupon's own ActualActual ISMA accrual).
  double accrued() const;
  // price() less accrued().
  double clean_price(const std::vector<double>& df) const;
  // The ICMA yield (Compounded at the bond's frequency, ActualActual ISMA)
  // of a clean price, and its durations and convexity at yield `y`.
  double yield(double clean) const;
  double duration(double y, QuantLib::Duration::Type type) const;
  double convexity(double y) const;
  // The spread over the continuously compounded ACT/365.25 zero rates of
  // `df` at which the bond is worth `clean` + accrued().
  double z_spread(const std::vector<double>& df, double clean) const;
  // The dirty price at spread `s` over `df`'s zero rates, and
  // (price(s + 1bp) - price(s - 1bp)) / 2.
  double spread_price(const std::vector<double>& df, double s) const;
  double cs01(const std::vector<double>& df, double s) const;

 private:
  void settle_today() const;

  QuantLib::Date today_;
  QuantLib::Frequency frequency_;
  QuantLib::DayCounter icma_;  // ActualActual ISMA on the bond's quasi-coupon dates back to today (see the constructor)
  std::unique_ptr<QuantLib::FixedRateBond> bond_;
};

}  // namespace test
