// Key-rate ladders (MODEL.md "Key-rate risk") against independent sources:
// QuantLib bump-and-reprice for bonds, a curve rebuilt from bumped points
// for discounted sums, the bound on how far buckets may sum from pv01, and
// full revaluations of a generated graph with each point bumped for books.
#include <gtest/gtest.h>


#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include "base/sqlite.h"
#include "bond_risk/synth/generator.h"
#include "bond_risk/db/loader.h"
#include "bond_risk/model/nodes/calculations.h"
#include "bond_risk/model/pricing/key_rates.h"
#include "bond_risk/model/pricing/status.h"
#include "bond_risk/model/quotes/grid_moments.h"
#include "tests/quantlib_support.h"
#include "tests/test_support.h"

using namespace bond_risk;
using test::bumped_discount_factors;
using test::QuantLibBond;

namespace {

// The shape of the generated curves: twelve points from 0 to 20 years.
std::vector<CurvePoint> sample_points() {
  return {{0, 0.02133},    {30, 0.02481},   {91, 0.02963},   {182, 0.0313},   {365, 0.03296},  {730, 0.03654},
          {1095, 0.04081}, {1826, 0.04294}, {2557, 0.04366}, {3652, 0.04742}, {5479, 0.04885}, {7305, 0.05148}};
}

struct SampleBond {
  const char* start;
  const char* maturity;
  int coupons_per_year;
  double coupon;
};

Date d(const char* text) { return parse_date(text).value(); }

}  // namespace

TEST(KeyRates, BondLaddersAgreeWithQuantLibBumpAndReprice) {
  const std::vector<CurvePoint> points = sample_points();
  const auto [curve, key_rates] = test::key_rate_curve(points);
  const Date today = d("2025-01-01");
  // Frequencies 1, 2, 4; maturities from weeks to 19.9 years, one on a
  // curve point, month ends, a coupon due today, a first period shorter than a period, a start after today.
  const SampleBond bonds[] = {
      {"2024-06-30", "2025-01-20", 2, 0.03},  {"2020-03-31", "2031-03-31", 4, 0.045}, {"2019-01-01", "2027-01-01", 1, 0.02},
      {"2024-12-15", "2044-11-15", 2, 0.051}, {"2023-02-28", "2035-02-28", 4, 0.0},   {"2010-07-01", "2030-01-01", 2, 0.06},
      {"2024-11-01", "2026-01-01", 1, 0.035}, {"2021-08-31", "2029-08-31", 2, 0.028},
      {"2025-06-01", "2032-06-01", 2, 0.04},  // forward starting: its first coupons on the grid are not its own
  };
  for (const SampleBond& b : bonds) {
    SCOPED_TRACE(std::string(b.maturity) + " paying " + std::to_string(b.coupons_per_year) + " a year");
    const std::vector<double> ladder =
        test::ladder_on_grid(d(b.start), d(b.maturity), b.coupons_per_year, b.coupon, today, points, key_rates);
    const BondValue value = test::priced_on_grid(d(b.start), d(b.maturity), b.coupons_per_year, b.coupon, today, curve);

    const QuantLibBond oracle(d(b.start), d(b.maturity), b.coupons_per_year, b.coupon, today);
    EXPECT_NEAR(value.price, oracle.price(bumped_discount_factors(points, 0, 0.0)), 1e-12 * value.price);
    for (std::size_t k = 0; k < points.size(); ++k) {
      const double up = oracle.price(bumped_discount_factors(points, k, kBump));
      const double down = oracle.price(bumped_discount_factors(points, k, -kBump));
      // Relative to the bond's pv01: bump-and-reprice of a price near 100
      // cancels to ~1e-14 absolute, more than 1e-9 of the smallest buckets.
      EXPECT_NEAR(ladder[k], (up - down) / 2, 1e-9 * std::abs(value.pv01)) << "point " << k;
    }
  }
}

TEST(KeyRates, BucketsSumToPv01UpToTheCurvatureOfSinh) {
  const std::vector<CurvePoint> points = sample_points();
  const auto [curve, key_rates] = test::key_rate_curve(points);
  const Date today = d("2025-01-01");
  for (const char* maturity : {"2025-03-01", "2029-06-30", "2044-12-01"}) {
    const std::vector<double> ladder = test::ladder_on_grid(d("2024-01-01"), d(maturity), 2, 0.04, today, points, key_rates);
    const BondValue value = test::priced_on_grid(d("2024-01-01"), d(maturity), 2, 0.04, today, curve);
    double sum = 0;
    for (double kr : ladder) sum += kr;
    const double years = (d(maturity) - today) / kYearBasis;
    const double bound = std::pow(kBump * years, 2) / 8 * std::abs(value.pv01);
    EXPECT_LE(std::abs(sum - value.pv01), bound + 1e-13) << maturity;
    // ... and the bound is not loose by orders of magnitude: the buckets are not pv01 itself.
    if (years > 1) {
      EXPECT_GT(std::abs(sum - value.pv01), bound / 100) << maturity;
    }
  }
}

