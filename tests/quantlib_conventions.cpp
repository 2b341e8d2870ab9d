#include "tests/quantlib_conventions.h"

#include <ql/cashflows/cashflows.hpp>
#include <ql/cashflows/fixedratecoupon.hpp>
#include <ql/cashflows/simplecashflow.hpp>
#include <ql/instruments/bonds/fixedratebond.hpp>
#include <ql/pricingengines/bond/bondfunctions.hpp>
#include <ql/settings.hpp>
#include <ql/time/calendars/nullcalendar.hpp>
#include <ql/time/daycounters/actual36525.hpp>
#include <ql/time/daycounters/actualactual.hpp>
#include <ql/time/daycounters/thirty360.hpp>

#include "bond_risk/model/pricing/status.h"
#include "tests/quantlib_support.h"

namespace test {

using namespace bond_risk;

namespace {

QuantLib::DayCounter quantlib_day_count(DayCount count) {
  switch (count) {
    case DayCount::act_act_icma: return QuantLib::ActualActual(QuantLib::ActualActual::ISMA);
    case DayCount::thirty_360: return QuantLib::Thirty360(QuantLib::Thirty360::BondBasis);
    case DayCount::thirty_e_360: return QuantLib::Thirty360(QuantLib::Thirty360::European);
  }
  return QuantLib::ActualActual(QuantLib::ActualActual::ISMA);
}

QuantLib::BusinessDayConvention quantlib_rule(PaymentRule rule) {
  switch (rule) {
    case PaymentRule::unadjusted: return QuantLib::Unadjusted;
    case PaymentRule::following: return QuantLib::Following;
    case PaymentRule::modified_following: return QuantLib::ModifiedFollowing;
  }
  return QuantLib::Unadjusted;
}

}  // namespace

ConventionOracle quantlib_convention_figures(const ConventionBond& k, double quote, const std::vector<double>& df,
                                             const std::vector<double>& up, const std::vector<double>& dn) {
  const QuantLib::SavedSettings restored_on_return;  // the other tests' QuantLib settings are theirs
  const Convention& c = k.convention;
  const QuantLib::Date today = ql_date(k.today);
  QuantLib::Settings::instance().evaluationDate() = today;
  QuantLib::Settings::instance().includeTodaysCashFlows() = false;  // a flow paid on settlement is not the buyer's
  QuantLib::Settings::instance().includeReferenceDateEvents() = false;
  const QuantLib::Calendar calendar = quantlib_calendar(k.calendar);
  const QuantLib::DayCounter dc = quantlib_day_count(c.day_count);
  const QuantLib::Frequency freq = static_cast<QuantLib::Frequency>(k.terms.coupons_per_year);
  const QuantLib::Schedule schedule(ql_date(k.terms.start), ql_date(k.terms.maturity),
                                    QuantLib::Period(12 / k.terms.coupons_per_year, QuantLib::Months), QuantLib::NullCalendar(),
                                    QuantLib::Unadjusted, QuantLib::Unadjusted, QuantLib::DateGeneration::Backward, false);
  const QuantLib::Period ex = c.ex_dividend_days ? QuantLib::Period(c.ex_dividend_days, QuantLib::Days) : QuantLib::Period();
  const QuantLib::FixedRateBond bond(c.settlement_days, 100.0, schedule, {k.terms.coupon}, dc, quantlib_rule(c.payment),
                                     100.0, ql_date(k.terms.start), calendar, ex, calendar);
  ConventionOracle o{};
  const QuantLib::Date settle = bond.settlementDate(today);
  o.settlement = static_cast<Date>(settle.serialNumber()) - 25569;
  const auto on = [&](const std::vector<double>& factors) {
    double sum = 0;
    for (const auto& cf : bond.cashflows()) {
      if (cf->date() > today) sum += cf->amount() * factors[static_cast<std::size_t>(cf->date() - today)];
    }
    return sum;
  };
  o.price = on(df);
  o.pv01 = (on(up) - on(dn)) / 2;
  const auto curve = test::daily_curve(today, df, QuantLib::Actual36525());
  o.dirty = QuantLib::CashFlows::npv(bond.cashflows(), *curve, false, settle, settle);
  o.accrued = QuantLib::BondFunctions::accruedAmount(bond, settle);
  o.clean = o.dirty - o.accrued;
  // The yield's leg: the coupons still to be paid at settlement with their ex dates, each timed by its
  // unadjusted coupon date (under MODIFIED_FOLLOWING one paid on settlement may fall due after it).
  QuantLib::Leg leg;
  std::size_t coupons_left = 0;
  for (const auto& cf : bond.cashflows()) {
    const auto coupon = QuantLib::ext::dynamic_pointer_cast<QuantLib::FixedRateCoupon>(cf);
    if (!coupon || coupon->date() <= settle) continue;
    leg.push_back(QuantLib::ext::make_shared<QuantLib::FixedRateCoupon>(
        coupon->accrualEndDate(), coupon->nominal(), coupon->interestRate(), coupon->accrualStartDate(),
        coupon->accrualEndDate(), coupon->referencePeriodStart(), coupon->referencePeriodEnd(), coupon->exCouponDate()));
    ++coupons_left;
  }
  leg.push_back(QuantLib::ext::make_shared<QuantLib::SimpleCashFlow>(100.0, ql_date(k.terms.maturity)));
  const bool simple = c.yield_compounding == YieldCompounding::simple_in_last_period && coupons_left == 1;
  const QuantLib::Compounding comp = simple ? QuantLib::Simple : QuantLib::Compounded;
  const auto yield_of = [&](double dirty) {
    return QuantLib::CashFlows::yield(leg, dirty, dc, comp, freq, false, settle, settle, 1e-15, 10000, 0.05);
  };
  o.yield = yield_of(o.dirty);
  const QuantLib::InterestRate y(o.yield, dc, comp, freq);
  o.modified = QuantLib::CashFlows::duration(leg, y, QuantLib::Duration::Modified, false, settle, settle);
  o.macaulay = QuantLib::CashFlows::duration(leg, y, simple ? QuantLib::Duration::Simple : QuantLib::Duration::Macaulay,
                                             false, settle, settle);
  o.convexity = QuantLib::CashFlows::convexity(leg, y, false, settle, settle);
  const double market_dirty = quote + o.accrued;
  o.quote_yield = yield_of(market_dirty);
  o.z_spread = QuantLib::CashFlows::zSpread(bond.cashflows(), market_dirty, curve, QuantLib::Actual36525(),
                                            QuantLib::Continuous, QuantLib::NoFrequency, false, settle, settle, 1e-15,
                                            10000, 0.0);
  const auto at = [&](double s) {
    return QuantLib::CashFlows::npv(bond.cashflows(), curve, s, QuantLib::Actual36525(), QuantLib::Continuous,
                                    QuantLib::NoFrequency, false, settle, settle);
  };
  o.cs01 = (at(o.z_spread + kBump) - at(o.z_spread - kBump)) / 2;
  return o;
}


}  // namespace test
