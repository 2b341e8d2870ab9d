// Market quotes in the running model (MODEL.md "Market quotes and spread"):
// the bond_quote table's bad-data rules, set-price and clear-price, edits by
// other programs, and the cs01 and unquoted counts trades and books publish.
// Expected values come from a fresh load and full flush of what was written,
// from MODEL.md's formulas written out here, and from counting rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "bond_risk/db/change_log.h"
#include "bond_risk/live/command_executor.h"
#include "bond_risk/model/pricing/dates.h"
#include "bond_risk/model/store/published_values.h"
#include "bond_risk/model/store/reason.h"
#include "tests/live_support.h"

using namespace bond_risk;
using test::first_id;
using test::Live;

namespace {

const BondFigures& figures(const Live& live, std::int64_t bond) {
  return live.store().bond_figures[live.node(bond).index];
}

std::string why(const Live& live, std::int64_t id) { return reason(live.store(), live.model->graph(), live.node(id)); }

// MODEL.md's P(x), written out from the bond's remaining flows.
double written_out_price(const Live& live, std::int64_t bond, double x) {
  const Store& s = live.store();
  const Bond& b = s.bonds[live.node(bond).index];
  const Date today = s.calendars[b.calendar].today;
  const RemainingFlows f =
      remaining_flows(s.calendars[b.calendar].grid_days, today, b.place, b.coupons, b.maturity, b.coupons_per_year, b.coupon);
  double p = 0;
  for (std::size_t j = 0; j < f.days.size(); ++j) {
    const double cf = f.c100 + (j + 1 == f.days.size() ? 100 : 0);
    p += cf * s.curves[b.curve].arrays.df[f.days[j]] * std::exp(-x * f.days[j] / kYearBasis);
  }
  return p;
}

}  // namespace

TEST(Quotes, BadQuoteRowsFailTheirBondWithAReasonAndTheRestLoad) {
  // Bonds 4..13 of the 100 preset; the generator quotes about 80% of them.
  Live live("100", 20, 2,
            "DELETE FROM bond_quote; "
            "INSERT INTO bond_quote VALUES (4, NULL), (5, -1.5), (6, 'abc'), (7, 0), (8, 101.25), (999999, 99);");
  for (std::int64_t bond : {4, 5, 6, 7}) {
    EXPECT_EQ(live.store().state(live.node(bond)).status, Status::failed) << "bond " << bond;
    EXPECT_NE(why(live, bond).find("bond_quote clean_price"), std::string::npos) << why(live, bond);
  }
  EXPECT_NE(why(live, 5).find("-1.5 is not a finite positive number"), std::string::npos) << why(live, 5);
  EXPECT_EQ(live.store().state(live.node(8)).status, Status::ok);
  EXPECT_DOUBLE_EQ(figures(live, 8).market_dirty, 101.25 + figures(live, 8).accrued);
  EXPECT_TRUE(is_null(figures(live, 9).z_spread)) << "no row: no quote, no spread";
  EXPECT_EQ(live.store().state(live.node(9)).status, Status::ok);
  test::expect_same_as_fresh(live);
}

// A bad quote is the bond's own bad data: it outranks a FAILED curve's
// STALE (MODEL.md "Market quotes and spread"), and the reason names it.
TEST(Quotes, ABadQuoteOnABondWhoseCurveFailedFailsTheBondNamingTheQuote) {
  Live live("100", 20, 2,
            "UPDATE ir_curve_input_rate SET value = 'bad' WHERE idx = 1 AND ir_curve_id = (SELECT ir_curve_id FROM bond WHERE id = 4);"
            "DELETE FROM bond_quote WHERE bond_id = 4; INSERT INTO bond_quote VALUES (4, 0);");
  const Store& s = live.store();
  ASSERT_EQ(s.state(ref(Kind::ir_curve, s.bonds[live.node(4).index].curve)).status, Status::failed);
  EXPECT_EQ(s.state(live.node(4)).status, Status::failed);
  EXPECT_NE(why(live, 4).find("bond_quote clean_price"), std::string::npos) << why(live, 4);
  for (NodeIndex b = 0; b < s.bonds.size(); ++b) {  // the curve's other bonds are STALE, as before
    if (s.bonds[b].curve == s.bonds[live.node(4).index].curve && b != live.node(4).index) {
      EXPECT_EQ(s.state(ref(Kind::bond, b)).status, Status::stale) << "bond " << s.id(ref(Kind::bond, b));
    }
  }
  test::expect_same_as_fresh(live);
}

