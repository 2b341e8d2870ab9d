// Convention bonds in the engine (docs/model.md "Market conventions"): the
// rows that describe them read from the database, every bad one failing
// what names it and nothing else, and their figures those of the pure
// functions QuantLib checks (tests/conventions_test.cpp).
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "bond_risk/db/change_log.h"
#include "bond_risk/db/loader.h"
#include "bond_risk/model/conventions/convention_figures.h"
#include "bond_risk/model/inputs/isin.h"
#include "bond_risk/synth/generator.h"
#include "tests/quantlib_conventions.h"
#include "tests/live_support.h"
#include "tests/quantlib_support.h"
#include "tests/test_support.h"

using namespace bond_risk;
using test::make_db;

namespace {

const char* const kConventionsSql = R"SQL(
INSERT INTO calendar VALUES (1, 'LONDON', '2026-11-27'), (5, 'BADHOLIDAY', '2026-11-27');
INSERT INTO calendar_holiday VALUES (1, '2026-12-25'), (1, '2026-12-28'), (5, '2026-12-25'), (5, '25/12/2026'),
                                    (77, '2026-12-25');
INSERT INTO ir_curve VALUES (2, 'GILTS', 'GBP');
INSERT INTO ir_curve_input_rate VALUES (2, 0, 0, 0.04), (2, 1, 7305, 0.045);
INSERT INTO bond_convention VALUES ('UK_GILT', 1, 'ACT/ACT-ICMA', 'FOLLOWING', 6, 'COMPOUNDED'),
  ('SLOW', 8, 'ACT/ACT-ICMA', 'FOLLOWING', 0, 'COMPOUNDED'),
  ('ACT365', 1, 'ACT/365', 'FOLLOWING', 0, 'COMPOUNDED'),
  ('PRECEDING', 1, '30/360', 'PRECEDING', 0, 'COMPOUNDED'),
  ('LONGEX', 1, '30/360', 'FOLLOWING', 16, 'COMPOUNDED'),
  ('CONTINUOUS', 1, '30/360', 'FOLLOWING', 0, 'CONTINUOUS'),
  ('NULLS', NULL, '30/360', 'FOLLOWING', 0, 'COMPOUNDED'),
  ('TEXTDAYS', 'one', '30/360', 'FOLLOWING', 0, 'COMPOUNDED');
INSERT INTO bond (id, name, calendar_id, ir_curve_id, start_date, maturity_date, coupons_per_year, coupon, convention, isin)
VALUES (10, 'TRAD4', 1, 2, '2020-01-01', '2030-01-01', 2, 0.05, NULL, NULL),
       (11, 'GILT', 1, 2, '2017-06-07', '2037-12-07', 2, 0.0425, 'UK_GILT', 'GB0009997999'),
       (12, 'SLOW', 1, 2, '2017-06-07', '2037-12-07', 2, 0.0425, 'SLOW', NULL),
       (13, 'ACT365', 1, 2, '2017-06-07', '2037-12-07', 2, 0.0425, 'ACT365', NULL),
       (14, 'PRECEDING', 1, 2, '2017-06-07', '2037-12-07', 2, 0.0425, 'PRECEDING', NULL),
       (15, 'LONGEX', 1, 2, '2017-06-07', '2037-12-07', 2, 0.0425, 'LONGEX', NULL),
       (16, 'CONTINUOUS', 1, 2, '2017-06-07', '2037-12-07', 2, 0.0425, 'CONTINUOUS', NULL),
       (17, 'NULLS', 1, 2, '2017-06-07', '2037-12-07', 2, 0.0425, 'NULLS', NULL),
       (18, 'TEXTDAYS', 1, 2, '2017-06-07', '2037-12-07', 2, 0.0425, 'TEXTDAYS', NULL),
       (19, 'UNKNOWN', 1, 2, '2017-06-07', '2037-12-07', 2, 0.0425, 'JGB', NULL),
       (20, 'BADCHECK', 1, 2, '2017-06-07', '2037-12-07', 2, 0.0425, 'UK_GILT', 'GB0009997998'),
       (21, 'SAMEISIN', 1, 2, '2017-06-07', '2037-12-07', 2, 0.0425, 'UK_GILT', 'GB0009997999'),
       (22, 'ONBADCAL', 5, 2, '2017-06-07', '2037-12-07', 2, 0.0425, 'UK_GILT', NULL),
       (23, 'GILTEX', 1, 2, '2017-06-07', '2038-12-07', 2, 0.0425, 'UK_GILT', 'DE0001135275');
INSERT INTO outright_trade VALUES (100, 'OT1', 11, '2026-06-01', 99.0, 100, 'BUY'), (101, 'OT2', 13, '2026-06-01', 99.0, 100, 'BUY');
INSERT INTO outright_book VALUES (1000, 'OB1');
INSERT INTO outright_book_trade VALUES (1000, 100), (1000, 101);
)SQL";

}  // namespace