TEST(KeyRates, DiscountSumLadderIsTheRevaluedSumWithEachPointBumped) {
  const std::vector<CurvePoint> points = sample_points();
  const auto [curve, key_rates] = test::key_rate_curve(points);
  for (int days : {0, 1, 29, 30, 31, 200, 365, 4000, kNumForwardDays}) {
    std::vector<double> ladder(points.size(), 0.0);
    add_discount_sum_key_rates(key_rates, points.size(), days, 1.0, ladder);
    for (std::size_t k = 0; k < points.size(); ++k) {
      const std::vector<double> up = bumped_discount_factors(points, k, kBump);
      const std::vector<double> down = bumped_discount_factors(points, k, -kBump);
      double sum_up = 0, sum_down = 0;
      for (int i = 0; i < days; ++i) sum_up += up[static_cast<std::size_t>(i)], sum_down += down[static_cast<std::size_t>(i)];
      // The naive sums cancel to ~1e-16 * days of a sum near `days`.
      EXPECT_NEAR(ladder[k], (sum_up - sum_down) / 2, 1e-13 * (days + 1)) << days << " days, point " << k;
    }
  }
}

// ---- Ladders of a loaded graph: books against a full revaluation ----

namespace {

struct BookValues {
  std::vector<double> outright_pv, repo_margin, repo_mtm;
};

// A fresh load of `db`, with curve `curve`'s point `point` moved by `shift`, flushed in full.
BookValues books_with_point_moved(const std::string& db, NodeIndex curve, std::size_t point, double shift) {
  test::Model m;
  base::Database conn(db, base::Database::Mode::read_only);
  m.store = load(conn).store;
  m.store.curves[curve].points[point].value += shift;
  build_graph(m.store, m.graph);
  m.graph.mark_all_dirty();
  engine::flush(m.graph, *engine::make_scheduler({.threads = 0}), 4096);
  BookValues v;
  for (const OutrightBook& b : m.store.outright_books) v.outright_pv.push_back(b.total.pv);
  for (const RepoBook& b : m.store.repo_books) {
    v.repo_margin.push_back(b.total.margin);
    v.repo_mtm.push_back(b.total.mtm_pnl);
  }
  return v;
}

void expect_bumped_difference(double kr01, double up, double down, const std::string& what) {
  // Revaluing a sum of |V| cancels to ~1e-16 |V|; the ladder must match that.
  EXPECT_NEAR(kr01, (up - down) / 2, 1e-12 * (std::abs(up) + std::abs(down)) + 1e-9 * std::abs(kr01)) << what;
}

}  // namespace

TEST(Ladders, BookLaddersAreTheBooksRevaluedWithEachPointBumped) {
  test::TempDir dir;
  const std::string db = dir.path("ladders.db");
  generate(find_preset("100"), {.seed = 7, .book_size = 10}, db);
  const auto base = test::calculate(db, 2);
  const Store& s = base->store;
  ASSERT_FALSE(s.outright_books.empty());
  ASSERT_FALSE(s.repo_books.empty());
  for (NodeIndex c = 0; c < s.curves.size(); ++c) {
    for (std::size_t k = 0; k < s.curves[c].points.size(); ++k) {
      const BookValues up = books_with_point_moved(db, c, k, kBump), down = books_with_point_moved(db, c, k, -kBump);
      const std::size_t at = s.key_rate_axis.offset[c] + k, width = s.key_rate_axis.size;
      const std::string where = "curve " + std::to_string(s.ids[1][c]) + " point " + std::to_string(k);
      for (std::size_t b = 0; b < s.outright_books.size(); ++b) {
        expect_bumped_difference(s.outright_books[b].kr01[at], up.outright_pv[b], down.outright_pv[b], where + " pv");
      }
      for (std::size_t b = 0; b < s.repo_books.size(); ++b) {
        expect_bumped_difference(s.repo_books[b].kr01[at], up.repo_margin[b], down.repo_margin[b], where + " margin");
        expect_bumped_difference(s.repo_books[b].kr01[width + at], up.repo_mtm[b], down.repo_mtm[b], where + " mtm_pnl");
      }
    }
  }
}

