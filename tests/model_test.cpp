// Whole-model cases on small databases built from plain INSERTs: values
// checked against closed forms, and every kind of bad row of MODEL.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <thread>
#include <tuple>

#include "bond_risk/synth/generator.h"
#include "bond_risk/db/loader.h"
#include "bond_risk/db/snapshot_readers.h"
#include "bond_risk/lab/flush_bytes.h"
#include "base/sqlite.h"
#include "tests/test_support.h"

using namespace bond_risk;
using test::calculate;
using test::kBaseSql;
using test::make_db;

namespace {

// 2025-01-01 to 2030-01-01 is 1826 days (2028 is a leap year).
const double kZeroPrice = 100 * std::exp(-0.03 * 1826 / 365.25);

const char* const kGoodSql = R"SQL(
INSERT INTO bond (id, name, calendar_id, ir_curve_id, start_date, maturity_date, coupons_per_year, coupon) VALUES (10, 'ZERO', 1, 2, '2020-01-01', '2030-01-01', 1, 0.0);
INSERT INTO outright_trade VALUES (100, 'OT1', 10, '2024-06-01', 80.0, 100, 'BUY'),
                                  (101, 'OT2', 10, '2024-06-01', 90.0, 50, 'SELL');
INSERT INTO repo_trade VALUES (200, 'RT1', 10, 1, 3, '2024-12-01', '2025-04-01', 1000, 100000.0, 0.04, 'EUR', 'BUY');
INSERT INTO outright_book VALUES (1000, 'OB1');
INSERT INTO outright_book_trade VALUES (1000, 100), (1000, 101);
INSERT INTO repo_book VALUES (2000, 'RB1');
INSERT INTO repo_book_trade VALUES (2000, 200);
)SQL";

void expect_close(double actual, double expected) { EXPECT_NEAR(actual, expected, 1e-9 * std::abs(expected)); }

// The "100" preset (seed 5, books of 10 trades) generated at dir/name; its path.
std::string generated_100(const test::TempDir& dir, const std::string& name) {
  const std::string path = dir.path(name);
  bond_risk::generate(bond_risk::find_preset("100"), bond_risk::GenerateOptions{5, 10}, path);
  return path;
}

// The first column of every row `sql` selects, as integers.
std::vector<std::int64_t> integers(base::Database& db, const std::string& sql) {
  std::vector<std::int64_t> values;
  base::Statement st = db.prepare(sql);
  while (st.step()) values.push_back(st.integer(0));
  return values;
}

}  // namespace

TEST(Model, HandCheckedTradesAndBooks) {
  test::TempDir dir;
  make_db(dir.path("m.db"), std::string(kBaseSql) + kGoodSql);
  const auto m = calculate(dir.path("m.db"));
  for (std::int64_t id : {1, 2, 3, 10, 100, 101, 200, 1000, 2000}) EXPECT_EQ(m->status(id), Status::ok) << id;
  expect_close(m->node(10, m->store.bond_values).price, kZeroPrice);

  const OutrightValue& ot2 = m->node(101, m->store.outright_values);
  expect_close(ot2.pv, -50 * kZeroPrice);
  expect_close(ot2.pnl, -50 * (kZeroPrice - 90.0));

  const OutrightBook& book = m->node(1000, m->store.outright_books);
  expect_close(book.total.pv, 50 * kZeroPrice);
  expect_close(book.total.pnl, 100 * (kZeroPrice - 80.0) - 50 * (kZeroPrice - 90.0));
  EXPECT_EQ(book.excluded, 0u);

  // Repo: 2025-01-01 to 2025-04-01 is 90 days; cash discounted on the 5% curve.
  double discounted = 0;
  for (int i = 0; i < 90; ++i) discounted += 100000.0 * std::exp(-0.05 * i / 365.25) / 365.25;
  const double end_cash = 100000.0 * std::exp(0.04 * 90 / 365.25);
  const RepoValue& repo = m->node(200, m->store.repo_values);
  expect_close(repo.end_cash, end_cash);
  expect_close(repo.mtm_pnl, end_cash - discounted);
  expect_close(repo.margin, 100000.0 - 1000 * kZeroPrice);
  expect_close(m->node(2000, m->store.repo_books).total.mtm_pnl, end_cash - discounted);
}

TEST(Model, ARepoWhoseValueOverflowsFailsAloneAndItsNeighboursKeepTheirValues) {
  // Repos are valued several at a time (one per vector lane): the overflowing 203 and the expired 205 lie
  // among OK repos, whose end cash is cash * exp(rate * 90 / 365.25) (2025-01-01 to 2025-04-01).
  test::TempDir dir;
  make_db(dir.path("r.db"), std::string(kBaseSql) + kGoodSql + R"SQL(
INSERT INTO repo_trade VALUES (201, 'R1', 10, 1, 3, '2024-12-01', '2025-04-01', 10, 1000.0, 0.01, 'EUR', 'BUY'),
                              (202, 'R2', 10, 1, 3, '2024-12-01', '2025-04-01', 20, 2000.0, 0.02, 'EUR', 'BUY'),
                              (203, 'HUGE', 10, 1, 3, '2024-12-01', '2025-04-01', 30, 3000.0, 1e300, 'EUR', 'BUY'),
                              (204, 'R4', 10, 1, 3, '2024-12-01', '2025-04-01', 40, 4000.0, 0.04, 'EUR', 'BUY'),
                              (205, 'ENDED', 10, 1, 3, '2024-12-01', '2024-12-31', 50, 5000.0, 0.05, 'EUR', 'BUY'),
                              (206, 'R6', 10, 1, 3, '2024-12-01', '2025-04-01', 60, 6000.0, 0.06, 'EUR', 'BUY');
)SQL");
  const auto m = calculate(dir.path("r.db"));
  for (const std::int64_t id : {201, 202, 204, 206}) {
    ASSERT_EQ(m->status(id), Status::ok) << id;
    const double cash = 1000.0 * static_cast<double>(id - 200), rate = 0.01 * static_cast<double>(id - 200);
    expect_close(m->node(id, m->store.repo_values).end_cash, cash * std::exp(rate * 90 / 365.25));
  }
  EXPECT_EQ(m->status(203), Status::failed);
  EXPECT_NE(m->reason(203).find("not finite"), std::string::npos) << m->reason(203);
  EXPECT_EQ(m->status(205), Status::expired);
  for (const std::int64_t id : {203, 205}) {
    const RepoValue& v = m->node(id, m->store.repo_values);
    EXPECT_EQ(v.end_cash, 0.0) << id;
    EXPECT_EQ(v.margin, 0.0) << id;
    EXPECT_EQ(v.mtm_pnl, 0.0) << id;
  }
}

