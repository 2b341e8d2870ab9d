// Curves with horizons from 20 to 60 years (docs/model.md "ir_curve"): a
// curve's horizon is its last input day, its daily arrays cover that many
// days, bonds and repos on it are valued to it, and a curve beside it on
// the same calendar keeps its own. Checked against closed forms on flat
// curves and MODEL.md's schedule written out date by date.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "tests/test_support.h"

using namespace bond_risk;
using test::make_db;

namespace {

const char* const kLongSql = R"SQL(
INSERT INTO calendar VALUES (1, 'LONDON', '2025-01-01');
INSERT INTO ir_curve VALUES (2, 'FLAT3', 'GBP'), (4, 'LONG4', 'GBP'), (5, 'TOOLONG', 'GBP'), (6, 'TOOSHORT', 'GBP');
INSERT INTO ir_curve_input_rate VALUES (2, 0, 0, 0.03), (2, 1, 7305, 0.03),
                                       (4, 0, 0, 0.04), (4, 1, 3652, 0.04), (4, 2, 21915, 0.04),
                                       (5, 0, 0, 0.04), (5, 1, 21916, 0.04),
                                       (6, 0, 0, 0.04), (6, 1, 7000, 0.04);
INSERT INTO bond (id, name, calendar_id, ir_curve_id, start_date, maturity_date, coupons_per_year, coupon) VALUES
  (10, 'ZERO2030', 1, 2, '2020-01-01', '2030-01-01', 1, 0.0),
  (11, 'ZERO2070', 1, 4, '2020-01-01', '2070-01-01', 1, 0.0),
  (12, 'C2065', 1, 4, '2020-03-15', '2065-03-15', 4, 0.045),
  (13, 'EDGE', 1, 4, '2020-01-01', '2084-12-31', 2, 0.03),
  (14, 'BEYOND', 1, 4, '2020-01-01', '2085-01-01', 2, 0.03),
  (15, 'ONTOOLONG', 1, 5, '2020-01-01', '2030-01-01', 2, 0.03),
  (16, 'ONTOOSHORT', 1, 6, '2020-01-01', '2030-01-01', 2, 0.03);
INSERT INTO bond_quote VALUES (12, 101.5);
INSERT INTO repo_trade VALUES (200, 'R2080', 11, 1, 4, '2024-12-01', '2080-01-01', 10, 1000.0, 0.04, 'GBP', 'BUY'),
                              (201, 'R2085', 11, 1, 4, '2024-12-01', '2085-01-02', 10, 1000.0, 0.04, 'GBP', 'BUY');
)SQL";

double flat(double rate, int days) { return std::exp(-rate * days / kYearBasis); }

}  // namespace

TEST(LongCurves, ASixtyYearCurveValuesBondsAndReposToItsHorizonBesideATwentyYearOne) {
  test::TempDir dir;
  make_db(dir.path("long.db"), kLongSql);
  const auto m = test::calculate(dir.path("long.db"), 2);
  const Date today = *parse_date("2025-01-01");
  const auto price = [&](std::int64_t id) { return m->node(id, m->store.bond_values).price; };

  // The 20-year curve beside it keeps its value, though its calendar's grids now reach 60 years.
  EXPECT_NEAR(price(10), 100 * flat(0.03, *parse_date("2030-01-01") - today), 1e-12 * 100);
  EXPECT_NEAR(price(11), 100 * flat(0.04, *parse_date("2070-01-01") - today), 1e-12 * 100);
  double coupons = 0;
  for (Date d : test::coupon_schedule(*parse_date("2020-03-15"), *parse_date("2065-03-15"), 4)) {
    if (d >= today) coupons += 100 * 0.045 / 4 * flat(0.04, d - today);
  }
  EXPECT_NEAR(price(12), coupons + 100 * flat(0.04, *parse_date("2065-03-15") - today), 1e-11 * 100);
  EXPECT_EQ(m->status(13), Status::ok) << "maturity on the curve's last day, 21914";
  EXPECT_EQ(m->status(14), Status::failed);
  EXPECT_EQ(m->reason(14), "maturity_date 2085-01-01 is beyond the curve horizon of 21915 days from today 2025-01-01");

  // Quote analytics over a 45-year quarterly bond's 161 flows.
  const BondFigures& f = m->node(12, m->store.bond_figures);
  EXPECT_EQ(f.failure, AnalyticsFailure::none);
  EXPECT_FALSE(is_null(f.z_spread));
  EXPECT_FALSE(is_null(f.quote_yield));
  EXPECT_GT(f.modified_duration, 15);

  // Its key rates sum to its pv01 within the second-order term (MODEL.md: (BUMP t)^2 / 8 of it).
  const NodeIndex c2065 = m->store.by_id.find(12)->index;
  const std::span<const double> ladder = m->store.bond_ladder(c2065);
  const double sum = std::accumulate(ladder.begin(), ladder.begin() + 3, 0.0), pv01 = m->node(12, m->store.bond_values).pv01;
  EXPECT_NEAR(sum, pv01, std::pow(kBump * 40.2, 2) / 8 * std::abs(pv01));

  // A repo discounts on its curve to its end date, 55 years out: the discounted sum written out.
  const int days = *parse_date("2080-01-01") - today;
  double discounted = 0;
  for (int i = 0; i < days; ++i) discounted += flat(0.04, i);
  const RepoValue& r = m->node(200, m->store.repo_values);
  EXPECT_NEAR(r.end_cash, 1000 * std::exp(0.04 * days / kYearBasis), 1e-12 * r.end_cash);
  EXPECT_NEAR(r.mtm_pnl, r.end_cash - 1000 * discounted / kYearBasis, 1e-9 * r.end_cash);
  EXPECT_EQ(m->status(201), Status::failed);
  EXPECT_EQ(m->reason(201), "end_date 2085-01-02 is beyond the curve horizon of 21915 days from today 2025-01-01");

  // Horizons outside 7305 .. 21915 fail the curve, naming it; its bonds go STALE.
  EXPECT_EQ(m->status(5), Status::failed);
  EXPECT_EQ(m->reason(5), "ir_curve last input day (its horizon) is 21916, not within 7305..21915");
  EXPECT_EQ(m->status(6), Status::failed);
  EXPECT_EQ(m->reason(6), "ir_curve last input day (its horizon) is 7000, not within 7305..21915");
  EXPECT_EQ(m->status(15), Status::stale);
  EXPECT_EQ(m->status(16), Status::stale);

  // Memory grows with the horizons used: each curve's arrays are its own length.
  EXPECT_EQ(m->node(2, m->store.curves).horizon(), 7305);
  EXPECT_EQ(m->node(4, m->store.curves).horizon(), 21915);
}
