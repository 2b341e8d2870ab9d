// Convention bonds in the engine (docs/model.md "Market conventions"): the
// rows that describe them read from the database, every bad one failing
// what names it and nothing else, and their figures those of the pure
// functions QuantLib checks (tests/conventions_test.cpp).
#include <gtest/gtest.h>

#include "bond_risk/db/loader.h"
#include "bond_risk/model/conventions/convention_figures.h"
#include "bond_risk/model/inputs/isin.h"
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
  EXPECT_EQ(gilt.yield, pure.figures.yield);
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
