// Convention bonds (docs/model.md "Market conventions") against QuantLib
// 1.29, the suite's independent oracle: each bond built as a FixedRateBond
// from the same fields (backward unadjusted schedule from the dated date,
// the market's calendar, payment rule, ex-coupon days and day count),
// priced off the same daily discount factors, every figure compared; and
// the ex-dividend gilt QuantLib's own suite checks against Bloomberg.
#include <gtest/gtest.h>


#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bond_risk/model/conventions/convention_figures.h"
#include "bond_risk/model/conventions/coupon_schedules.h"
#include "bond_risk/synth/holiday_rules.h"
#include "tests/quantlib_conventions.h"
#include "tests/quantlib_support.h"
#include "tests/test_support.h"

using namespace bond_risk;

namespace {

Date date(const char* text) { return *parse_date(text); }

// The three markets of docs/model.md's table, and two made-up ones that
// exercise the other day counts and payment rule.
struct Market {
  const char* name;
  HolidayRules calendar;
  Convention convention;
};
const Market kGilt{"UK gilt", HolidayRules::england_and_wales,
                   {1, DayCount::act_act_icma, PaymentRule::following, 6, YieldCompounding::compounded}};
const Market kTreasury{"US Treasury", HolidayRules::us_government_bond,
                       {1, DayCount::act_act_icma, PaymentRule::following, 0, YieldCompounding::compounded}};
const Market kBund{"German Bund", HolidayRules::target,
                   {2, DayCount::act_act_icma, PaymentRule::following, 0, YieldCompounding::simple_in_last_period}};
const Market kThirty{"30/360 modified following", HolidayRules::england_and_wales,
                     {1, DayCount::thirty_360, PaymentRule::modified_following, 0, YieldCompounding::compounded}};
const Market kThirtyE{"30E/360 ex 3 days", HolidayRules::target,
                      {3, DayCount::thirty_e_360, PaymentRule::following, 3, YieldCompounding::compounded}};

struct Case {
  const Market* market;
  const char* what;
  Date start, maturity;
  int coupons_per_year;
  double coupon;
  Date today;
};

// Each bond on consecutive days `from` .. `to`: across its ex date and the
// day before, a coupon date, weekends and holidays.
void sweep(std::vector<Case>& cases, const Market& m, const char* what, const char* start, const char* maturity,
           int f, double coupon, const char* from, const char* to) {
  for (Date d = date(from); d <= date(to); ++d) cases.push_back({&m, what, date(start), date(maturity), f, coupon, d});
}

std::vector<Case> cases() {
  std::vector<Case> c;
  sweep(c, kGilt, "ex-dividend period", "2007-12-07", "2027-12-07", 2, 0.0425, "2026-11-20", "2026-12-10");
  sweep(c, kGilt, "coupon on Christmas Day", "2013-12-25", "2033-12-25", 2, 0.03, "2026-12-15", "2027-01-04");
  sweep(c, kGilt, "50 years, short first coupon", "2026-02-10", "2076-10-22", 2, 0.0475, "2026-04-08", "2026-04-24");
  sweep(c, kGilt, "dated 126 years before maturity", "1950-10-22", "2076-10-22", 2, 0.035, "2026-04-20", "2026-04-24");
  sweep(c, kTreasury, "coupon on a Sunday before a holiday", "2025-02-15", "2035-02-15", 2, 0.025, "2026-02-10",
        "2026-02-19");
  sweep(c, kTreasury, "month-end coupons over Thanksgiving", "2024-05-31", "2031-05-31", 2, 0.04125, "2026-11-24",
        "2026-12-02");
  sweep(c, kBund, "last period, simple yield", "2017-08-15", "2027-08-15", 1, 0.005, "2026-11-26", "2026-12-04");
  sweep(c, kBund, "coupon over New Year", "2018-01-04", "2028-01-04", 1, 0.0, "2026-12-22", "2027-01-07");
  sweep(c, kBund, "short first coupon", "2026-09-10", "2036-02-15", 1, 0.026, "2026-11-25", "2026-11-30");
  sweep(c, kThirty, "coupon on a bank holiday, modified following", "2021-08-31", "2031-08-31", 4, 0.0375,
        "2026-08-24", "2026-09-03");
  sweep(c, kThirty, "February month end", "2020-02-29", "2032-02-29", 2, 0.051, "2027-02-22", "2027-03-02");
  sweep(c, kThirtyE, "30th and 31st", "2019-03-31", "2029-09-30", 2, 0.0225, "2027-03-25", "2027-04-02");
  sweep(c, kThirtyE, "ex 3 days over Easter", "2020-04-06", "2030-04-06", 2, 0.031, "2027-03-24", "2027-04-07");
  return c;
}

BondTerms terms(const Case& k) { return {k.start, k.maturity, k.coupons_per_year, k.coupon}; }

// The three calendars' business days over the years the cases reach.
std::map<HolidayRules, BusinessDays> business_days() {
  std::map<HolidayRules, BusinessDays> out;
  for (HolidayRules rules : kHolidayRules) out.emplace(rules, BusinessDays(holidays(rules, 2000, 2090)));
  return out;
}

// The test curve: rates rising from 2% to 4.4% over 60 years, a dip at two years.
std::vector<CurvePoint> curve_points() {
  return {{0, 0.02}, {365, 0.024}, {730, 0.0215}, {1826, 0.03}, {3652, 0.036}, {7305, 0.041}, {21915, 0.044}};
}

std::vector<double> shifted(std::vector<CurvePoint> points, double by) {
  for (CurvePoint& p : points) p.value += by;
  return test::discount_factors(points);
}

// The curve arrays the figures read: df and its parallel shifts by one basis point.
CurveArrays curve_arrays(const std::vector<double>& df, const std::vector<double>& up, const std::vector<double>& dn) {
  const auto array = [](const std::vector<double>& v) { return Eigen::Map<const Eigen::ArrayXd>(v.data(), static_cast<Eigen::Index>(v.size())); };
  CurveArrays c;
  c.df = array(df), c.df_up = array(up), c.df_dn = array(dn);
  return c;
}

// |ours - theirs| relative to theirs (absolute for a zero).
double relative(double ours, double theirs) { return std::abs(ours - theirs) / std::max(std::abs(theirs), 1e-300); }

// The test curve: its discount factors, their parallel shifts by a basis
// point, and the arrays the figures read, which point into them (so it is
// not copied).
struct TestCurve {
  std::vector<double> df = test::discount_factors(curve_points()), up = shifted(curve_points(), kBump),
                      dn = shifted(curve_points(), -kBump);
  CurveArrays arrays = curve_arrays(df, up, dn);
  TestCurve() = default;
  TestCurve(const TestCurve&) = delete;
  TestCurve& operator=(const TestCurve&) = delete;
};

// A case's bond quoted at `under` times its model clean price (to three
// decimals): its flows after today and its settlement on its market's
// calendar, its figures calculated alone, and as the engine's batch
// finishes them (a batch of one here; a spread the first evaluation did
// not prove is left to walk).
struct QuotedCase {
  ConventionFlows flows;
  Date settlement = 0;
  double quote = 0;
  ConventionFigures alone;
  ConventionStart start;
  Finished batched;
};
QuotedCase quoted_case(const Case& k, const BusinessDays& days, const CurveArrays& curve, double under) {
  QuotedCase q;
  const Convention& c = k.market->convention;
  convention_flows(terms(k), c, days, k.today, q.flows);
  q.settlement = days.advance(k.today, c.settlement_days);
  const ConventionFigures model = convention_figures(q.flows, c, k.coupons_per_year, k.today, q.settlement, kNull, curve);
  q.quote = std::round(model.figures.clean_price * under * 1000) / 1000;
  q.alone = convention_figures(q.flows, c, k.coupons_per_year, k.today, q.settlement, q.quote, curve);
  q.start = start_convention_figures(q.flows, convention_value(q.flows, k.today, curve), c, k.coupons_per_year, k.today,
                                     q.settlement, q.quote, curve);
  finish_convention_figures({&q.start, 1}, {&q.batched, 1});
  return q;
}

}  // namespace