TEST(Quotes, SetPriceMovesOnlySpreadFiguresAndCs01AndMatchesAFreshFlush) {
  Live live("100", 20, 2, "DELETE FROM bond_quote;");
  const std::int64_t bond = 8, other = 9;
  const double price = live.store().bond_values[live.node(bond).index].price;
  const double pv_before = live.store().outright_books[0].total.pv;
  const std::uint32_t unquoted_before = live.store().outright_books[0].unquoted;
  EXPECT_EQ(live.store().outright_books[0].cs01, 0.0) << "no quote anywhere: no cs01";

  const base::Json reply = live.run("set-price " + std::to_string(bond) + " 97.5 " + std::to_string(other) + " +101");
  ASSERT_EQ(reply["ok"], true) << reply.dump();
  const BondFigures& f = figures(live, bond);
  EXPECT_EQ(live.store().bond_values[live.node(bond).index].price, price) << "a quote moves no model value";
  // The book takes its trades' (unchanged) pv away and back: the same to rounding.
  EXPECT_NEAR(live.store().outright_books[0].total.pv, pv_before, 1e-12 * std::abs(pv_before));
  EXPECT_DOUBLE_EQ(f.market_dirty, 97.5 + f.accrued);
  EXPECT_NEAR(written_out_price(live, bond, f.z_spread), f.market_dirty, 1e-11 * f.market_dirty);
  EXPECT_NEAR(f.cs01,
              (written_out_price(live, bond, f.z_spread + kBump) - written_out_price(live, bond, f.z_spread - kBump)) / 2,
              1e-9 * std::abs(f.cs01));
  EXPECT_LT(f.cs01, 0);
  test::expect_same_as_fresh(live);  // the rows it wrote load to the same figures

  // Each outright trade on a quoted bond: quantity * dir * the bond's cs01; books sum them and count the rest.
  const Store& s = live.store();
  for (NodeIndex b = 0; b < s.outright_books.size(); ++b) {
    double cs01 = 0;
    std::uint32_t unquoted = 0;
    for (NodeIndex m : s.outright_books[b].members) {
      if (s.states[static_cast<std::size_t>(Kind::outright_trade)][m].status != Status::ok) continue;
      const OutrightTrade& t = s.outright_trades[m];
      const double bond_cs01 = s.bond_figures[t.bond].cs01;
      unquoted += is_null(s.bonds[t.bond].quote) ? 1 : 0;
      if (is_null(bond_cs01)) {
        EXPECT_TRUE(is_null(s.outright_cs01[m]));
      } else {
        EXPECT_EQ(s.outright_cs01[m], static_cast<double>(t.quantity) * bond_cs01 * t.dir);
        cs01 += s.outright_cs01[m];
      }
    }
    EXPECT_NEAR(s.outright_books[b].cs01, cs01, 1e-9 * std::max(1.0, std::abs(cs01)));
    EXPECT_EQ(s.outright_books[b].unquoted, unquoted);
  }
  EXPECT_LE(s.outright_books[0].unquoted, unquoted_before);

  ASSERT_EQ(live.run("clear-price " + std::to_string(bond))["ok"], true);
  EXPECT_TRUE(is_null(figures(live, bond).z_spread));
  EXPECT_FALSE(is_null(figures(live, other).z_spread));
  test::expect_same_as_fresh(live);
}