TEST(Model, ACurveSumsTheCouponGridsOfItsOtherCalendarsWhenOneIsBroken) {
  // Curve 2's bonds use calendar 1 (FAILED: its today is no date), then calendar 8. Bond 21 on calendar 8
  // must be priced as on a curve whose only calendar is 8.
  const std::string rest = R"SQL(
INSERT INTO ir_curve VALUES (2, 'FLAT3', 'GBP');
INSERT INTO ir_curve_input_rate VALUES (2, 0, 0, 0.03), (2, 1, 7305, 0.03);
INSERT INTO bond (id, name, calendar_id, ir_curve_id, start_date, maturity_date, coupons_per_year, coupon) VALUES (21, 'ON8', 8, 2, '2020-01-01', '2030-03-15', 2, 0.05);
)SQL";
  test::TempDir dir;
  make_db(dir.path("two.db"), "INSERT INTO calendar VALUES (1, 'BROKEN', 'notadate'), (8, 'LONDON', '2025-01-01');" +
                                  rest + "INSERT INTO bond (id, name, calendar_id, ir_curve_id, start_date, maturity_date, coupons_per_year, coupon) VALUES (20, 'ON1', 1, 2, '2020-01-01', '2030-03-15', 2, 0.05);");
  make_db(dir.path("one.db"), "INSERT INTO calendar VALUES (8, 'LONDON', '2025-01-01');" + rest);
  const auto two = calculate(dir.path("two.db"));
  const auto one = calculate(dir.path("one.db"));
  EXPECT_EQ(two->status(1), Status::failed);
  EXPECT_EQ(two->status(20), Status::stale);
  ASSERT_EQ(two->status(21), Status::ok);
  EXPECT_EQ(two->node(21, two->store.bond_values).price, one->node(21, one->store.bond_values).price);
  EXPECT_EQ(two->node(21, two->store.bond_values).pv01, one->node(21, one->store.bond_values).pv01);
}