TEST(MarketConventions, EachBadRowFailsWhatNamesItAndTheRestIsCalculated) {
  test::TempDir dir;
  make_db(dir.path("conv.db"), kConventionsSql);
  base::Database db(dir.path("conv.db"), base::Database::Mode::read_only);
  const Loaded loaded = load(db);
  ASSERT_EQ(loaded.warnings.size(), 1u);
  EXPECT_EQ(loaded.warnings[0], "calendar_holiday row (calendar_id 77, date 2026-12-25) names no calendar; row ignored");

  const auto m = test::calculate(dir.path("conv.db"), 2);
  const auto expect = [&](std::int64_t id, Status status, const std::string& reason) {
    EXPECT_EQ(m->status(id), status) << "id " << id << ": " << m->reason(id);
    EXPECT_EQ(m->reason(id), reason) << "id " << id;
  };
  expect(10, Status::ok, "");
  expect(11, Status::ok, "");
  expect(23, Status::ok, "");
  expect(12, Status::failed, "bond_convention SLOW: settlement_days 8 is not within 0..7");
  expect(13, Status::failed, "bond_convention ACT365: day_count 'ACT/365' is not one of ACT/ACT-ICMA, 30/360, 30E/360");
  expect(14, Status::failed,
         "bond_convention PRECEDING: payment_convention 'PRECEDING' is not one of UNADJUSTED, FOLLOWING, MODIFIED_FOLLOWING");
  expect(15, Status::failed, "bond_convention LONGEX: ex_dividend_days 16 is not within 0..15");
  expect(16, Status::failed,
         "bond_convention CONTINUOUS: yield_compounding 'CONTINUOUS' is not one of COMPOUNDED, SIMPLE_IN_LAST_PERIOD");
  expect(17, Status::failed, "bond_convention NULLS: settlement_days is NULL; it must be a whole number 0..7");
  expect(18, Status::failed, "bond_convention TEXTDAYS: settlement_days 'one' is not a whole number");
  expect(19, Status::failed, "convention 'JGB' is not a row of bond_convention");
  expect(20, Status::failed, "isin 'GB0009997998': check digit 8, not 9 (ISO 6166's Luhn checksum)");
  expect(21, Status::failed, "isin 'GB0009997999' is also bond 11's");
  expect(5, Status::failed, "calendar_holiday date '25/12/2026' is not a YYYY-MM-DD date");
  expect(22, Status::stale, "calendar 5 is FAILED");
  // The book sums its OK member and counts the other out, as for any failed bond.
  expect(1000, Status::stale, "outright_trade 101 is STALE");

  // A good convention bond's figures are the pure functions' on its flows:
  // today Friday 27 November 2026, settling Monday 30th, a gilt ex-dividend
  // for its 7 December coupon (6 business days before: Friday 27th).
  const BondFigures& gilt = m->node(11, m->store.bond_figures);
  EXPECT_EQ(format_date(static_cast<Date>(gilt.settlement_date)), "2026-11-30");
  EXPECT_LT(gilt.accrued, 0) << "ex-dividend";
  const Bond& b = m->node(11, m->store.bonds);
  ConventionFlows flows;
  const Convention uk{1, DayCount::act_act_icma, PaymentRule::following, 6, YieldCompounding::compounded};
  convention_flows({b.start, b.maturity, 2, 0.0425}, uk, m->node(1, m->store.calendars).business_days,
                   *parse_date("2026-11-27"), flows);
  const ConventionFigures pure = convention_figures(flows, uk, 2, *parse_date("2026-11-27"), *parse_date("2026-11-30"),
                                                    kNull, m->node(2, m->store.curves).arrays);
  EXPECT_EQ(gilt.accrued, pure.figures.accrued);
  // The engine solves a regular stream's yield with others' (finish_convention_figures): those bits, and
  // the price the walk's root reprices within 1e-12.
  const ConventionStart start = start_convention_figures(flows, pure.value, uk, 2, *parse_date("2026-11-27"),
                                                         *parse_date("2026-11-30"), kNull, m->node(2, m->store.curves).arrays);
  Finished batched;
  finish_convention_figures({&start, 1}, {&batched, 1});
  ASSERT_EQ(batched.left, Unfinished::nothing);
  EXPECT_EQ(gilt.yield, batched.figures.figures.yield);
  EXPECT_NEAR(gilt.yield, pure.figures.yield, 1e-14);
  EXPECT_EQ(m->node(11, m->store.bond_values).price, pure.value.price);
  EXPECT_NEAR(gilt.accrued, -100 * 0.0425 / 2 * 7.0 / 183, 1e-14) << "minus the 7 days from settlement to the coupon, of 183";
}