// `unquoted` counts a book's OK members whose bond has no quote, not those
// whose cs01 is null for another reason: a quoted bond that matures today
// (its only cash flow is today's, so no rate enters and it has no figures).
TEST(Quotes, UnquotedCountsTheMembersWhoseBondHasNoQuote) {
  Live live("100", 20, 2,
            "UPDATE bond SET maturity_date = (SELECT today FROM calendar LIMIT 1) WHERE id = 8;"
            "INSERT OR REPLACE INTO bond_quote (bond_id, clean_price) VALUES (8, 100);");
  const Store& s = live.store();
  const NodeIndex bond = live.node(8).index;
  ASSERT_EQ(s.state(live.node(8)).status, Status::ok);
  ASSERT_TRUE(is_null(s.bond_figures[bond].cs01)) << "no rate enters a bond maturing today";
  std::size_t on_it = 0;
  for (NodeIndex b = 0; b < s.outright_books.size(); ++b) {
    std::uint32_t unquoted = 0;
    for (NodeIndex m : s.outright_books[b].members) {
      if (s.states[static_cast<std::size_t>(Kind::outright_trade)][m].status != Status::ok) continue;
      unquoted += is_null(s.bonds[s.outright_trades[m].bond].quote) ? 1 : 0;
      on_it += s.outright_trades[m].bond == bond ? 1 : 0;
    }
    EXPECT_EQ(s.outright_books[b].unquoted, unquoted) << "book " << b;
  }
  EXPECT_GT(on_it, 0u) << "an OK member on the quoted bond that matures today";
  ASSERT_EQ(live.run("clear-price 8")["ok"], true);
  ASSERT_EQ(live.run("set-price 8 100")["ok"], true);
  test::expect_same_as_fresh(live);
}

// A quote moves its bond's figures, which its outright trades (cs01) and
// their books read, and no value a repo reads: its repos and repo books are
// not recalculated. A quote that fails the bond (no spread reprices it)
// does move its repos, as does the quote that mends it; the model matches a
// fresh flush throughout.
TEST(Quotes, AQuoteRecalculatesNoRepoUnlessItFailsOrMendsItsBond) {
  Live live("100", 20, 2);
  const Store& s = live.store();
  std::int64_t bond = 0;  // a bond with outright trades and repos
  for (NodeIndex b = 0; b < s.bonds.size() && bond == 0; ++b) {
    bool outright = false, repo = false;
    for (const OutrightTrade& t : s.outright_trades) outright = outright || t.bond == b;
    for (const RepoTrade& t : s.repo_trades) repo = repo || t.bond == b;
    if (outright && repo && s.states[static_cast<std::size_t>(Kind::bond)][b].status == Status::ok) {
      bond = s.id(ref(Kind::bond, b));
    }
  }
  ASSERT_NE(bond, 0) << "the preset has a bond with both kinds of trades";
  // Quotes the bond; returns what the tick recalculated, by kind.
  const auto quote = [&](const std::string& price) {
    const base::Json reply = live.run("set-price " + std::to_string(bond) + " " + price);
    EXPECT_EQ(reply["ok"], true) << reply.dump();
    return reply["recalculated"];
  };

  base::Json recalculated = quote("97.25");
  EXPECT_EQ(recalculated["bond"], 1);
  EXPECT_GT(recalculated["outright_trade"], 0);
  EXPECT_GT(recalculated["outright_book"], 0);
  EXPECT_EQ(recalculated["repo_trade"], 0);
  EXPECT_EQ(recalculated["repo_book"], 0);
  test::expect_same_as_fresh(live);

  // No spread reprices a quote of 1e308 (the prices overflow first): the bond fails, and its repos with it.
  recalculated = quote("1e308");
  EXPECT_EQ(live.store().state(live.node(bond)).status, Status::failed);
  EXPECT_GT(recalculated["repo_trade"], 0);
  EXPECT_GT(recalculated["repo_book"], 0);
  test::expect_same_as_fresh(live);

  recalculated = quote("98");
  EXPECT_EQ(live.store().state(live.node(bond)).status, Status::ok);
  EXPECT_GT(recalculated["repo_trade"], 0);
  test::expect_same_as_fresh(live);
  test::expect_result_tables_fresh(live);
}

// A quote moves no model value, so it leaves its bond's key-rate ladder and
// that ladder's version alone: the trades' ladder parts stay current and
// their books update their ladders from the changes (summing every member
// afresh made a 100-bond tick cost a millisecond of book ladders). A curve
// move still moves the version. The books' ladders match a fresh flush.
TEST(Quotes, AQuoteLeavesItsBondsLadderCurrent) {
  Live live("100", 20, 2);
  const NodeIndex bond = live.node(8).index;
  const std::uint32_t version = live.store().bond_ladder_version[bond];
  ASSERT_EQ(live.run("set-price 8 97.25")["ok"], true);
  EXPECT_EQ(live.store().bond_ladder_version[bond], version) << "a quote rebuilt the bond's ladder's version";
  test::expect_same_as_fresh(live);
  const std::int64_t curve = live.store().id(ref(Kind::ir_curve, live.store().bonds[bond].curve));
  ASSERT_EQ(live.run("bump-curve " + std::to_string(curve) + " 1")["ok"], true);
  EXPECT_NE(live.store().bond_ladder_version[bond], version) << "a curve move moves every ladder on it";
}