TEST(Model, BadRowsFailWithAReasonTheirDependantsGoStaleAndTheRestIsCalculated) {
  test::TempDir dir;
  make_db(dir.path("bad.db"), std::string(kBaseSql) + kGoodSql + R"SQL(
INSERT INTO ir_curve VALUES (4, 'ZIGZAG', 'GBP'), (5, 'ONEPOINT', 'GBP');
INSERT INTO ir_curve_input_rate VALUES (4, 0, 0, 0.01), (4, 1, 500, 0.02), (4, 2, 400, 0.03), (4, 3, 7305, 0.04),
                                       (5, 0, 0, 0.01), (77, 0, 0, 0.01);
INSERT INTO bond (id, name, calendar_id, ir_curve_id, start_date, maturity_date, coupons_per_year, coupon) VALUES (11, 'CPY3', 1, 2, '2020-01-01', '2030-01-01', 3, 0.05),
                        (12, 'FAR', 1, 2, '2020-01-01', '2045-01-02', 1, 0.05),
                        (13, 'NOCURVE', 1, 99, '2020-01-01', '2030-01-01', 1, 0.05),
                        (14, 'NANCPN', 1, 2, '2020-01-01', '2030-01-01', 1, 'NaN'),
                        (15, 'MATURED', 1, 2, '2020-01-01', '2024-06-01', 2, 0.05),
                        (16, 'INFCPN', 1, 2, '2020-01-01', '2030-01-01', 1, 1e999),
                        (17, 'BADDATE', 1, 2, 'yesterday', '2030-01-01', 1, 0.05),
                        (18, 'ONZIGZAG', 1, 4, '2020-01-01', '2030-01-01', 1, 0.05),
                        (19, 'EDGE', 1, 2, '2020-01-01', '2044-12-31', 1, 0.05);
INSERT INTO outright_trade VALUES (102, 'NOBOND', 999, '2024-06-01', 80.0, 1, 'BUY'),
                                  (103, 'HOLD', 10, '2024-06-01', 80.0, 1, 'HOLD'),
                                  (104, 'ONFAILED', 11, '2024-06-01', 80.0, 1, 'BUY'),
                                  (105, 'ONMATURED', 15, '2024-06-01', 80.0, 1, 'BUY'),
                                  (106, 'ONSTALE', 18, '2024-06-01', 80.0, 1, 'BUY'),
                                  (10, 'DUPID', 10, '2024-06-01', 80.0, 1, 'BUY');
INSERT INTO repo_trade VALUES (201, 'ENDED', 10, 1, 3, '2024-12-01', '2024-12-31', 1, 100.0, 0.04, 'EUR', 'BUY'),
                              (202, 'LONG', 10, 1, 3, '2024-12-01', '2045-01-03', 1, 100.0, 0.04, 'EUR', 'BUY'),
                              (203, 'CURVECAL', 10, 2, 3, '2024-12-01', '2025-04-01', 1, 100.0, 0.04, 'EUR', 'SELL');
INSERT INTO outright_book VALUES (1001, 'MIXED'), (1002, 'WITHEXPIRED'), (1003, 'WRONGMEMBER');
INSERT INTO outright_book_trade VALUES (1001, 100), (1001, 104), (1001, 105), (1002, 100), (1002, 105),
                                       (1003, 201), (5555, 100);
INSERT INTO repo_book VALUES (2001, 'WITHENDED');
INSERT INTO repo_book_trade VALUES (2001, 200), (2001, 201);
)SQL");
  base::Database db(dir.path("bad.db"), base::Database::Mode::read_only);
  const Loaded loaded = load(db);
  ASSERT_EQ(loaded.warnings.size(), 2u);  // the rate row of curve 77 and the member row of book 5555
  EXPECT_NE(loaded.warnings[0].find("ir_curve_id 77"), std::string::npos);
  EXPECT_NE(loaded.warnings[1].find("book_id 5555"), std::string::npos);

  const auto m = calculate(dir.path("bad.db"));
  auto expect = [&](std::int64_t id, Status status, const std::string& reason_part) {
    EXPECT_EQ(m->status(id), status) << "id " << id << ": " << m->reason(id);
    EXPECT_NE(m->reason(id).find(reason_part), std::string::npos) << "id " << id << ": " << m->reason(id);
  };
  expect(4, Status::failed, "ir_curve input days not increasing");
  expect(5, Status::failed, "needs at least 2");
  expect(11, Status::failed, "coupons_per_year 3 is not 1, 2 or 4");
  expect(12, Status::failed, "maturity_date 2045-01-02 is beyond the curve horizon of 7305 days");
  expect(13, Status::failed, "unknown ir_curve id 99");
  expect(14, Status::failed, "coupon 'NaN' is not a number");
  expect(15, Status::expired, "maturity_date 2024-06-01 is before today 2025-01-01");
  expect(16, Status::failed, "is not finite");
  expect(17, Status::failed, "start_date 'yesterday' is not a YYYY-MM-DD date");
  expect(18, Status::stale, "ir_curve 4 is FAILED");
  expect(19, Status::ok, "");  // matures on day 7304, the last day of the curve
  expect(102, Status::failed, "unknown bond id 999");
  expect(103, Status::failed, "buy_sell 'HOLD' is not BUY or SELL");
  expect(104, Status::stale, "bond 11 is FAILED");
  expect(105, Status::expired, "bond 15 is EXPIRED");
  expect(106, Status::stale, "bond 18 is STALE");
  expect(201, Status::expired, "end_date 2024-12-31 is before today 2025-01-01");
  expect(202, Status::failed, "end_date 2045-01-03 is beyond the curve horizon");
  expect(203, Status::failed, "id 2 is an ir_curve, not a calendar");
  expect(1003, Status::failed, "id 201 is a repo_trade, not an outright_trade");

  // The outright trade that reuses bond 10's id fails; the bond keeps it.
  EXPECT_EQ(m->status(10), Status::ok);
  const auto& trade_ids = m->store.ids[static_cast<std::size_t>(Kind::outright_trade)];
  const auto dup = static_cast<NodeIndex>(std::find(trade_ids.begin(), trade_ids.end(), 10) - trade_ids.begin());
  EXPECT_EQ(m->store.error(ref(Kind::outright_trade, dup)), "id 10 is already used by bond 10");

  // Books: STALE when a member is FAILED or STALE, never because of an EXPIRED
  // one; the sums cover the OK members only.
  const double pv100 = m->node(100, m->store.outright_values).pv;
  expect(1001, Status::stale, "outright_trade 104 is STALE");
  EXPECT_EQ(m->node(1001, m->store.outright_books).excluded, 2u);
  EXPECT_EQ(m->node(1001, m->store.outright_books).total.pv, pv100);
  expect(1002, Status::ok, "");
  EXPECT_EQ(m->node(1002, m->store.outright_books).excluded, 1u);
  expect(2001, Status::ok, "");
  EXPECT_EQ(m->node(2001, m->store.repo_books).total.margin, m->node(200, m->store.repo_values).margin);

  // The good rows are untouched by the bad ones.
  for (std::int64_t id : {10, 100, 101, 200, 1000, 2000}) EXPECT_EQ(m->status(id), Status::ok) << id;
  expect_close(m->node(10, m->store.bond_values).price, kZeroPrice);
}

TEST(Model, ABadCalendarMakesEverythingOnItStale) {
  test::TempDir dir;
  make_db(dir.path("cal.db"), std::string(kBaseSql) + kGoodSql + "UPDATE calendar SET today = '2025-02-30';");
  const auto m = calculate(dir.path("cal.db"));
  EXPECT_EQ(m->status(1), Status::failed);
  EXPECT_NE(m->reason(1).find("today '2025-02-30' is not a YYYY-MM-DD date"), std::string::npos);
  EXPECT_EQ(m->status(2), Status::ok);
  for (std::int64_t id : {10, 100, 200, 1000, 2000}) EXPECT_EQ(m->status(id), Status::stale) << id;
}