// ISINs from QuantLib 1.29's test-suite (bonds.cpp and others), each valid,
// and each with its check digit changed, not. (Its CallableBonds example's
// US06060WBJ36 fails its check digit, 4: not used.)
TEST(MarketConventions, AnIsinIsValidExactlyWhenItsCheckDigitIs) {
  for (const char* isin : {"GB0009997999", "DE0001135275", "DE0004771662", "IT0001200390", "IT0003543847",
                           "IT0006527060", "XS0090566539", "XS0218766664", "XS0228052402", "AU300TB01208"}) {
    EXPECT_EQ(isin_problem(isin), "") << isin;
    std::string wrong = isin;
    wrong.back() = static_cast<char>('0' + (wrong.back() - '0' + 1) % 10);
    EXPECT_NE(isin_problem(wrong), "") << wrong;
  }
  EXPECT_EQ(isin_problem("GB000999799"), "isin 'GB000999799' has 11 characters, not 12");
  EXPECT_EQ(isin_problem("1B0009997999"), "isin '1B0009997999' does not begin with two capital letters (its country)");
  EXPECT_EQ(isin_problem("GB00099979-9"), "isin 'GB00099979-9' has '-' at 11: only capital letters and digits");
  EXPECT_EQ(isin_problem("GB000999799X"), "isin 'GB000999799X' does not end in a check digit");
}