TEST(Conventions, EveryFigureOfEveryMarketIsQuantLibsFixedRateBonds) {
  const TestCurve curve;
  const std::map<HolidayRules, BusinessDays> calendars = business_days();
  const bool show = std::getenv("BOND_RISK_SHOW_ORACLE") != nullptr;
  std::map<std::string, std::pair<double, double>> worst;  // per market: relative figures, yields (absolute)
  std::size_t rows = 0, ex_rows = 0, simple_rows = 0, batched_rows = 0, walked_rows = 0;
  for (const Case& k : cases()) {
    SCOPED_TRACE(std::string(k.market->name) + ", " + k.what + ", today " + format_date(k.today));
    const Convention& c = k.market->convention;
    // A quote a little under the model's clean price, so the spread is positive.
    QuotedCase q = quoted_case(k, calendars.at(k.market->calendar), curve.arrays, 0.996);
    const ConventionFigures& alone = q.alone;
    const Finished& batched = q.batched;
    if (batched.left == Unfinished::spread) {  // the first evaluation did not prove the spread: the walk finds it
      finish_convention_spread(q.start, q.flows, c, k.today, q.settlement, curve.arrays, q.batched);
      ++walked_rows;
      EXPECT_EQ(batched.figures.figures.z_spread, alone.figures.z_spread) << "the alone calculation's walk, bit for bit";
      EXPECT_EQ(batched.figures.figures.cs01, alone.figures.cs01);
    }
    batched_rows += q.start.solves > 0 && batched.left == Unfinished::nothing ? 1 : 0;
    const test::ConventionOracle ql = test::quantlib_convention_figures(
        {k.market->calendar, c, terms(k), k.today}, q.quote, curve.df, curve.up, curve.dn);
    for (const ConventionFigures& ours : {alone, batched.left == Unfinished::nothing ? batched.figures : alone}) {
      ASSERT_EQ(format_date(static_cast<Date>(ours.figures.settlement_date)), format_date(ql.settlement));
      ASSERT_EQ(ours.figures.failure, AnalyticsFailure::none);
      const BondFigures& f = ours.figures;
      const double figures[][2] = {{ours.value.price, ql.price}, {ours.value.pv01, ql.pv01},
                                   {f.dirty_price, ql.dirty},  {f.accrued, ql.accrued},
                                   {f.clean_price, ql.clean},     {f.macaulay_duration, ql.macaulay},
                                   {f.modified_duration, ql.modified}, {f.convexity, ql.convexity},
                                   {f.cs01, ql.cs01}};
      const char* names[] = {"price", "pv01", "dirty_price", "accrued", "clean_price", "macaulay_duration",
                             "modified_duration", "convexity", "cs01"};
      auto& [rel, abs] = worst[k.market->name];
      for (std::size_t i = 0; i < std::size(figures); ++i) {
        EXPECT_LE(relative(figures[i][0], figures[i][1]), 1e-10) << names[i] << " " << figures[i][0] << " vs " << figures[i][1];
        rel = std::max(rel, figures[i][1] == 0 ? std::abs(figures[i][0]) : relative(figures[i][0], figures[i][1]));
      }
      const double yields[][2] = {{f.yield, ql.yield}, {f.quote_yield, ql.quote_yield}, {f.z_spread, ql.z_spread}};
      const char* yield_names[] = {"yield", "quote_yield", "z_spread"};
      for (std::size_t i = 0; i < std::size(yields); ++i) {
        EXPECT_LE(std::abs(yields[i][0] - yields[i][1]), 1e-10) << yield_names[i] << " " << yields[i][0] << " vs " << yields[i][1];
        abs = std::max(abs, std::abs(yields[i][0] - yields[i][1]));
      }
    }
    const BondFigures& f = alone.figures;
    ++rows;
    ex_rows += f.accrued < 0 ? 1 : 0;
    simple_rows += c.yield_compounding == YieldCompounding::simple_in_last_period && alone.figures.macaulay_duration < 1 ? 1 : 0;
    if (show) {
      std::printf("| %s | %s | %s | %s | %.10f | %.10f | %.10f | %.10f | %.12f | %.12f | %.10f |\n", k.market->name,
                  format_date(k.maturity).c_str(), format_date(k.today).c_str(), format_date(q.settlement).c_str(),
                  f.dirty_price, ql.dirty, f.accrued, ql.accrued, f.yield, ql.yield, f.modified_duration);
    }
  }
  // The sweeps reach what they are for: ex-dividend days and simple yields among them.
  EXPECT_GE(rows, 60u);
  EXPECT_GE(ex_rows, 5u);
  EXPECT_GE(simple_rows, 5u);
  EXPECT_GE(batched_rows, rows / 2) << "the engine's way, for most";
  std::printf("%zu rows, %zu finished side by side, %zu of them with a walked spread\n", rows, batched_rows, walked_rows);
  for (const auto& [market, w] : worst) std::printf("%-28s worst relative %.1e, worst yield %.1e\n", market.c_str(), w.first, w.second);
}