TEST(Model, ABadCalendarLeavesTheCalendarsAfterItTheirOwnToday) {
  // Calendar 1's today is bad; calendar 5 is good: a bond on 5 reads 5's today, not whatever lies after 1.
  test::TempDir dir;
  make_db(dir.path("two.db"),
          "INSERT INTO calendar VALUES (1, 'BAD', '2025-02-30'), (5, 'GOOD', '2025-01-01');"
          "INSERT INTO ir_curve VALUES (2, 'FLAT3', 'GBP');"
          "INSERT INTO ir_curve_input_rate VALUES (2, 0, 0, 0.03), (2, 1, 7305, 0.03);"
          "INSERT INTO bond (id, name, calendar_id, ir_curve_id, start_date, maturity_date, coupons_per_year, coupon) VALUES (10, 'ZERO', 5, 2, '2020-01-01', '2030-01-01', 1, 0.0);");
  const auto m = calculate(dir.path("two.db"));
  EXPECT_EQ(m->status(1), Status::failed);
  ASSERT_EQ(m->status(10), Status::ok) << m->reason(10);
  // A zero-coupon bond's price is 100 discount factors of its maturity: 1826 days at a flat 3%.
  expect_close(m->node(10, m->store.bond_values).price, 100 * std::exp(-0.03 * 1826 / 365.25));
}

TEST(Model, AnEmptyDatabaseLoadsAndFlushes) {
  test::TempDir dir;
  make_db(dir.path("empty.db"), "");
  const auto m = calculate(dir.path("empty.db"), 2);
  EXPECT_EQ(m->stats.nodes, 0u);
}

TEST(Model, NodesLieGroupedByWhatTheyDependOnAndIdsStillFindThem) {
  // The generator alternates curves by id (bond i and trade i are on curve i % 2) and fills books at random.
  test::TempDir dir;
  base::Database db(generated_100(dir, "100.db"), base::Database::Mode::read_only);
  const Store s = bond_risk::load(db).store;
  for (NodeIndex i = 1; i < s.bonds.size(); ++i) EXPECT_LE(s.bonds[i - 1].curve, s.bonds[i].curve);
  // Each bond still has its own coupon count.
  for (const Bond& b : s.bonds) EXPECT_EQ(b.coupons, test::coupon_schedule(b.start, b.maturity, b.coupons_per_year).size());
  // Trades lie in the order their books read them.
  auto in_member_order = [](const auto& books, std::size_t trades) {
    std::vector<bool> seen(trades);
    NodeIndex next = 0;
    for (const auto& b : books) {
      for (NodeIndex m : b.members) {
        if (seen[m]) continue;
        seen[m] = true;
        EXPECT_EQ(m, next++);
      }
    }
  };
  in_member_order(s.outright_books, s.outright_trades.size());
  in_member_order(s.repo_books, s.repo_trades.size());
  // Every id names the node that holds it, and each reference the row it was read from.
  for (std::size_t k = 0; k < kKindCount; ++k) {
    for (NodeIndex i = 0; i < s.ids[k].size(); ++i) {
      const NodeRef* n = s.by_id.find(s.ids[k][i]);
      ASSERT_TRUE(n);
      EXPECT_EQ(*n, ref(static_cast<Kind>(k), i));
    }
  }
  base::Statement trades = db.prepare("SELECT id, bond_id FROM outright_trade");
  while (trades.step()) {
    const NodeRef t = *s.by_id.find(trades.integer(0));
    EXPECT_EQ(s.id(ref(Kind::bond, s.outright_trades[t.index].bond)), trades.integer(1));
  }
  base::Statement members = db.prepare("SELECT book_id, trade_id FROM outright_book_trade ORDER BY book_id, trade_id");
  std::map<std::int64_t, std::vector<std::int64_t>> expected, got;
  while (members.step()) expected[members.integer(0)].push_back(members.integer(1));
  for (NodeIndex b = 0; b < s.outright_books.size(); ++b) {
    for (NodeIndex m : s.outright_books[b].members) {
      got[s.id(ref(Kind::outright_book, b))].push_back(s.id(ref(Kind::outright_trade, m)));
    }
  }
  EXPECT_EQ(got, expected);  // the same members, in the same order (the order of the sums)
}

TEST(Model, BondsPayingOnTheSameDatesLieTogetherInOrderOfMaturity) {
  // They read their curve's running sums over those dates (model/pricing/coupon_grid.h) one after another.
  test::TempDir dir;
  const std::string path = dir.path("50k.db");
  bond_risk::generate(bond_risk::find_preset("50k"), bond_risk::GenerateOptions{5, 10}, path);
  base::Database db(path, base::Database::Mode::read_only);
  const Store s = bond_risk::load(db).store;
  // Dates (the set has one calendar): a curve, a coupon frequency, the maturity's day of the month and its
  // month in the period.
  std::map<std::tuple<NodeIndex, int, unsigned, unsigned>, NodeIndex> last_of_dates;
  std::size_t sharing = 0;
  for (NodeIndex i = 0; i < s.bonds.size(); ++i) {
    const Bond& b = s.bonds[i];
    const std::chrono::year_month_day m{std::chrono::sys_days{std::chrono::days{b.maturity}}};
    const unsigned step = 12 / static_cast<unsigned>(b.coupons_per_year);
    const auto dates = std::tuple(b.curve, b.coupons_per_year, static_cast<unsigned>(m.day()),
                                  static_cast<unsigned>(m.month()) % step);
    const auto [last, first_time] = last_of_dates.try_emplace(dates, i);
    if (first_time) continue;
    ++sharing;
    EXPECT_EQ(last->second, i - 1) << "bond " << s.id(ref(Kind::bond, i)) << " is not beside the bond before it on its dates";
    EXPECT_LE(s.bonds[last->second].maturity, b.maturity);
    last->second = i;
  }
  EXPECT_GT(sharing, 1000u);  // enough bonds share their dates for the order to show
}