// A tick is written to bond_quote several rows to a statement: every quote
// of a long tick is kept, and a bond quoted twice keeps its last price, in
// the model as in the table a restart reads.
TEST(Quotes, ALongTickKeepsEveryQuoteAndABondQuotedTwiceItsLastPrice) {
  Live live("100", 20, 2, "DELETE FROM bond_quote;");
  const Store& s = live.store();
  const std::size_t bonds = s.bonds.size();
  std::string tick = "set-price";
  constexpr int kRounds = 7;  // 70 quotes: more than a statement's rows
  for (int r = 0; r < kRounds; ++r) {
    for (NodeIndex b = 0; b < bonds; ++b) {
      tick += " " + std::to_string(s.id(ref(Kind::bond, b))) + " " + std::to_string(95 + r) + "." + std::to_string(b);
    }
  }
  ASSERT_EQ(live.run(tick)["ok"], true);
  base::Statement row = live.db->prepare("SELECT clean_price FROM bond_quote WHERE bond_id = ?");
  for (NodeIndex b = 0; b < bonds; ++b) {
    const double last = std::stod(std::to_string(95 + kRounds - 1) + "." + std::to_string(b));
    EXPECT_EQ(s.bonds[b].quote, last) << "bond index " << b;
    ASSERT_TRUE(row.bind(1, s.id(ref(Kind::bond, b))).step()) << "no row for bond index " << b;
    EXPECT_EQ(row.real(0), last) << "bond index " << b;
    row.reset();
  }
  base::Statement count = live.db->prepare("SELECT count(*) FROM bond_quote");
  ASSERT_TRUE(count.step());
  EXPECT_EQ(count.integer(0), static_cast<std::int64_t>(bonds));
  test::expect_same_as_fresh(live);
}

TEST(Quotes, BadSetPriceIsRefusedAndChangesNothing) {
  Live live;
  const std::uint64_t digest = results_digest(live.store());
  const std::string curve = std::to_string(first_id(live.store(), Kind::ir_curve));
  for (const auto& [line, message] : std::vector<std::pair<std::string, std::string>>{
           {"set-price 8", "usage: set-price"},
           {"set-price 8 99 9", "the last bond has no price"},
           {"set-price 8 -3", "is not a positive number"},
           {"set-price 8 0", "is not a positive number"},
           {"set-price 8 abc", "CLEAN 'abc' is not a finite number"},
           {"set-price 8 99 " + curve + " 99", "not bond"},
           {"set-price NOPE 99", "no calendar, curve, bond, trade or book has the id or name 'NOPE'"},
           {"clear-price", "usage: clear-price BOND"},
       }) {
    const base::Json reply = live.run(line);
    EXPECT_EQ(reply["ok"], false) << "accepted: " << line;
    EXPECT_NE(reply.value("error", "").find(message), std::string::npos) << line << ": " << reply.dump();
  }
  EXPECT_EQ(results_digest(live.store()), digest) << "a refused tick changed a quote (the first bond's?)";
  test::expect_same_as_fresh(live);
}

TEST(Quotes, QuotesEditedByAnotherProgramAreReadBondByBond) {
  Live live;
  ChangeLog log(*live.db);
  test::apply_other_program(live, log,
                            "INSERT OR REPLACE INTO bond_quote VALUES (8, 90.0); DELETE FROM bond_quote WHERE bond_id = 9; "
                            "INSERT OR REPLACE INTO bond_quote VALUES (10, -2)");
  EXPECT_DOUBLE_EQ(figures(live, 8).market_dirty, 90.0 + figures(live, 8).accrued);
  EXPECT_TRUE(is_null(figures(live, 9).market_dirty));
  EXPECT_EQ(live.store().state(live.node(10)).status, Status::failed);
  test::expect_same_as_fresh(live);
  test::apply_other_program(live, log, "UPDATE bond_quote SET clean_price = 100 WHERE bond_id = 10");
  EXPECT_EQ(live.store().state(live.node(10)).status, Status::ok) << why(live, 10);
  test::expect_same_as_fresh(live);
}