// Quotes far from the model's price (a spread of hundreds of basis
// points, which one evaluation at 0 does not prove): the engine's batch
// leaves the spread to a walk over the flows (finish_convention_spread),
// which gives the alone calculation's spread and cs01 bit for bit and
// QuantLib's within 1e-10, beside the batch's yields.
TEST(Conventions, ASpreadTheBatchLeavesIsWalkedFromTheStart) {
  const TestCurve curve;
  const std::map<HolidayRules, BusinessDays> calendars = business_days();
  std::size_t walked = 0;
  for (const Case& k : cases()) {
    SCOPED_TRACE(std::string(k.market->name) + ", " + k.what + ", today " + format_date(k.today));
    QuotedCase q = quoted_case(k, calendars.at(k.market->calendar), curve.arrays, 0.8);
    if (q.batched.left != Unfinished::spread) continue;
    finish_convention_spread(q.start, q.flows, k.market->convention, k.today, q.settlement, curve.arrays, q.batched);
    ++walked;
    ASSERT_EQ(q.batched.left, Unfinished::nothing);
    const BondFigures& f = q.batched.figures.figures;
    ASSERT_EQ(f.failure, AnalyticsFailure::none);
    EXPECT_GT(f.spread_steps, 1);
    EXPECT_EQ(f.z_spread, q.alone.figures.z_spread);
    EXPECT_EQ(f.cs01, q.alone.figures.cs01);
    const test::ConventionOracle ql = test::quantlib_convention_figures(
        {k.market->calendar, k.market->convention, terms(k), k.today}, q.quote, curve.df, curve.up, curve.dn);
    EXPECT_LE(std::abs(f.z_spread - ql.z_spread), 1e-10) << f.z_spread << " vs " << ql.z_spread;
    EXPECT_LE(relative(f.cs01, ql.cs01), 1e-10) << f.cs01 << " vs " << ql.cs01;
    EXPECT_LE(std::abs(f.yield - ql.yield), 1e-10);
    EXPECT_LE(std::abs(f.quote_yield - ql.quote_yield), 1e-10);
  }
  EXPECT_GE(walked, 20u) << "quotes 20% under the model price leave the batch spreads to walk";
}