TEST(Model, AFullFlushsBytesAreCountedFromTheArraysItStreams) {
  // One bond, two outright trades in one book; a curve whose arrays are
  // not built, with the sums of 5 coupon grid dates for a calendar that
  // laid out 3.
  Store s;
  s.add(Kind::calendar, 5);
  s.calendars.resize(1);
  s.calendars[0].grid_days = {.first_period = {7}, .begin = {0, 3}, .days = {1, 2, 3}, .first_fraction = {0.5}};
  s.add(Kind::ir_curve, 6);
  s.curves.resize(1);
  s.curves[0].grids = {{0, CouponSumRows(5), {}, {}}};
  s.with_key_rates = false;
  s.with_quote_analytics = false;
  s.add(Kind::bond, 1);
  s.bonds.resize(1);
  s.bond_values.resize(1);
  s.bond_cs01.resize(1);
  s.bond_quoted.resize(1);
  for (std::int64_t id : {2, 3}) s.add(Kind::outright_trade, id);
  s.outright_trades.resize(2);
  s.outright_values.resize(2);
  s.outright_cs01.resize(2);
  s.outright_quoted.resize(2);
  s.add(Kind::outright_book, 4);
  s.outright_books.resize(1);
  s.outright_books[0].members = {0, 1};
  const std::size_t nodes = 6, state = sizeof(NodeState), index = sizeof(NodeIndex), flag = 1;
  const std::size_t grid_days = 4 + 2 * 4 + 3 * 2, grid_sums = 5 * sizeof(CouponSums);
  const std::size_t read = nodes * state                                         // states (dirty lists counted, not read)
                           + grid_days + grid_sums                               // read by the curve, by the bond
                           + sizeof(Bond)                                        // the bond
                           + sizeof(BondValue) + flag                            // its price and quote flag, read by its trades
                           + 2 * sizeof(OutrightTrade)                           // the trades
                           + 2 * (index + sizeof(OutrightValue) + flag + state);  // the book's members
  const std::size_t written = nodes * state + grid_days + sizeof(double) + grid_sums + sizeof(BondValue) + flag +
                              2 * (sizeof(OutrightValue) + flag) + sizeof(OutrightBook);
  const FlushBytes b = full_flush_bytes(s);
  EXPECT_EQ(b.read, read);
  EXPECT_EQ(b.written, written);
  EXPECT_EQ(b.traffic(), read + 2 * written);
  // With quote analytics the bond writes its cs01, its trades read it and write theirs, the book reads those.
  s.with_quote_analytics = true;
  const FlushBytes with_cs01 = full_flush_bytes(s);
  EXPECT_EQ(with_cs01.read, read + 3 * sizeof(double));
  EXPECT_EQ(with_cs01.written, written + 3 * sizeof(double));
}

TEST(Model, ALoadReadsOneSnapshotWhileAnotherProgramWrites) {
  // Another program books a trade into a book and takes it out again, each in one transaction,
  // over and over. Every load must see the trade with its membership or neither: the trade
  // without its book, or the membership without the trade (a FAILED book), is a torn read.
  test::TempDir dir;
  const std::string path = dir.path("50k.db");
  bond_risk::generate(bond_risk::find_preset("50k"), bond_risk::GenerateOptions{5, 10}, path);
  std::int64_t trade = 0, book = 0, bond = 0;
  {
    base::Database db(path, base::Database::Mode::read_write);
    db.exec("PRAGMA journal_mode = WAL");
    auto integer = [&](const std::string& sql) {
      base::Statement st = db.prepare(sql);
      st.step();
      return st.integer(0);
    };
    trade = integer("SELECT max(id) FROM (SELECT id FROM outright_trade UNION ALL SELECT id FROM repo_trade UNION ALL "
                    "SELECT id FROM outright_book UNION ALL SELECT id FROM repo_book UNION ALL SELECT id FROM bond)") + 1000;
    book = integer("SELECT min(id) FROM outright_book");
    bond = integer("SELECT min(id) FROM bond");
  }
  std::atomic<bool> stop = false;
  std::atomic<int> toggles = 0;
  std::jthread writer([&] {
    base::Database db(path, base::Database::Mode::read_write);
    db.exec("PRAGMA synchronous = OFF");
    const std::string t = std::to_string(trade), b = std::to_string(book);
    while (!stop) {
      db.exec("BEGIN IMMEDIATE; INSERT INTO outright_trade VALUES (" + t + ", 'TORN', " + std::to_string(bond) +
              ", '2025-01-02', 100, 10, 'BUY'); INSERT INTO outright_book_trade VALUES (" + b + ", " + t + "); COMMIT");
      db.exec("BEGIN IMMEDIATE; DELETE FROM outright_book_trade WHERE trade_id = " + t +
              "; DELETE FROM outright_trade WHERE id = " + t + "; COMMIT");
      ++toggles;
    }
  });
  for (int k = 0; k < 12; ++k) {
    base::Database db(path, base::Database::Mode::read_only);
    const Store s = load(db).store;
    const NodeRef* t = s.by_id.find(trade);
    const NodeRef b = *s.by_id.find(book);
    const auto& members = s.outright_books[b.index].members;
    const bool member = t && std::find(members.begin(), members.end(), t->index) != members.end();
    EXPECT_EQ(s.state(b).error, 0u) << "load " << k << ": book " << book << " names a trade that is not loaded";
    EXPECT_EQ(t != nullptr, member) << "load " << k << ": trade " << trade << " loaded without its membership";
  }
  stop = true;
  writer.join();
  EXPECT_GT(toggles, 0);
}

