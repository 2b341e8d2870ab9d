#include "tests/quantlib_support.h"

#include <ql/cashflows/cashflows.hpp>
#include <ql/pricingengines/bond/discountingbondengine.hpp>
#include <ql/settings.hpp>
#include <ql/termstructures/yield/discountcurve.hpp>
#include <ql/time/calendars/nullcalendar.hpp>
#include <ql/time/daycounters/actual365fixed.hpp>
#include <ql/time/daycounters/actualactual.hpp>
#include <ql/time/schedule.hpp>

#include <cmath>

#include "bond_risk/model/status.h"

namespace test {

using bond_risk::CurvePoint;
using bond_risk::Date;
using bond_risk::kNumForwardDays;
using bond_risk::kYearBasis;

namespace {

QuantLib::Date ql_date(Date d) { return QuantLib::Date(static_cast<QuantLib::Date::serial_type>(d + 25569)); }

}  // namespace

std::vector<double> discount_factors(const std::vector<CurvePoint>& points) {
  std::vector<double> df(kNumForwardDays);
  std::size_t k = 0;
  for (int i = 0; i < kNumForwardDays; ++i) {
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
    : today_(ql_date(today)) {
  QuantLib::Settings::instance().evaluationDate() = today_;
  QuantLib::Settings::instance().includeReferenceDateEvents() = true;  // a coupon paid today counts (MODEL.md: t >= today)
  const QuantLib::Period period(12 / coupons_per_year, QuantLib::Months);
  int periods = 0;  // coupon dates strictly after start, counted as QuantLib steps back from maturity
  while (ql_date(maturity) - (periods + 1) * period > ql_date(start)) ++periods;
  const QuantLib::Date first = ql_date(maturity) - (periods + 1) * period;
  const QuantLib::Schedule schedule(first, ql_date(maturity), period, QuantLib::NullCalendar(), QuantLib::Unadjusted,
                                    QuantLib::Unadjusted, QuantLib::DateGeneration::Backward, false);
  bond_ = std::make_unique<QuantLib::FixedRateBond>(
      0, 100.0, schedule, std::vector<QuantLib::Rate>{coupon},
      QuantLib::ActualActual(QuantLib::ActualActual::ISMA, schedule), QuantLib::Unadjusted, 100.0, first);
}

double QuantLibBond::price(const std::vector<double>& df) const {
  QuantLib::Settings::instance().evaluationDate() = today_;
  std::vector<QuantLib::Date> dates;
  for (int i = 0; i < kNumForwardDays; ++i) dates.push_back(today_ + i);
  const QuantLib::Handle<QuantLib::YieldTermStructure> curve(
      QuantLib::ext::make_shared<QuantLib::DiscountCurve>(dates, df, QuantLib::Actual365Fixed()));
  bond_->setPricingEngine(QuantLib::ext::make_shared<QuantLib::DiscountingBondEngine>(curve));
  return bond_->NPV();
}

}  // namespace test