// A convention bond's key-rate ladder against QuantLib's bond repriced with
// each input point of the curve moved up and down by a basis point: every
// third case of the sweep (each market, ex-dividend days, short first
// coupons, 50 years). Within 1e-9 of the bond's pv01, as for trad4 bonds
// (KeyRates.BondLaddersAgreeWithQuantLibBumpAndReprice).
TEST(Conventions, KeyRateLaddersAreQuantLibsBumpAndReprice) {
  const std::vector<CurvePoint> points = curve_points();
  const auto [curve, key_rates] = test::key_rate_curve(points);
  const std::map<HolidayRules, BusinessDays> calendars = business_days();
  const std::vector<Case> all = cases();
  std::size_t checked = 0;
  for (std::size_t i = 0; i < all.size(); i += 3) {
    const Case& k = all[i];
    SCOPED_TRACE(std::string(k.market->name) + ", " + k.what + ", today " + format_date(k.today));
    const Convention& c = k.market->convention;
    ConventionFlows flows;
    convention_flows(terms(k), c, calendars.at(k.market->calendar), k.today,
                     flows);
    std::vector<double> ladder(points.size());
    const BondValue value = convention_value_and_key_rates(flows, k.today, curve, key_rates, points.size(), ladder);
    EXPECT_EQ(value.price, convention_value(flows, k.today, curve).price) << "the one walk's value is the value's";
    EXPECT_EQ(value.pv01, convention_value(flows, k.today, curve).pv01);
    const test::ConventionBond bond{k.market->calendar, c, terms(k), k.today};
    const auto price = [&](std::size_t point, double shift) {
      const std::vector<double> df = test::bumped_discount_factors(points, point, shift);
      return test::quantlib_convention_figures(bond, 100.0, df, df, df).price;
    };
    for (std::size_t p = 0; p < points.size(); ++p) {
      EXPECT_NEAR(ladder[p], (price(p, kBump) - price(p, -kBump)) / 2, 1e-9 * std::abs(value.pv01)) << "point " << p;
    }
    ++checked;
  }
  EXPECT_GE(checked, 25u);
}