TEST(Loader, TradeTablesReadInIdRangesOnTwoConnectionsGiveEveryRowOnceAndItsFields) {
  // Ids far apart and of both signs: the ranges are cut by id value, the widest span a whole number allows.
  test::TempDir dir;
  const std::string path = dir.path("ranges.db");
  make_db(path, std::string(kBaseSql) + kGoodSql + R"SQL(
INSERT INTO outright_trade VALUES (-9, 'NEG', 10, '2024-06-01', 80.0, 7, 'BUY'),
                                  (4611686018427387904, 'FAR', 10, '2024-06-01', 80.0, 8, 'SELL'),
                                  (9223372036854775807, 'LAST', 10, '2024-06-01', 80.0, 9, 'BUY'),
                                  (9223372036854775806, 'BAD', 10, '2024-06-01', 80.0, 9, 'HOLD');
INSERT INTO repo_trade VALUES (-8, 'NEGREPO', 10, 1, 3, '2024-12-01', '2025-04-01', 5, 100.0, 0.04, 'EUR', 'BUY');
)SQL");
  base::Database db(path, base::Database::Mode::read_only);
  const Store s = load(db).store;
  for (const auto& [kind, table] : {std::pair{Kind::outright_trade, "outright_trade"}, std::pair{Kind::repo_trade, "repo_trade"}}) {
    const auto& ids = s.ids[static_cast<std::size_t>(kind)];
    std::vector<std::int64_t> loaded(ids.begin(), ids.end()), expected;
    std::sort(loaded.begin(), loaded.end());
    base::Statement st = db.prepare("SELECT id FROM " + std::string(table) + " ORDER BY id");
    while (st.step()) expected.push_back(st.integer(0));
    EXPECT_EQ(loaded, expected) << table;
  }
  auto outright = [&](std::int64_t id) { return s.outright_trades[s.by_id.find(id)->index]; };
  EXPECT_EQ(outright(-9).quantity, 7);
  EXPECT_EQ(outright(4611686018427387904).dir, -1);
  EXPECT_EQ(outright(9223372036854775807).quantity, 9);
  EXPECT_NE(s.error(*s.by_id.find(9223372036854775806)).find("buy_sell 'HOLD'"), std::string::npos);
  EXPECT_EQ(s.state(*s.by_id.find(9223372036854775807)).error, 0u);
  EXPECT_EQ(s.repo_trades[s.by_id.find(-8)->index].notional, 5);
}

TEST(SnapshotReaders, ReadTheStateOfTheirStartWhileOthersCommitAfterIt) {
  test::TempDir dir;
  const std::string path = dir.path("snap.db");
  make_db(path, kBaseSql);
  auto calendars = [](base::Database& db) {
    base::Statement st = db.prepare("SELECT count(*) FROM calendar");
    st.step();
    return st.integer(0);
  };
  base::Database db(path, base::Database::Mode::read_write);
  db.exec("PRAGMA journal_mode = WAL");
  const std::int64_t before = calendars(db);
  SnapshotReaders readers(db, 2);
  ASSERT_EQ(readers.size(), 2u);
  base::Database other(path, base::Database::Mode::read_write);
  other.set_busy_timeout(0);  // the write lock is free again once the readers have begun
  other.exec("INSERT INTO calendar VALUES (77, 'LATER', '2025-01-02')");
  EXPECT_EQ(calendars(other), before + 1);
  EXPECT_EQ(calendars(db), before);
  EXPECT_EQ(calendars(readers.reader(0)), before);
  EXPECT_EQ(calendars(readers.reader(1)), before);
  readers.release();
  EXPECT_EQ(calendars(db), before + 1);
}

TEST(SnapshotReaders, AllReadOneStateWhileAnotherProgramCommitsAsFastAsItCan) {
  test::TempDir dir;
  const std::string path = dir.path("snap.db");
  make_db(path, kBaseSql);
  base::Database db(path, base::Database::Mode::read_write);
  db.exec("PRAGMA journal_mode = WAL");
  std::atomic<bool> stop = false;
  std::jthread writer([&] {
    base::Database w(path, base::Database::Mode::read_write);
    w.exec("PRAGMA synchronous = OFF");
    for (int id = 1000; !stop; ++id) w.exec("INSERT INTO calendar VALUES (" + std::to_string(id) + ", 'C" + std::to_string(id) + "', '2025-01-02')");
  });
  auto calendars = [](base::Database& c) {
    base::Statement st = c.prepare("SELECT count(*) FROM calendar");
    st.step();
    return st.integer(0);
  };
  int together = 0;
  for (int k = 0; k < 40; ++k) {
    SnapshotReaders readers(db, 2);
    if (readers.size() == 0) continue;  // the writer kept the lock too long: db reads alone
    ++together;
    const std::int64_t seen = calendars(db);
    EXPECT_EQ(calendars(readers.reader(0)), seen) << "round " << k;
    EXPECT_EQ(calendars(readers.reader(1)), seen) << "round " << k;
    readers.release();
  }
  stop = true;
  EXPECT_GT(together, 0);
}

