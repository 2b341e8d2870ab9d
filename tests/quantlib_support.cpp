#include "tests/quantlib_support.h"

#include <ql/cashflows/cashflows.hpp>
#include <ql/pricingengines/bond/bondfunctions.hpp>
#include <ql/pricingengines/bond/discountingbondengine.hpp>
#include <ql/settings.hpp>
#include <ql/termstructures/yield/discountcurve.hpp>
#include <ql/time/calendars/nullcalendar.hpp>
#include <ql/time/calendars/target.hpp>
#include <ql/time/calendars/unitedkingdom.hpp>
#include <ql/time/calendars/unitedstates.hpp>
#include <ql/time/daycounters/actual36525.hpp>
#include <ql/time/daycounters/actual365fixed.hpp>
#include <ql/time/daycounters/actualactual.hpp>

#include <cmath>

#include "bond_risk/model/pricing/status.h"

namespace test {

using bond_risk::CurvePoint;
using bond_risk::Date;
using bond_risk::kYearBasis;

QuantLib::Date ql_date(Date d) { return QuantLib::Date(static_cast<QuantLib::Date::serial_type>(d + 25569)); }

QuantLib::Calendar quantlib_calendar(bond_risk::HolidayRules rules) {
  switch (rules) {
    case bond_risk::HolidayRules::england_and_wales: return QuantLib::UnitedKingdom(QuantLib::UnitedKingdom::Settlement);
    case bond_risk::HolidayRules::us_government_bond:
      return QuantLib::UnitedStates(QuantLib::UnitedStates::GovernmentBond);
    case bond_risk::HolidayRules::target: return QuantLib::TARGET();
  }
  return QuantLib::TARGET();
}

namespace {

QuantLib::Schedule backward_schedule(QuantLib::Date first, QuantLib::Date maturity, const QuantLib::Period& period) {
  return QuantLib::Schedule(first, maturity, period, QuantLib::NullCalendar(), QuantLib::Unadjusted,
                            QuantLib::Unadjusted, QuantLib::DateGeneration::Backward, false);
}

}  // namespace

QuantLib::ext::shared_ptr<QuantLib::YieldTermStructure> daily_curve(QuantLib::Date today, const std::vector<double>& df,
                                                                   const QuantLib::DayCounter& day_counter) {
  std::vector<QuantLib::Date> dates;
  for (std::size_t i = 0; i < df.size(); ++i) dates.push_back(today + static_cast<QuantLib::Date::serial_type>(i));
  return QuantLib::ext::make_shared<QuantLib::DiscountCurve>(dates, df, day_counter);
}

namespace {

constexpr double kAccuracy = 1e-14;
constexpr QuantLib::Size kMaxIterations = 1000;

}  // namespace

std::vector<double> discount_factors(const std::vector<CurvePoint>& points) {
  const int horizon = points.back().days_forward;
  std::vector<double> df(static_cast<std::size_t>(horizon));
  std::size_t k = 0;
  for (int i = 0; i < horizon; ++i) {
    while (i >= points[k + 1].days_forward) ++k;
    const CurvePoint a = points[k], b = points[k + 1];
    const double r = a.value + (b.value - a.value) * (i - a.days_forward) / (b.days_forward - a.days_forward);
    df[static_cast<std::size_t>(i)] = std::exp(-r * i / kYearBasis);
  }
  return df;
}

std::vector<double> bumped_discount_factors(std::vector<CurvePoint> points, std::size_t bumped, double shift) {
  points[bumped].value += shift;
  return discount_factors(points);
}

QuantLibBond::QuantLibBond(Date start, Date maturity, int coupons_per_year, double coupon, Date today)
    : today_(ql_date(today)), frequency_(static_cast<QuantLib::Frequency>(coupons_per_year)) {
  QuantLib::Settings::instance().evaluationDate() = today_;
  QuantLib::Settings::instance().includeReferenceDateEvents() = true;  // a coupon paid today counts (MODEL.md: t >= today)
  const QuantLib::Period period(12 / coupons_per_year, QuantLib::Months);
  int periods = 0;  // coupon dates strictly after start, counted as QuantLib steps back from maturity
  while (ql_date(maturity) - (periods + 1) * period > ql_date(start)) ++periods;
  const QuantLib::Date first = ql_date(maturity) - (periods + 1) * period;
  const QuantLib::Schedule schedule = backward_schedule(first, ql_date(maturity), period);
  // Yield, durations and convexity count time in ActualActual ISMA on the
  // bond's schedule, which QuantLib 1.29 refuses for dates before its first
  // date: before the first period begins, on the same backward schedule
  // extended by whole quasi-coupon periods to on or before today.
  int extra = 0;
  while (first - extra * period > today_) ++extra;
  icma_ = QuantLib::ActualActual(QuantLib::ActualActual::ISMA,
                                 backward_schedule(first - extra * period, ql_date(maturity), period));
  bond_ = std::make_unique<QuantLib::FixedRateBond>(
      0, 100.0, schedule, std::vector<QuantLib::Rate>{coupon},
      QuantLib::ActualActual(QuantLib::ActualActual::ISMA, schedule), QuantLib::Unadjusted, 100.0, first);
}

double QuantLibBond::price(const std::vector<double>& df) const {
  QuantLib::Settings::instance().evaluationDate() = today_;
  const QuantLib::Handle<QuantLib::YieldTermStructure> curve(daily_curve(today_, df, QuantLib::Actual365Fixed()));
  bond_->setPricingEngine(QuantLib::ext::make_shared<QuantLib::DiscountingBondEngine>(curve));
  return bond_->NPV();
}

// BondFunctions pass includeSettlementDateFlows = false, which would drop a
// coupon paid today; Settings::includeTodaysCashFlows overrides that for
// flows on the evaluation date, so QuantLib counts them as MODEL.md does
// (t >= today: yield, durations, z-spread and accrued on a coupon date).
void QuantLibBond::settle_today() const {
  QuantLib::Settings::instance().evaluationDate() = today_;
  QuantLib::Settings::instance().includeTodaysCashFlows() = true;
}

double QuantLibBond::accrued() const {
  settle_today();
  return QuantLib::BondFunctions::accruedAmount(*bond_, today_);
}

double QuantLibBond::clean_price(const std::vector<double>& df) const {
  settle_today();
  return price(df) - accrued();
}

double QuantLibBond::yield(double clean) const {
  settle_today();
  return QuantLib::BondFunctions::yield(*bond_, clean, icma_, QuantLib::Compounded, frequency_, today_, kAccuracy,
                                        kMaxIterations, 0.05, QuantLib::Bond::Price::Clean);
}

double QuantLibBond::duration(double y, QuantLib::Duration::Type type) const {
  settle_today();
  return QuantLib::BondFunctions::duration(*bond_, QuantLib::InterestRate(y, icma_, QuantLib::Compounded, frequency_),
                                           type, today_);
}

double QuantLibBond::convexity(double y) const {
  settle_today();
  return QuantLib::BondFunctions::convexity(*bond_, QuantLib::InterestRate(y, icma_, QuantLib::Compounded, frequency_),
                                            today_);
}

// ZeroSpreadedTermStructure adds the spread to zero rates in the time of the
// underlying curve's day counter (it ignores the one it is given, QuantLib
// 1.29): a curve in ACT/365.25 years makes a Continuous spread x multiply
// each discount factor by exp(-x * days / 365.25), MODEL.md's P(x).
double QuantLibBond::z_spread(const std::vector<double>& df, double clean) const {
  settle_today();
  return QuantLib::BondFunctions::zSpread(*bond_, clean, daily_curve(today_, df, QuantLib::Actual36525()),
                                          QuantLib::Actual36525(), QuantLib::Continuous, QuantLib::NoFrequency, today_,
                                          kAccuracy, kMaxIterations, 0.0);
}

double QuantLibBond::spread_price(const std::vector<double>& df, double s) const {
  settle_today();
  return QuantLib::CashFlows::npv(bond_->cashflows(), daily_curve(today_, df, QuantLib::Actual36525()), s,
                                  QuantLib::Actual36525(), QuantLib::Continuous, QuantLib::NoFrequency, false, today_,
                                  today_) *
         100.0 / bond_->notional(today_);
}

double QuantLibBond::cs01(const std::vector<double>& df, double s) const {
  return (spread_price(df, s + bond_risk::kBump) - spread_price(df, s - bond_risk::kBump)) / 2;
}

}  // namespace test