TEST(Ladders, LaddersAreTheSameForEveryThreadCount) {
  test::TempDir dir;
  const std::string db = dir.path("ladders.db");
  generate(find_preset("100"), {.seed = 3, .book_size = 7}, db);
  const auto one = test::calculate(db, 0);
  for (std::size_t threads : {1, 3}) {
    const auto many = test::calculate(db, threads, 1);  // grain 1: many chunks
    EXPECT_EQ(one->store.bond_kr01, many->store.bond_kr01) << threads;
    for (std::size_t b = 0; b < one->store.outright_books.size(); ++b) {
      EXPECT_EQ(one->store.outright_books[b].kr01, many->store.outright_books[b].kr01) << threads;
    }
    for (std::size_t b = 0; b < one->store.repo_books.size(); ++b) {
      EXPECT_EQ(one->store.repo_books[b].kr01, many->store.repo_books[b].kr01) << threads;
    }
  }
}

// ---- Stored ladders, `show` and `plot ladder` ----

TEST(Ladders, ABatchRunStoresLaddersThatSumToPv01AndPlotDrawsABook) {
  test::TempDir dir;
  const std::string db = dir.path("stored.db");
  generate(find_preset("100"), {.seed = 5, .book_size = 10}, db);
  ASSERT_EQ(test::run_cli("run --batch --threads 2 --db " + db).exit_code, 0);
  base::Database results(db.substr(0, db.size() - 3) + ".results.db", base::Database::Mode::read_only);
  // Buckets sum to pv01 up to the curvature bound for 20-year cash flows (key_rates.h), for bonds and books.
  const double curvature = std::pow(kBump * 20, 2) / 8;
  base::Statement bonds = results.prepare(
      "SELECT r.id, r.pv01, sum(k.kr01), count(k.idx) FROM bond_result r JOIN bond_key_rate k ON k.id = r.id "
      "WHERE r.status = 'OK' GROUP BY r.id");
  std::size_t checked = 0;
  while (bonds.step()) {
    EXPECT_EQ(bonds.integer(3), 12) << "bond " << bonds.integer(0);
    EXPECT_NEAR(bonds.real(2), bonds.real(1), curvature * std::abs(bonds.real(1)) + 1e-13) << "bond " << bonds.integer(0);
    ++checked;
  }
  EXPECT_GE(checked, 5u);
  base::Statement books = results.prepare(
      "SELECT r.id, r.pv01, (SELECT sum(kr01) FROM outright_book_key_rate k WHERE k.id = r.id) FROM outright_book_result r");
  std::string a_book;
  while (books.step()) {
    a_book = std::to_string(books.integer(0));
    EXPECT_NEAR(books.real(2), books.real(1), 1e-6 * std::abs(books.real(1))) << "book " << a_book;
  }
  ASSERT_FALSE(a_book.empty());

  const test::CliResult shown = test::run_cli("show --db " + db + " " + a_book);
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("key rate: ir_curve"), std::string::npos) << shown.out;

  const std::string png = dir.path("ladder.png");
  const test::CliResult plotted = test::run_cli("plot ladder " + a_book + " --db " + db + " --out " + png);
  ASSERT_EQ(plotted.exit_code, 0) << plotted.err;
  EXPECT_EQ(test::slurp(png).substr(0, 4), "\x89PNG");
  const std::string numbers = test::slurp(png + ".dat");
  EXPECT_EQ(std::count(numbers.begin(), numbers.end(), '\n'), 13) << numbers;  // a header and 12 points

  // Without key rates nothing is stored, and the plot says why it has nothing to draw.
  ASSERT_EQ(test::run_cli("run --batch --threads 2 --key-rates 0 --db " + db).exit_code, 0);
  base::Statement none = results.prepare("SELECT count(*) FROM bond_key_rate");
  ASSERT_TRUE(none.step());
  EXPECT_EQ(none.integer(0), 0);
  const test::CliResult empty = test::run_cli("plot ladder " + a_book + " --db " + db + " --out " + png);
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_NE(empty.err.find("KEY_RATES=0"), std::string::npos) << empty.err;
}