// The market preset's bonds through the whole engine against QuantLib: a
// sample of every market (every 80th bond), and every bond that is
// ex-dividend, in its last period, or 40 years or more from maturity.
TEST(MarketConventions, TheMarketPresetsBondsAreQuantLibsFixedRateBonds) {
  test::TempDir dir;
  const std::string path = dir.path("market.db");
  GenerateOptions options;
  options.conventions = Conventions::market;
  generate(find_preset("50k"), options, path);
  const auto m = test::calculate(path, 2);
  const Store& s = m->store;
  std::map<std::string, HolidayRules> rules_of = {{"LONDON", HolidayRules::england_and_wales},
                                                 {"NEW_YORK", HolidayRules::us_government_bond},
                                                 {"TARGET", HolidayRules::target}};
  std::map<NodeIndex, std::vector<double>> df, up, dn;
  for (NodeIndex c = 0; c < s.curves.size(); ++c) {
    std::vector<CurvePoint> points = s.curves[c].points;
    df[c] = test::discount_factors(points);
    for (CurvePoint& p : points) p.value += kBump;
    up[c] = test::discount_factors(points);
    for (CurvePoint& p : points) p.value -= 2 * kBump;
    dn[c] = test::discount_factors(points);
  }
  std::map<std::string, std::size_t> checked;
  std::size_t ex = 0, last_period = 0, long_dated = 0;
  std::map<std::string, std::size_t> shown;
  std::printf("| convention | bond | maturity | settles | clean | QuantLib | accrued | QuantLib | yield | QuantLib | z-spread | QuantLib |\n");
  for (NodeIndex i = 0; i < s.bonds.size(); ++i) {
    const Bond& b = s.bonds[i];
    const BondFigures& f = s.bond_figures[i];
    const Calendar& calendar = s.calendars[b.calendar];
    const bool is_ex = f.accrued < 0;
    const bool in_last = b.maturity - static_cast<Date>(f.settlement_date) < 366 && b.coupons_per_year == 1;
    const bool is_long = b.maturity - calendar.today > 40 * 365;
    if (i % 80 != 0 && !is_ex && !in_last && !(is_long && i % 8 == 0)) continue;
    ASSERT_EQ(s.state(ref(Kind::bond, i)).status, Status::ok);
    const std::string calendar_name = s.name_of(ref(Kind::calendar, b.calendar));
    const Convention& c = *s.conventions[b.convention].parsed.convention;
    const test::ConventionOracle ql = test::quantlib_convention_figures(
        {rules_of.at(calendar_name), c, {b.start, b.maturity, b.coupons_per_year, b.coupon}, calendar.today},
        is_null(b.quote) ? 100.0 : b.quote, df[b.curve], up[b.curve], dn[b.curve]);
    SCOPED_TRACE(s.conventions[b.convention].name + " bond " + std::to_string(s.id(ref(Kind::bond, i))));
    EXPECT_EQ(static_cast<Date>(f.settlement_date), ql.settlement);
    const auto near = [](double ours, double theirs, const char* what) {
      EXPECT_LE(std::abs(ours - theirs), 1e-10 * std::abs(theirs) + 1e-13) << what << " " << ours << " vs " << theirs;
    };
    near(s.bond_values[i].price, ql.price, "price");
    near(s.bond_values[i].pv01, ql.pv01, "pv01");
    near(f.dirty_price, ql.dirty, "dirty_price");
    near(f.accrued, ql.accrued, "accrued");
    near(f.clean_price, ql.clean, "clean_price");
    EXPECT_NEAR(f.yield, ql.yield, 1e-10);
    near(f.macaulay_duration, ql.macaulay, "macaulay_duration");
    near(f.modified_duration, ql.modified, "modified_duration");
    near(f.convexity, ql.convexity, "convexity");
    if (!is_null(b.quote)) {
      EXPECT_NEAR(f.quote_yield, ql.quote_yield, 1e-10);
      EXPECT_NEAR(f.z_spread, ql.z_spread, 1e-10);
      near(f.cs01, ql.cs01, "cs01");
    }
    ++checked[s.conventions[b.convention].name];
    ex += is_ex, last_period += in_last, long_dated += is_long;
    if (shown[s.conventions[b.convention].name]++ < 8) {  // 8 rows of each convention
      std::printf("| %s | %lld | %s | %s | %.10f | %.10f | %.10f | %.10f | %.12f | %.12f | %.10f | %.10f |\n",
                  s.conventions[b.convention].name.c_str(), static_cast<long long>(s.id(ref(Kind::bond, i))),
                  format_date(b.maturity).c_str(),
                  format_date(static_cast<Date>(f.settlement_date)).c_str(), f.clean_price, ql.clean, f.accrued, ql.accrued,
                  f.yield, ql.yield, f.z_spread, is_null(b.quote) ? kNull : ql.z_spread);
    }
  }
  std::size_t total = 0;
  for (const auto& [name, n] : checked) {
    std::printf("%s: %zu bonds\n", name.c_str(), n);
    EXPECT_GE(n, 15u) << name;
    total += n;
  }
  std::printf("ex-dividend %zu, in their last period %zu, 40 years or more %zu, of %zu\n", ex, last_period, long_dated, total);
  EXPECT_GE(total, 60u);
  EXPECT_GE(ex, 3u);
  EXPECT_GE(last_period, 3u);
  EXPECT_GE(long_dated, 10u);
}