// QuantLib's test-suite (bonds.cpp, testExCouponGilt) checks this gilt's
// accrued, yield, modified duration and convexity at a clean price of 103
// against Bloomberg: GB0009997999, 8% 7 June 2021, dated 29 February 1996,
// ex-dividend 7 UK business days before each coupon (6 here: settlement on
// the ex date itself is still cum), payments unadjusted. Bloomberg's figures
// as the test's comment gives them; its convexity is QuantLib's / 100.
TEST(Conventions, TheExDividendGiltMatchesBloomberg) {
  const Convention gilt{1, DayCount::act_act_icma, PaymentRule::unadjusted, 6, YieldCompounding::compounded};
  const BusinessDays uk(holidays(HolidayRules::england_and_wales, 1996, 2021));
  struct Row {
    const char* settlement;
    double accrued, yield, modified_duration, convexity;
  };
  const Row bloomberg[] = {{"2013-05-29", 3.802197802, 0.07495180593, 5.676044458, 0.4215314859},
                           {"2013-05-30", -0.1758241758, 0.07496183543, 5.892816328, 0.4375621862},
                           {"2013-05-31", -0.1538461538, 0.07495987492, 5.890186028, 0.4372394381}};
  for (const Row& row : bloomberg) {
    SCOPED_TRACE(row.settlement);
    const Date settlement = date(row.settlement);
    ConventionFlows flows;
    convention_flows({date("1996-02-29"), date("2021-06-07"), 2, 0.08}, gilt, uk, settlement, flows);
    const double accrued = convention_accrued(flows, gilt, settlement);
    const YieldFigures y = convention_yield(flows, gilt, 2, settlement, 103 + accrued);
    EXPECT_NEAR(accrued, row.accrued, 1e-9);
    EXPECT_NEAR(y.yield, row.yield, 1e-10);
    EXPECT_NEAR(y.modified, row.modified_duration, 1e-8);
    EXPECT_NEAR(y.convexity / 100, row.convexity, 1e-9);
    std::printf("%s accrued %.10f (Bloomberg %.10f) yield %.11f (%.11f) modified duration %.9f (%.9f) convexity/100 %.10f (%.10f)\n",
                row.settlement, accrued, row.accrued, y.yield, row.yield, y.modified, row.modified_duration,
                y.convexity / 100, row.convexity);
  }
}