// Absurd but accepted inputs, where Newton on the price itself overshot onto
// the steep side and used up its 100 steps creeping back: a yield and a
// spread exist, so the bond must not fail (MODEL.md: FAILED only when none does).
TEST(Quotes, AYieldOrSpreadFarFromTheFirstGuessIsStillFound) {
  const Date start = *parse_date("2010-01-01"), maturity = *parse_date("2044-11-30"), today = *parse_date("2025-01-01");
  const CurvePoint negative[] = {{0, -0.5}, {kNumForwardDays, -0.5}};
  CurveArrays curve;
  build_curve(negative, curve);
  const BondFigures f = test::figures_on_grid(start, maturity, 2, 0.05, today, curve, kNull);
  EXPECT_EQ(f.failure, AnalyticsFailure::none);
  EXPECT_NEAR(f.yield, -0.442408923875, 1e-10);  // the root, found by bisection on the written-out price

  const CurvePoint high[] = {{0, 0.05}, {365, 0.055}, {1826, 0.065}, {3652, 0.075}, {5479, 0.085}, {7305, 0.09}};
  build_curve(high, curve);
  const BondFigures z = test::figures_on_grid(start, maturity, 2, 0.0, today, curve, 2000.0);
  EXPECT_EQ(z.failure, AnalyticsFailure::none);
  EXPECT_NEAR(z.z_spread, -0.240358026844, 1e-10);  // likewise
}

TEST(Quotes, ADatabaseFromBeforeQuotesLoadsUnquotedAndTheEngineAddsTheTable) {
  Live live("100", 20, 2, "DROP TABLE bond_quote;");
  for (std::size_t i = 0; i < live.store().bonds.size(); ++i) {
    EXPECT_TRUE(is_null(live.store().bond_figures[i].z_spread));
    EXPECT_EQ(live.store().states[static_cast<std::size_t>(Kind::bond)][i].status, Status::ok);
  }
  const base::Json reply = live.run("set-price 8 99.5");
  ASSERT_EQ(reply["ok"], true) << reply.dump();
  EXPECT_FALSE(is_null(figures(live, 8).z_spread));
  test::expect_same_as_fresh(live);
}

// For trad4 bonds and convention bonds alike (whose flows are valued
// without the solves when the analytics are off).
TEST(Quotes, QuoteAnalyticsOffLeavesEveryFigureNullAndEveryValueAsItWas) {
  for (const char* conventions : {"none", "market"}) {
    SCOPED_TRACE(conventions);
    test::TempDir dir;
    const std::string db = dir.path("q.db");
    ASSERT_EQ(test::run_cli("generate --preset 100 --conventions " + std::string(conventions) + " --out " + db).exit_code, 0);
    auto stored = [&](const std::string& flag) {
      EXPECT_EQ(test::run_cli("run --batch --db " + db + " " + flag).exit_code, 0);
      base::Database results(dir.path("q.results.db"), base::Database::Mode::read_only);
      base::Statement st = results.prepare(
          "SELECT count(yield), count(z_spread), total(price), (SELECT total(pv) FROM outright_book_result), "
          "(SELECT count(cs01) FROM outright_trade_result), total(pv01), count(settlement_date) FROM bond_result");
      st.step();
      return std::vector<double>{st.real(0), st.real(1), st.real(2), st.real(3), st.real(4), st.real(5), st.real(6)};
    };
    const std::vector<double> on = stored("--quote-analytics 1"), off = stored("--quote-analytics 0");
    EXPECT_EQ(on[0], 10) << "every bond of the 100 preset has a yield";
    EXPECT_GT(on[1], 0) << "the generator quotes some bonds";
    EXPECT_GT(on[4], 0);
    EXPECT_EQ(off[0], 0);
    EXPECT_EQ(off[1], 0);
    EXPECT_EQ(off[4], 0);
    EXPECT_EQ(off[6], 0);
    EXPECT_EQ(on[2], off[2]) << "prices do not depend on the analytics";
    EXPECT_EQ(on[3], off[3]);
    EXPECT_EQ(on[5], off[5]);
  }
}