TEST(SnapshotReaders, NoneInACallersTransactionInMemoryOrWhileAnotherHoldsTheWriteLock) {
  test::TempDir dir;
  const std::string path = dir.path("snap.db");
  make_db(path, kBaseSql);
  {
    base::Database db(path, base::Database::Mode::read_write);
    base::Transaction caller(db);  // its own uncommitted changes are what it must read
    db.exec("INSERT INTO calendar VALUES (77, 'MINE', '2025-01-02')");
    SnapshotReaders readers(db, 1);
    EXPECT_EQ(readers.size(), 0u);
  }
  {
    base::Database db(":memory:", base::Database::Mode::read_write);
    SnapshotReaders readers(db, 1);
    EXPECT_EQ(readers.size(), 0u);
  }
  base::Database writer(path, base::Database::Mode::read_write);
  base::Transaction writing(writer, true);
  base::Database db(path, base::Database::Mode::read_only);
  SnapshotReaders readers(db, 1);
  EXPECT_EQ(readers.size(), 0u);
}

TEST(Loader, AShareOfTheBooksBringsTheirTradesTheirBondsAndEveryCurveAndCalendar) {
  test::TempDir dir;
  base::Database db(generated_100(dir, "share.db"), base::Database::Mode::read_only);
  auto count = [&](const std::string& sql) { return static_cast<std::size_t>(integers(db, sql).at(0)); };
  const std::int64_t outright = static_cast<std::int64_t>(count("SELECT min(id) FROM outright_book"));
  const std::int64_t repo = static_cast<std::int64_t>(count("SELECT max(id) FROM repo_book"));
  const std::vector<std::int64_t> books = {outright, repo};
  const std::string in = "(" + std::to_string(outright) + ", " + std::to_string(repo) + ")";
  const Loaded share = load(db, &books);
  const Store& s = share.store;
  EXPECT_EQ(s.outright_books.size(), 1u);
  EXPECT_EQ(s.repo_books.size(), 1u);
  EXPECT_EQ(s.outright_trades.size(), count("SELECT count(*) FROM outright_book_trade WHERE book_id IN " + in));
  EXPECT_EQ(s.repo_trades.size(), count("SELECT count(*) FROM repo_book_trade WHERE book_id IN " + in));
  EXPECT_EQ(s.bonds.size(),
            count("SELECT count(*) FROM (SELECT bond_id FROM outright_trade WHERE id IN (SELECT trade_id FROM "
                  "outright_book_trade WHERE book_id IN " + in + ") UNION SELECT bond_id FROM repo_trade WHERE id IN "
                  "(SELECT trade_id FROM repo_book_trade WHERE book_id IN " + in + "))"));
  EXPECT_EQ(s.curves.size(), count("SELECT count(*) FROM ir_curve"));
  EXPECT_EQ(s.calendars.size(), count("SELECT count(*) FROM calendar"));
  // The book's members, in trade id order as a whole load keeps them.
  std::vector<std::int64_t> members;
  for (NodeIndex m : s.outright_books[0].members) members.push_back(s.ids[static_cast<std::size_t>(Kind::outright_trade)][m]);
  std::vector<std::int64_t> expected;
  base::Statement st = db.prepare("SELECT trade_id FROM outright_book_trade WHERE book_id = ? ORDER BY trade_id");
  st.bind(1, outright);
  while (st.step()) expected.push_back(st.integer(0));
  EXPECT_EQ(members, expected);
  EXPECT_TRUE(share.warnings.empty());
}