TEST(Conventions, EachBadFieldOfARowIsNamedWithWhatItMayBe) {
  ConventionRow good{"UK_GILT", 1, 6, "ACT/ACT-ICMA", "FOLLOWING", "COMPOUNDED"};
  ASSERT_TRUE(parse_convention(good).convention);
  EXPECT_EQ(*parse_convention(good).convention,
            (Convention{1, DayCount::act_act_icma, PaymentRule::following, 6, YieldCompounding::compounded}));
  const auto reason = [&](auto change) {
    ConventionRow row = good;
    change(row);
    const ParsedConvention p = parse_convention(row);
    EXPECT_FALSE(p.convention);
    return p.reason;
  };
  EXPECT_EQ(reason([](ConventionRow& r) { r.settlement_days = 8; }),
            "bond_convention UK_GILT: settlement_days 8 is not within 0..7");
  EXPECT_EQ(reason([](ConventionRow& r) { r.settlement_days = std::nullopt; }),
            "bond_convention UK_GILT: settlement_days is NULL; it must be a whole number 0..7");
  EXPECT_EQ(reason([](ConventionRow& r) { r.ex_dividend_days = -1; }),
            "bond_convention UK_GILT: ex_dividend_days -1 is not within 0..15");
  EXPECT_EQ(reason([](ConventionRow& r) { r.day_count = "ACT/365"; }),
            "bond_convention UK_GILT: day_count 'ACT/365' is not one of ACT/ACT-ICMA, 30/360, 30E/360");
  EXPECT_EQ(reason([](ConventionRow& r) { r.payment_convention = "PRECEDING"; }),
            "bond_convention UK_GILT: payment_convention 'PRECEDING' is not one of UNADJUSTED, FOLLOWING, "
            "MODIFIED_FOLLOWING");
  EXPECT_EQ(reason([](ConventionRow& r) { r.yield_compounding = std::nullopt; }),
            "bond_convention UK_GILT: yield_compounding is NULL; it must be one of COMPOUNDED, SIMPLE_IN_LAST_PERIOD");
}

// A calendar's look-up tables (inside a year around its holidays) against
// the rule applied day by day, inside the tables and on both sides of them:
// the same business days, the same moves.
TEST(Conventions, BusinessDaysMoveAsTheRuleDayByDay) {
  const std::vector<Date> listed = holidays(HolidayRules::england_and_wales, 2000, 2090);
  const std::set<Date> holiday(listed.begin(), listed.end());
  const BusinessDays days(listed);
  const auto business = [&](Date d) { return weekday(d) != 0 && weekday(d) != 6 && !holiday.count(d); };
  const auto step = [&](Date d, int n) {  // QuantLib's advance in Days, written out
    if (n == 0) {
      while (!business(d)) ++d;
      return d;
    }
    for (; n > 0; --n) do ++d; while (!business(d));
    for (; n < 0; ++n) do --d; while (!business(d));
    return d;
  };
  std::size_t checked = 0;
  for (Date d = date("1997-01-01"); d <= date("2094-12-31"); d += 3) {
    ASSERT_EQ(days.is_business_day(d), business(d)) << format_date(d);
    for (int n = -7; n <= 7; ++n) ASSERT_EQ(days.advance(d, n), step(d, n)) << format_date(d) << " " << n;
    const Date following = step(d, 0);
    ASSERT_EQ(days.adjust(d, PaymentRule::following), following) << format_date(d);
    Date previous = d;
    while (!business(previous)) --previous;
    ASSERT_EQ(days.adjust(d, PaymentRule::modified_following),
              month_number(following) == month_number(d) ? following : previous) << format_date(d);
    ++checked;
  }
  EXPECT_GT(checked, 11000u);
  // Holidays 8,000 years apart (a typo's year) keep no table: the rule, stepped, and no 3 million days held.
  const BusinessDays far(std::vector<Date>{date("2026-12-25"), date("9999-12-24")});
  EXPECT_EQ(far.advance(date("2026-12-24"), 1), date("2026-12-28"));
  EXPECT_FALSE(far.is_business_day(date("9999-12-24")));
  EXPECT_TRUE(far.is_business_day(date("5000-01-01")) == (weekday(date("5000-01-01")) % 6 != 0));
}