// Without quote analytics an OK outright trade's cs01 is null and not
// written again while the trade stays OK (Store::outright_cs01): a trade
// that expired (publishing 0) and came back in a whole recalculation must
// publish null again, as a fresh flush of the rolled database does.
TEST(Quotes, WithoutAnalyticsATradeBackFromExpiredPublishesNoCs01AsAFreshFlush) {
  Live bare("100", 20, 2, "", Conventions::none, true);
  const Store& s = bare.store();
  const auto roll = [&](Date today) {
    bare.commit("roll-date " + format_date(today));
    bare.model->recalculate();
  };
  const auto outright = [](NodeIndex i) { return ref(Kind::outright_trade, i); };
  const auto expired = [&] {
    std::size_t n = 0;
    for (NodeIndex i = 0; i < s.outright_trades.size(); ++i) n += s.state(outright(i)).status == Status::expired;
    return n;
  };
  const Date today = s.calendars[0].today;
  ASSERT_EQ(expired(), 0u);
  roll(std::ranges::min(s.bonds, {}, &Bond::maturity).maturity + 1);
  ASSERT_GT(expired(), 0u) << "the first bond to mature expires its trades";
  for (NodeIndex i = 0; i < s.outright_trades.size(); ++i) {
    if (s.state(outright(i)).status == Status::expired) {
      EXPECT_EQ(published_values(s, outright(i)).values[3], 0.0);
    }
  }
  roll(today);
  ASSERT_EQ(expired(), 0u);

  LiveModel fresh(bare.load(), engine::SchedulerOptions{.threads = 0}, 64);
  fresh.flush_all();
  for (NodeIndex i = 0; i < s.outright_trades.size(); ++i) {
    const NodeRef twin = *fresh.store().by_id.find(s.id(outright(i)));
    ASSERT_EQ(s.state(outright(i)).status, fresh.store().state(twin).status);
    const double cs01 = published_values(s, outright(i)).values[3];
    EXPECT_TRUE(std::isnan(cs01)) << "outright trade " << s.id(outright(i)) << ": cs01 " << cs01;
    EXPECT_TRUE(std::isnan(published_values(fresh.store(), twin).values[3]));
  }
}

// With neither key rates nor quote analytics a recalculation has no rest:
// asked for its values first, it runs whole (a second pass would only
// value the bonds again), and gives a whole recalculation's bits.
TEST(Quotes, WithoutKeyRatesAndAnalyticsValuesFirstRunsWhole) {
  Live first("100", 20, 2, "", Conventions::none, true), whole("100", 20, 2, "", Conventions::none, true);
  for (const std::string line : {"bump-curve GBP-GILT 3", "roll-date 2025-11-24"}) {
    first.commit(line);
    first.model->recalculate(true);
    EXPECT_FALSE(first.model->completing()) << line << ": no rest awaits";
    whole.commit(line);
    whole.model->recalculate();
    for (std::size_t k = 0; k < kKindCount; ++k) {
      for (NodeIndex i = 0; i < first.store().size(static_cast<Kind>(k)); ++i) {
        const NodeRef n = ref(static_cast<Kind>(k), i);
        ASSERT_EQ(first.store().state(n).status, whole.store().state(n).status) << line;
        const PublishedValues a = published_values(first.store(), n), b = published_values(whole.store(), n);
        for (std::size_t v = 0; v < a.count; ++v) {
          EXPECT_TRUE(a.values[v] == b.values[v] || (std::isnan(a.values[v]) && std::isnan(b.values[v]))) << line;
        }
      }
    }
  }
}

// Every solve of a generated set ends at its first evaluation, where the
// Taylor polynomial proves its root, or a few more (the yield from the
// curve's rates, the spread from 0; docs/quote-analytics.md): a worse
// start, a bound that proves less or a slower fallback fails this.
TEST(Quotes, EverySolveOfAGeneratedSetTakesAFewEvaluations) {
  Live live("50k", 20, 2);
  std::size_t quoted = 0, firsts = 0;
  for (std::size_t i = 0; i < live.store().bonds.size(); ++i) {
    const BondFigures& f = live.store().bond_figures[i];
    if (is_null(f.yield)) continue;
    EXPECT_EQ(f.yield_steps, 1) << "bond index " << i;
    if (is_null(f.z_spread)) continue;
    ++quoted;
    EXPECT_LE(f.spread_steps, 3) << "bond index " << i;
    firsts += f.spread_steps == 1;
  }
  EXPECT_GT(quoted, live.store().bonds.size() / 2);
  EXPECT_GT(firsts, quoted * 99 / 100) << "spreads proven at their first evaluation";
}