// roll-date moves settlement by business days: rolled across an ex-dividend
// date, a coupon paid on the Monday after its Sunday, Christmas and Boxing
// Day and a weekend, every figure is a fresh flush's on the rolled database.
TEST(MarketConventions, RollingAcrossExDatesCouponsAndHolidaysIsAFreshFlush) {
  // A gilt paying 7 December 2025 (a Sunday: paid Monday 8th, ex from Friday
  // 28 November) and a Bund in its last period, on the market set's calendars.
  test::Live live("100", 20, 2, R"SQL(
INSERT INTO bond (id, name, calendar_id, ir_curve_id, start_date, maturity_date, coupons_per_year, coupon, convention, isin)
VALUES (90001, 'GILT27', 1, 4, '2017-12-07', '2027-12-07', 2, 0.0425, 'UK_GILT', NULL),
       (90002, 'BUND26', 3, 6, '2016-02-15', '2026-02-15', 1, 0.005, 'BUND', NULL);
INSERT INTO bond_quote VALUES (90001, 101.25), (90002, 99.5);
)SQL", Conventions::market);
  const Store& s = live.store();
  const NodeIndex gilt = live.node(90001).index;
  const auto settles = [&] { return format_date(static_cast<Date>(s.bond_figures[gilt].settlement_date)); };
  struct Step {
    const char* today;
    const char* settles;
    bool ex;  // its accrued negative
  };
  for (const Step& step : {Step{"2025-11-26", "2025-11-27", false}, Step{"2025-11-27", "2025-11-28", true},
                           Step{"2025-12-04", "2025-12-05", true}, Step{"2025-12-05", "2025-12-08", false},
                           Step{"2025-12-08", "2025-12-09", false},
                           Step{"2025-12-24", "2025-12-29", false}, Step{"2025-12-25", "2025-12-29", false},
                           Step{"2026-01-02", "2026-01-05", false},
                           // Back before the year the kept coupon dates reach (the gilt pays Friday 7 June
                           // 2024, ex from Thursday 30 May, the 27th a bank holiday), and forward again.
                           Step{"2024-06-03", "2024-06-04", true}, Step{"2025-12-08", "2025-12-09", false}}) {
    SCOPED_TRACE(step.today);
    ASSERT_EQ(live.run(std::string("roll-date ") + step.today)["ok"], true);
    EXPECT_EQ(s.state(live.node(90001)).status, Status::ok);
    EXPECT_EQ(settles(), step.settles);
    EXPECT_EQ(s.bond_figures[gilt].accrued < 0, step.ex) << s.bond_figures[gilt].accrued;
    test::expect_same_as_fresh(live);
  }
}

// Another program's edit of a calendar's holidays or of a convention row
// recalculates exactly the convention bonds that use it (and what depends
// on them), every figure then a fresh flush's; an edit that makes a row
// unreadable loads everything again, failing what names it.
TEST(MarketConventions, AnEditedHolidayOrConventionRecalculatesExactlyTheBondsThatUseIt) {
  test::Live live("100", 20, 2, "", Conventions::market);
  ChangeLog log(*live.db);
  const Store& s = live.store();
  const auto bond_count = [&](auto uses) {
    std::size_t n = 0;
    for (const Bond& b : s.bonds) n += b.convention != kNoConvention && uses(b);
    return n;
  };
  NodeIndex gilt = 0;
  while (s.conventions[s.bonds[gilt].convention].name != "UK_GILT") ++gilt;
  const NodeIndex calendar = s.bonds[gilt].calendar;
  const std::string calendar_id = std::to_string(s.id(ref(Kind::calendar, calendar)));
  const auto bonds = static_cast<std::size_t>(Kind::bond);
  const auto calendars = static_cast<std::size_t>(Kind::calendar);

  // A holiday on the day the gilt settles: it settles a business day later.
  const double settles = s.bond_figures[gilt].settlement_date;
  LiveModel::Recalculation r = test::apply_other_program(
      live, log, "INSERT INTO calendar_holiday VALUES (" + calendar_id + ", '" + format_date(static_cast<Date>(settles)) + "')");
  EXPECT_FALSE(r.whole);
  EXPECT_EQ(r.nodes[bonds], bond_count([&](const Bond& b) { return b.calendar == calendar; }));
  EXPECT_EQ(r.nodes[calendars], 0u);
  EXPECT_GT(s.bond_figures[gilt].settlement_date, settles);
  test::expect_same_as_fresh(live);

  // Its convention settles a day later: the bonds of that convention, whatever their calendar.
  const std::uint32_t convention = s.bonds[gilt].convention;
  r = test::apply_other_program(live, log, "UPDATE bond_convention SET settlement_days = 2 WHERE name = 'UK_GILT'");
  EXPECT_FALSE(r.whole);
  EXPECT_EQ(r.nodes[bonds], bond_count([&](const Bond& b) { return b.convention == convention; }));
  EXPECT_LT(r.nodes[bonds], s.bonds.size());
  test::expect_same_as_fresh(live);

  // Unreadable rows: everything loaded again, what names them FAILED with the reason.
  r = test::apply_other_program(live, log, "UPDATE bond_convention SET day_count = 'ACT/365' WHERE name = 'UK_GILT'");
  EXPECT_TRUE(r.whole);
  EXPECT_EQ(s.state(ref(Kind::bond, gilt)).status, Status::failed);
  EXPECT_EQ(s.error(ref(Kind::bond, gilt)),
            "bond_convention UK_GILT: day_count 'ACT/365' is not one of ACT/ACT-ICMA, 30/360, 30E/360");
  test::expect_same_as_fresh(live);
  r = test::apply_other_program(live, log, "INSERT INTO calendar_holiday VALUES (" + calendar_id + ", '25/12/2026')");
  EXPECT_TRUE(r.whole);
  EXPECT_EQ(s.state(ref(Kind::calendar, calendar)).status, Status::failed);
  test::expect_same_as_fresh(live);
}