// A bond's number of coupon periods a buyer after some day may be paid
// on, by the closed form, against stepping back from maturity one period
// at a time while the period ends after the start and less than a year
// before that day (month ends, leap days, a start on the schedule and off it).
TEST(Conventions, ABondsCouponPeriodsAreCountedAsTheScheduleSteps) {
  std::size_t checked = 0;
  for (const int f : {1, 2, 4}) {
    for (const char* maturity : {"2041-02-28", "2040-02-29", "2036-08-31", "2030-03-30", "2027-12-07"}) {
      const Date m = date(maturity);
      const MonthSteps back(m);
      for (Date start = m - 3 * 366; start < m; start += 5) {
        for (const Date after : {start - 400, start + 200, start + 900}) {
          std::size_t stepped = 0;
          while (back(-static_cast<int>(stepped) * (12 / f)) > std::max(start, after - 367)) ++stepped;
          ASSERT_EQ(coupon_date_count({start, m, f, 0.03}, after), stepped) << maturity << " from " << format_date(start);
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 9000u);
  // Dated 126 years before maturity, on 20 April 2026: 22 April 2025 to 22 October 2076.
  EXPECT_EQ(coupon_date_count({date("1950-10-22"), date("2076-10-22"), 2, 0.035}, date("2026-04-20")), 104u);
  // Beyond any curve: the last 62 years' quarters.
  EXPECT_EQ(coupon_date_count({date("2020-01-01"), date("2200-01-01"), 4, 0.035}, date("2026-04-20")), kMaxCouponDates);
  EXPECT_EQ(coupon_date_count({date("2026-10-22"), date("2026-10-22"), 2, 0.035}, date("2026-04-20")), 0u);
  EXPECT_EQ(coupon_date_count({date("2020-10-22"), date("2026-10-22"), 3, 0.035}, date("2026-04-20")), 0u);
}

// A kept schedule is a bond's coupon dates as built afresh for the day its
// slot was laid out for, and stays so until it is marked stale: a holiday
// on a coupon date (Monday 7 December 2026) moves that payment to the next
// day only once it is. A day more than a few months before the slot's is not served.
TEST(Conventions, AKeptScheduleIsBuiltAgainOnlyWhenMarkedStale) {
  const BondTerms terms{date("2007-12-07"), date("2027-12-07"), 2, 0.0425};
  const Date today = date("2026-11-20");
  const Convention& gilt = kGilt.convention;
  std::vector<Date> listed = holidays(HolidayRules::england_and_wales, 2000, 2090);
  const BusinessDays before(listed);
  listed.push_back(date("2026-12-07"));
  const BusinessDays after(listed);
  const auto fresh = [&](const BusinessDays& days) {
    std::vector<CouponDate> out(coupon_date_count(terms, today));
    coupon_dates(terms, gilt, days, today, out);
    return out;
  };
  const auto same = [](const std::optional<CouponDates>& kept, const std::vector<CouponDate>& built) {
    if (!kept || kept->periods.size() != built.size()) return false;
    for (std::size_t k = 0; k < built.size(); ++k) {
      const CouponDate &a = kept->periods[k], &b = built[k];
      if (a.end != b.end || a.pay != b.pay || a.ex != b.ex) return false;
    }
    return true;
  };
  // A trad4 bond's empty slot, the gilt's, and one of a gilt that matured in 2020.
  const BondTerms matured{date("2000-01-01"), date("2020-01-01"), 2, 0.05};
  const std::size_t counts[] = {0, coupon_date_count(terms, today), coupon_date_count(matured, today)};
  const Date from[] = {0, today, today};
  CouponSchedules kept;
  kept.lay_out(counts, from);
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(counts[2], 0u);
  ASSERT_TRUE(kept.dates(2, matured, gilt, before, today));
  EXPECT_TRUE(kept.dates(2, matured, gilt, before, today)->periods.empty());
  EXPECT_FALSE(kept.dates(2, matured, gilt, before, date("2019-06-01"))) << "coupons still to come then";
  EXPECT_TRUE(same(kept.dates(1, terms, gilt, before, today), fresh(before)));
  EXPECT_TRUE(same(kept.dates(1, terms, gilt, after, today + 30), fresh(before)));  // not stale: as built
  kept.mark_stale(1);
  const std::optional<CouponDates> moved = kept.dates(1, terms, gilt, after, today);
  EXPECT_TRUE(same(moved, fresh(after)));
  ASSERT_GE(moved->periods.size(), 3u);
  const CouponDate& december = moved->periods[moved->periods.size() - 3];
  EXPECT_EQ(format_date(december.end), "2026-12-07");
  EXPECT_EQ(format_date(december.pay), "2026-12-08");
  EXPECT_EQ(format_date(moved->first_start), "2025-06-07");  // the period before the year back from today
  // A day a little before the slot's is served (the periods reach a year and more back from it); 400 days, not.
  EXPECT_TRUE(same(kept.dates(1, terms, gilt, after, today - 30), fresh(after)));
  EXPECT_FALSE(kept.dates(1, terms, gilt, after, today - 400));
}