TEST(Loader, AShareWithScatteredIdsHasEveryRowOfItsBooksAndNoOtherAsAWholeLoadHasThem) {
  test::TempDir dir;
  base::Database db(generated_100(dir, "scattered.db"), base::Database::Mode::read_write);
  auto ids_of = [&](const std::string& sql) { return integers(db, sql); };
  auto move_trade = [&](const std::string& kind, std::int64_t from, std::int64_t to) {
    db.exec("UPDATE " + kind + "_trade SET id = " + std::to_string(to) + " WHERE id = " + std::to_string(from));
    db.exec("UPDATE " + kind + "_book_trade SET trade_id = " + std::to_string(to) + " WHERE trade_id = " + std::to_string(from));
  };
  // Ids far apart (runs of one), at both ends of int64, and next to ids of books outside the share.
  const std::vector<std::int64_t> outright_books = ids_of("SELECT id FROM outright_book ORDER BY id");
  const std::vector<std::int64_t> repo_books = ids_of("SELECT id FROM repo_book ORDER BY id");
  const std::vector<std::int64_t> first = ids_of("SELECT trade_id FROM outright_book_trade WHERE book_id = " +
                                                 std::to_string(outright_books[0]) + " ORDER BY trade_id");
  ASSERT_GE(first.size(), 4u);
  move_trade("outright", first[0], std::numeric_limits<std::int64_t>::max());
  move_trade("outright", first[1], std::numeric_limits<std::int64_t>::min());
  move_trade("outright", first[2], 1'000'000'007);
  const std::int64_t repo_trade = ids_of("SELECT trade_id FROM repo_book_trade WHERE book_id = " +
                                         std::to_string(repo_books[1]) + " ORDER BY trade_id")[0];
  move_trade("repo", repo_trade, -5);
  // A member that is no trade: its book fails, in a share as in a whole load.
  db.exec("INSERT INTO outright_book_trade VALUES (" + std::to_string(outright_books[2]) + ", 77777)");

  const std::vector<std::int64_t> books = {outright_books[2], outright_books[0], repo_books[1], outright_books[0], 424242};
  const std::string in = "(" + std::to_string(outright_books[0]) + ", " + std::to_string(outright_books[2]) + ", " +
                         std::to_string(repo_books[1]) + ")";
  const Loaded share = load(db, &books);
  const Loaded whole = load(db);
  const Store& s = share.store;
  auto loaded = [&](Kind kind) {  // by id (group_by_dependency orders nodes by what they read)
    std::vector<std::int64_t> ids(s.ids[static_cast<std::size_t>(kind)].begin(), s.ids[static_cast<std::size_t>(kind)].end());
    std::ranges::sort(ids);
    return ids;
  };
  EXPECT_EQ(loaded(Kind::outright_trade),
            ids_of("SELECT id FROM outright_trade WHERE id IN (SELECT trade_id FROM outright_book_trade WHERE book_id IN " +
                   in + ") ORDER BY id"));
  EXPECT_EQ(loaded(Kind::repo_trade),
            ids_of("SELECT id FROM repo_trade WHERE id IN (SELECT trade_id FROM repo_book_trade WHERE book_id IN " + in +
                   ") ORDER BY id"));
  EXPECT_EQ(loaded(Kind::bond),
            ids_of("SELECT id FROM bond WHERE id IN (SELECT bond_id FROM outright_trade WHERE id IN (SELECT trade_id FROM "
                   "outright_book_trade WHERE book_id IN " + in + ") UNION SELECT bond_id FROM repo_trade WHERE id IN "
                   "(SELECT trade_id FROM repo_book_trade WHERE book_id IN " + in + ")) ORDER BY id"));
  EXPECT_EQ(loaded(Kind::outright_book), (std::vector<std::int64_t>{outright_books[0], outright_books[2]}));
  EXPECT_EQ(loaded(Kind::repo_book), (std::vector<std::int64_t>{repo_books[1]}));
  // Each book's members and static error as the whole load has them.
  const auto& trade_ids = s.ids[static_cast<std::size_t>(Kind::outright_trade)];
  for (NodeIndex b = 0; b < s.outright_books.size(); ++b) {
    const NodeRef in_whole = *whole.store.by_id.find(s.ids[static_cast<std::size_t>(Kind::outright_book)][b]);
    std::vector<std::int64_t> members, whole_members;
    for (NodeIndex m : s.outright_books[b].members) members.push_back(trade_ids[m]);
    for (NodeIndex m : whole.store.outright_books[in_whole.index].members) {
      whole_members.push_back(whole.store.ids[static_cast<std::size_t>(Kind::outright_trade)][m]);
    }
    EXPECT_EQ(members, whole_members);
    EXPECT_EQ(s.state(ref(Kind::outright_book, b)).error != 0, whole.store.state(in_whole).error != 0);
  }
  EXPECT_NE(s.state(*s.by_id.find(outright_books[2])).error, 0u);  // its member 77777 is no trade
  std::vector<std::int64_t> repo_members;
  for (NodeIndex m : s.repo_books[0].members) repo_members.push_back(s.ids[static_cast<std::size_t>(Kind::repo_trade)][m]);
  EXPECT_EQ(repo_members, ids_of("SELECT trade_id FROM repo_book_trade WHERE book_id = " + std::to_string(repo_books[1]) +
                                 " ORDER BY trade_id"));
}

// Store::check holds on a loaded store with bad rows (their reasons kept,
// a duplicate id failed), and names each broken index: an id by_id does
// not give back, a name node_names disagrees with, a freed reason still in
// use, limits out of id order.
TEST(Model, TheStoresCheckHoldsOnALoadAndNamesEachBrokenIndex) {
  test::TempDir dir;
  const std::string path = generated_100(dir, "check.db");
  base::Database(path, base::Database::Mode::read_write)
      .exec("UPDATE outright_trade SET quantity = 'many' WHERE id = (SELECT min(id) FROM outright_trade);"
            "INSERT INTO risk_limit (id, book_id, measure, upper) VALUES (7, NULL, 'pv01', 1), (3, NULL, 'pv01', 2);");
  const auto model = calculate(path);
  const Store& loaded = model->store;
  ASSERT_NO_THROW(loaded.check());
  const auto broken = [&](const std::function<void(Store&)>& edit, const std::string& named) {
    Store s = loaded;
    edit(s);
    try {
      s.check();
      ADD_FAILURE() << "no invariant broken: " << named;
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << e.what();
    }
  };
  const std::size_t trades = static_cast<std::size_t>(Kind::outright_trade);
  broken([&](Store& s) { std::swap(s.ids[trades][0], s.ids[trades][1]); }, "by_id does not give its id back");
  broken([&](Store& s) { s.node_names[static_cast<std::size_t>(Kind::outright_book)][0] += "X"; }, "node_names disagree");
  const auto& trade_states = loaded.states[trades];
  const auto bad = std::find_if(trade_states.begin(), trade_states.end(), [](const NodeState& st) { return st.error != 0; });
  ASSERT_NE(bad, trade_states.end()) << "the trade with a bad quantity keeps a reason";
  broken([&](Store& s) { s.free_errors.push_back(bad->error); }, "its reason is a freed or missing slot");
  broken([&](Store& s) { std::reverse(s.limits.begin(), s.limits.end()); }, "not in id order");
  broken([&](Store& s) { s.bond_values.pop_back(); }, "differ in number");
}