// A holiday between settlement and a coupon moves the coupon's ex date to
// the settlement day without moving settlement: the gilt goes ex, and its
// quote yield (kept through a curve's move, as a function of the quote and
// the settlement) is solved again: every figure a fresh flush's.
TEST(MarketConventions, AHolidayThatMovesAnExDateButNotSettlementSolvesTheQuoteYieldAgain) {
  test::Live live("100", 20, 2, R"SQL(
INSERT INTO bond (id, name, calendar_id, ir_curve_id, start_date, maturity_date, coupons_per_year, coupon, convention, isin)
VALUES (90001, 'GILT27', 1, 4, '2017-12-07', '2027-12-07', 2, 0.0425, 'UK_GILT', NULL);
INSERT INTO bond_quote VALUES (90001, 101.25);
)SQL", Conventions::market);
  ChangeLog log(*live.db);
  const Store& s = live.store();
  const NodeIndex gilt = live.node(90001).index;
  // Wednesday 26 November 2025: settles Thursday 27th, cum (ex from Friday 28th for Monday 8 December).
  ASSERT_EQ(live.run("roll-date 2025-11-26")["ok"], true);
  ASSERT_EQ(live.run("bump-curve 4 1")["ok"], true);  // the quote yield kept, the rest solved again
  EXPECT_GT(s.bond_figures[gilt].accrued, 0);
  const double cum = s.bond_figures[gilt].quote_yield;
  test::expect_same_as_fresh(live);
  const LiveModel::Recalculation r =
      test::apply_other_program(live, log, "INSERT INTO calendar_holiday VALUES (1, '2025-12-03')");
  EXPECT_FALSE(r.whole);
  EXPECT_EQ(format_date(static_cast<Date>(s.bond_figures[gilt].settlement_date)), "2025-11-27");
  EXPECT_LT(s.bond_figures[gilt].accrued, 0) << "ex from the 27th now";
  EXPECT_NE(s.bond_figures[gilt].quote_yield, cum);
  test::expect_same_as_fresh(live);
}

// A curve sums coupon grids only for the calendars of its trad4 bonds (a
// convention bond values its own flows): on the market set the curves sum
// none, and a trad4 bond added to one gives that curve its calendar's grid
// alone. Bumps and rolls then give a fresh flush's figures.
TEST(MarketConventions, ACurveSumsCouponGridsOnlyForItsTrad4BondsCalendars) {
  test::Live live("100", 20, 2, R"SQL(
INSERT INTO bond (id, name, calendar_id, ir_curve_id, start_date, maturity_date, coupons_per_year, coupon, convention, isin)
VALUES (90003, 'TRAD4', 1, 4, '2020-01-01', '2030-01-01', 2, 0.05, NULL, NULL);
INSERT INTO bond_quote VALUES (90003, 101.5);
)SQL", Conventions::market);
  const Store& s = live.store();
  const Bond& trad4 = s.bonds[live.node(90003).index];
  ASSERT_EQ(trad4.convention, kNoConvention);
  for (NodeIndex c = 0; c < s.curves.size(); ++c) {
    if (c != trad4.curve) {
      EXPECT_TRUE(s.curves[c].grids.empty()) << "curve " << c << " sums grids no bond reads";
      continue;
    }
    ASSERT_EQ(s.curves[c].grids.size(), 1u);
    EXPECT_EQ(s.curves[c].grids[0].calendar, trad4.calendar);
  }
  EXPECT_EQ(s.state(live.node(90003)).status, Status::ok);
  test::expect_same_as_fresh(live);
  for (const std::string line : {"bump-curve GBP-GILT 1", "roll-date 2026-12-01", "bump-curve USD-UST -2"}) {
    SCOPED_TRACE(line);
    ASSERT_EQ(live.run(line)["ok"], true);
    test::expect_same_as_fresh(live);
  }
}