// A curve shared among threads (its node's parts, model/nodes/calculations.cpp)
// computes its days in ranges that start at multiples of kAlignedDays and its
// grid sums in parts of the grids: every array must have the bits of one range
// over all days and one part over all grids, for horizons that do and do not
// fill a whole vector, with points off the range boundaries.
TEST(KeyRates, DaysInRangesAndGridsInPartsGiveTheBitsOfTheWholeCurve) {
  for (const int horizon : {kNumForwardDays, kNumForwardDays + 1, 10'003, kMaxForwardDays}) {
    SCOPED_TRACE("horizon " + std::to_string(horizon));
    std::vector<CurvePoint> points = sample_points();
    points.back().days_forward = 6000;
    points.push_back({horizon, 0.0531});
    CurveArrays whole;
    build_curve(points, whole);
    KeyRateArrays whole_rates;
    build_key_rates(points, whole, whole_rates);
    for (const int per_part : {kAlignedDays, 16 * kAlignedDays, 5 * kAlignedDays}) {
      CurveArrays parts;
      size_curve(points, true, parts);
      KeyRateArrays rates;
      size_key_rates(points, horizon, rates);
      for (int from = 0; from < horizon; from += per_part) {  // last range first: order must not matter
        const int first = ((horizon - 1) / per_part) * per_part - from;
        discount_days(parts, first, std::min(first + per_part, horizon));
        bump_days(parts, first, std::min(first + per_part, horizon));
        key_rate_shares(points, parts, first, std::min(first + per_part, horizon), rates);
      }
      sum_discount_factors(parts);
      sum_key_rate_shares(points, rates);
      for (const auto& [got, want] : {std::pair{&parts.df, &whole.df}, {&parts.df_up, &whole.df_up},
                                      {&parts.df_dn, &whole.df_dn}, {&parts.cum_df, &whole.cum_df}, {&parts.r, &whole.r}}) {
        ASSERT_EQ(got->size(), want->size());
        EXPECT_EQ(std::memcmp(got->data(), want->data(), sizeof(double) * static_cast<std::size_t>(got->size())), 0)
            << per_part << " days a part";
      }
      ASSERT_EQ(rates.days.size(), whole_rates.days.size());
      EXPECT_EQ(std::memcmp(rates.days.data(), whole_rates.days.data(), rates.days.size() * sizeof(KeyRateShares)), 0);
      EXPECT_EQ(rates.segment, whole_rates.segment);
      ASSERT_EQ(rates.partial.size(), whole_rates.partial.size());
      for (std::size_t i = 0; i < rates.partial.size(); ++i) {  // field by field: a DiscountSumPart has padding
        const DiscountSumPart &got = rates.partial[i], &want = whole_rates.partial[i];
        ASSERT_TRUE(std::memcmp(&got.lo, &want.lo, sizeof got.lo) == 0 && std::memcmp(&got.hi, &want.hi, sizeof got.hi) == 0 &&
                    got.segment == want.segment)
            << "day " << i;
      }
      EXPECT_EQ(rates.segment_base, whole_rates.segment_base);
    }
    CouponGridDays grids;
    lay_out_coupon_grids(d("2025-01-31"), horizon, grids);
    CouponSumRows sums;
    sum_coupon_grids(grids, whole, true, sums);
    GridKeyRates grid_rates;
    sum_grid_key_rates(grids, points, whole_rates, grid_rates);
    MomentRows moments;
    sum_grid_moments(grids, whole, moments);
    for (const std::size_t count : {1, 4, 7}) {
      CouponSumRows part_sums(grid_rows(grids));
      MomentRows part_moments(grid_rows(grids));
      GridKeyRates part_rates;
      size_grid_key_rates(grids, points, part_rates);
      std::size_t covered = 0;
      for (std::size_t k = 0; k < count; ++k) {
        const GridSpan span = grid_part(grids, k, count);
        EXPECT_EQ(span.first, covered) << "part " << k << " of " << count << " starts where the last ended";
        covered = span.last;
        sum_coupon_grids(grids, whole, true, span, std::span(part_sums));
        sum_grid_key_rates(grids, points, whole_rates, span, part_rates);
        sum_grid_moments(grids, whole, span, std::span(part_moments));
      }
      EXPECT_EQ(covered, grids.begin.size() - 1) << count << " parts cover every grid";
      ASSERT_EQ(part_sums.size(), sums.size());
      EXPECT_EQ(std::memcmp(part_sums.data(), sums.data(), sums.size() * sizeof(CouponSums)), 0) << count << " parts";
      EXPECT_EQ(std::memcmp(part_rates.sums.data(), grid_rates.sums.data(), grid_rates.sums.size() * sizeof(KeyRateShares)), 0);
      EXPECT_EQ(part_rates.segment_start, grid_rates.segment_start);
      EXPECT_EQ(std::memcmp(part_moments.data(), moments.data(), moments.size() * sizeof(MomentSums)), 0);
    }
  }
}
