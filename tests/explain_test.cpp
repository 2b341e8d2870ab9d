// The P&L day and its explain (MODEL.md "The P&L day and its explain"):
// start-day, the moves of each event by cause, the key-rate prediction of a
// curve move, durability across a restart and a replay of the event log.
// Expected values come from the books' measures read before and after each
// event, from a revaluation of the book on moved curves (bumps up and down),
// and from a second engine replaying the logged commands.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <set>
#include <thread>
#include <sstream>
#include <string>
#include <vector>

#include "bond_risk/cli/stored_explain.h"
#include "bond_risk/db/loader.h"
#include "bond_risk/db/result_writer.h"
#include "bond_risk/db/schema.h"
#include "bond_risk/live/command_executor.h"
#include "bond_risk/model/pnl/pnl_day.h"
#include "bond_risk/synth/generator.h"
#include "tests/live_support.h"
#include "tests/test_support.h"

using namespace bond_risk;
using test::first_id;
using test::Live;
using test::Reopened;

namespace {

// A book's explain: its causes' actual moves by name, and day_pnl.
struct BookExplain {
  double day_pnl = 0, residual = 0, gross = 0;
  std::map<std::string, base::Json> causes;
};

BookExplain book_explain(Live& live, const std::string& book) {
  const base::Json reply = live.run("explain " + book);
  EXPECT_EQ(reply["ok"], true) << reply.dump();
  BookExplain out{reply["day_pnl"].get<double>(), reply["residual"].get<double>(), 0, {}};
  for (const base::Json& c : reply["causes"]) {
    out.causes[c["cause"].get<std::string>()] = c;
    out.gross += std::abs(c["actual"].get<double>());
  }
  return out;
}

double measure(const Live& live, const char* book) { return book_measure(live.store(), live.store().names.at(book)); }

// Every book's causes and day_pnl in `a` as in `b` (to 1e-9: two
// groupings of the same events round their sums apart).
void expect_same_causes(Live& a, Live& b) {
  for (const char* book : {"OB_GBP-GILT_1", "OB_EUR-BUND_1", "RB_GBP-GILT_1", "RB_EUR-BUND_1"}) {
    const BookExplain x = book_explain(a, book), y = book_explain(b, book);
    ASSERT_EQ(x.causes.size(), y.causes.size()) << book;
    for (const auto& [cause, c] : y.causes) {
      ASSERT_TRUE(x.causes.count(cause)) << book << ": " << cause;
      const double want = c["actual"].get<double>();
      EXPECT_NEAR(x.causes.at(cause)["actual"].get<double>(), want, 1e-9 * std::max(1.0, std::abs(want))) << book << ": " << cause;
    }
    EXPECT_NEAR(x.day_pnl, y.day_pnl, 1e-9 * std::max(1.0, std::abs(y.day_pnl))) << book;
  }
}

// A desk's stream: curve moves, a roll, amendments, bookings, a removal, quotes.
std::vector<std::string> a_day(const Live& live) {
  // Two trades of OB_GBP-GILT_1: the amendment and the removal move it.
  const Store& s = live.store();
  const OutrightBook& book = s.outright_books[s.names.at("OB_GBP-GILT_1").index];
  const std::string ot = std::to_string(s.id(ref(Kind::outright_trade, book.members.at(0))));
  const std::string ot2 = std::to_string(s.id(ref(Kind::outright_trade, book.members.at(1))));
  const std::string rt = std::to_string(first_id(s, Kind::repo_trade));
  return {"bump-curve GBP-GILT 3",
          "set-rate EUR-BUND 0 0.031",
          "amend-trade " + ot + " quantity=2500",
          "set-price 4 97.5 5 101",
          "add-outright bond_id=4 trade_price=99.5 quantity=100 buy_sell=BUY book=OB_GBP-GILT_1",
          "add-repo bond_id=5 end_date=2026-05-01 notional=100 start_cash=10000 rate=0.05 buy_sell=SELL cash_ccy=EUR",
          "bump-curve EUR-BUND -2",
          "remove-trade " + ot2,
          "amend-trade " + rt + " notional=5000",
          "roll-date 2009-06-03",
          "set-curve GBP-GILT 0.041 0.042 0.043 0.044 0.045 0.046 0.047 0.048 0.049 0.05 0.051 0.052",
          "bump-curve GBP-GILT 1"};
}

// The explain as JSON, without the event it is as of.
std::string explain_text(base::Json reply) {
  reply.erase("event");
  return reply.dump();
}

}  // namespace

TEST(Explain, TheCausesAddUpToDayPnlAndEachEventMovesOnlyItsCause) {
  Live live("100", 20, 2);
  ASSERT_EQ(live.run("start-day")["ok"], true);
  for (const char* book : {"OB_GBP-GILT_1", "RB_EUR-BUND_1"}) EXPECT_EQ(book_explain(live, book).day_pnl, 0) << book;
  for (const std::string& line : a_day(live)) {
    const double before = measure(live, "OB_GBP-GILT_1");
    const BookExplain was = book_explain(live, "OB_GBP-GILT_1");
    const base::Json reply = live.run(line);
    ASSERT_EQ(reply["ok"], true) << line << ": " << reply.dump();
    // The event's move of the book is the change of its measure, all in one cause.
    const BookExplain now = book_explain(live, "OB_GBP-GILT_1");
    double moved = 0;
    for (const auto& [cause, c] : now.causes) {
      const double was_actual = was.causes.count(cause) ? was.causes.at(cause)["actual"].get<double>() : 0.0;
      moved += c["actual"].get<double>() - was_actual;
    }
    EXPECT_NEAR(moved, measure(live, "OB_GBP-GILT_1") - before, 1e-9 * std::max(1.0, std::abs(before))) << line;
  }
  for (const char* book : {"OB_GBP-GILT_1", "OB_EUR-BUND_1", "RB_GBP-GILT_1", "RB_EUR-BUND_1"}) {
    const BookExplain e = book_explain(live, book);
    EXPECT_LE(std::abs(e.residual), 1e-9 * std::max(1.0, e.gross)) << book;
    EXPECT_GT(e.gross, 0) << book << " moved with nothing";
  }
  const BookExplain e = book_explain(live, "OB_GBP-GILT_1");
  for (const char* cause : {"curve GBP-GILT", "curve EUR-BUND", "roll", "new", "amended", "removed"}) {
    EXPECT_TRUE(e.causes.count(cause) || std::string(cause) == "curve EUR-BUND") << cause;
  }
  EXPECT_TRUE(e.causes.at("curve GBP-GILT").contains("predicted"));
  EXPECT_FALSE(e.causes.at("roll").contains("predicted"));
  // The total is the books' sum.
  const base::Json all = live.run("explain");
  double sum = 0;
  for (const base::Json& b : all["books"]) sum += b["day_pnl"].get<double>();
  EXPECT_NEAR(all["total"]["day_pnl"].get<double>(), sum, 1e-9 * std::max(1.0, std::abs(sum)));
}

TEST(Explain, ADayOfRollsAloneIsAllRoll) {
  Live live("100", 20, 2);
  ASSERT_EQ(live.run("start-day")["ok"], true);
  ASSERT_EQ(live.run("roll-date 2009-06-02")["ok"], true);
  ASSERT_EQ(live.run("roll-date 2009-07-15")["ok"], true);
  for (const char* book : {"OB_GBP-GILT_1", "RB_EUR-BUND_1"}) {
    const BookExplain e = book_explain(live, book);
    ASSERT_EQ(e.causes.size(), 1u) << book;
    EXPECT_EQ(e.causes.begin()->first, "roll");
    EXPECT_EQ(e.causes.begin()->second["actual"].get<double>() + e.residual, e.day_pnl) << book;
  }
}

TEST(Explain, TheLadderPredictsASmallBumpAndLeavesConvexityOfABigOne) {
  Live live("100", 20, 2);
  ASSERT_EQ(live.run("start-day")["ok"], true);
  ASSERT_EQ(live.run("bump-curve GBP-GILT 1")["ok"], true);
  const base::Json small = book_explain(live, "OB_GBP-GILT_1").causes.at("curve GBP-GILT");
  EXPECT_LT(std::abs(small["unexplained"].get<double>()), 1e-3 * std::abs(small["actual"].get<double>())) << small.dump();

  // The book revalued 100bp up and down from here: its second-order move
  // (m_up + m_dn - 2 m_0) / 2 is what the linear ladder leaves out of the up move.
  const double m0 = measure(live, "OB_GBP-GILT_1");
  ASSERT_EQ(live.run("start-day")["ok"], true);
  ASSERT_EQ(live.run("bump-curve GBP-GILT 100")["ok"], true);
  test::expect_same_as_fresh(live);  // the book's value on the bumped curve is a full revaluation's
  const double up = measure(live, "OB_GBP-GILT_1");
  const base::Json big = book_explain(live, "OB_GBP-GILT_1").causes.at("curve GBP-GILT");
  ASSERT_EQ(live.run("bump-curve GBP-GILT -200")["ok"], true);
  const double down = measure(live, "OB_GBP-GILT_1");
  const double second_order = (up + down - 2 * m0) / 2;
  EXPECT_DOUBLE_EQ(big["actual"].get<double>(), up - m0);
  const double unexplained = big["unexplained"].get<double>();
  EXPECT_GT(unexplained * second_order, 0) << "unexplained " << unexplained << ", convexity " << second_order;
  EXPECT_NEAR(unexplained, second_order, 0.1 * std::abs(second_order));
}

TEST(Explain, ARestartKeepsTheExplainBitForBit) {
  Live live("100", 20, 2);
  ASSERT_EQ(live.run("start-day")["ok"], true);
  for (const std::string& line : a_day(live)) ASSERT_EQ(live.run(line)["ok"], true) << line;
  const std::string before = live.run("explain")["books"].dump();
  const std::string events = live.run("explain-events OB_GBP-GILT_1 5").dump();
  live.executor.reset();
  live.model.reset();
  live.db.reset();
  Reopened again(live.path);
  const base::Json after = again.run("explain");
  // Book measures come from a fresh full sum after a restart: only the
  // explain's own figures must be the same bits.
  base::Json a = base::Json::parse(before), b = after["books"];
  for (base::Json* books : {&a, &b}) {
    for (base::Json& book : *books) book.erase("measure"), book.erase("day_pnl"), book.erase("residual");
  }
  EXPECT_EQ(a.dump(), b.dump());
  EXPECT_EQ(events, again.run("explain-events OB_GBP-GILT_1 5").dump());
}

TEST(Explain, ReplayingTheLoggedCommandsOnACopyTakenAtStartDayGivesTheSameExplain) {
  Live live("100", 20, 2);
  ASSERT_EQ(live.run("start-day")["ok"], true);
  const std::string copy = live.dir.path("copy.db");
  live.db->exec("VACUUM INTO '" + copy + "'");
  const std::int64_t started = live.run("explain")["day"]["after_event"].get<std::int64_t>();
  for (const std::string& line : a_day(live)) ASSERT_EQ(live.run(line)["ok"], true) << line;
  const base::Json original = live.run("explain");

  Reopened replica(copy);
  base::Statement logged = live.db->prepare("SELECT command FROM event_log WHERE seq > ? ORDER BY seq");
  logged.bind(1, started);
  while (logged.step()) ASSERT_EQ(replica.run(std::string(logged.text(0)))["ok"], true) << logged.text(0);
  EXPECT_EQ(explain_text(replica.run("explain")), explain_text(original));
}

TEST(Explain, BadRequestsAreRefusedAndChangeNothing) {
  Live live("100", 20, 2);
  ASSERT_EQ(live.run("bump-curve GBP-GILT 2")["ok"], true);
  const std::string before = explain_text(live.run("explain"));
  for (const auto& [line, message] : std::vector<std::pair<std::string, std::string>>{
           {"explain NOPE", "no calendar, curve, bond, trade or book has the id or name 'NOPE'"},
           {"explain GBP-GILT", "not a book"},
           {"explain OB_GBP-GILT_1 extra", "usage: explain"},
           {"explain-events", "usage: explain-events"},
           {"explain-events OB_GBP-GILT_1 0", "lists 1 to 1000 events, not 0"},
           {"explain-events OB_GBP-GILT_1 1001", "lists 1 to 1000 events"},
           {"explain-events OB_GBP-GILT_1 ten", "N 'ten' is not a whole number"},
           {"start-day now", "usage: start-day"},
       }) {
    const base::Json reply = live.run(line);
    EXPECT_EQ(reply["ok"], false) << "accepted: " << line;
    EXPECT_NE(reply.value("error", "").find(message), std::string::npos) << line << ": " << reply.dump();
  }
  EXPECT_EQ(explain_text(live.run("explain")), before);
}

TEST(Explain, ADatabaseWhereNoDayBeganStartsOneAtTheEnginesFirstStart) {
  Live live("100", 20, 2);
  const base::Json e = live.run("explain");
  EXPECT_EQ(e["day"]["after_event"], 0);
  EXPECT_EQ(e["total"]["day_pnl"].get<double>(), 0.0);
  ASSERT_EQ(live.run("bump-curve GBP-GILT 2")["ok"], true);
  EXPECT_NE(live.run("explain")["total"]["day_pnl"].get<double>(), 0.0);
}

TEST(Explain, ABatchSplitsItsMovesByCauseAsOneCommandABatchDoes) {
  Live batched("100", 20, 2), alone("100", 20, 2);
  const std::vector<std::string> day = a_day(batched);
  for (const base::Json& reply : batched.batch(day)) ASSERT_EQ(reply["ok"], true) << reply.dump();
  for (const std::string& line : day) ASSERT_EQ(alone.run(line)["ok"], true) << line;
  expect_same_causes(batched, alone);
}

// Moves of one curve in a row are recalculated together (as the engine
// conflates them): the group's prediction is its whole shift times the
// ladder before it, as for one move of the same size.
TEST(Explain, MovesOfOneCurveInARowArePredictedAsTheirSum) {
  Live two("100", 20, 2), one("100", 20, 2);
  for (const base::Json& reply : two.batch({"bump-curve GBP-GILT 1", "bump-curve GBP-GILT 1.5"})) {
    ASSERT_EQ(reply["ok"], true) << reply.dump();
  }
  ASSERT_EQ(one.run("bump-curve GBP-GILT 2.5")["ok"], true);
  for (const char* book : {"OB_GBP-GILT_1", "RB_GBP-GILT_1"}) {
    const base::Json a = book_explain(two, book).causes.at("curve GBP-GILT");
    const base::Json b = book_explain(one, book).causes.at("curve GBP-GILT");
    for (const char* figure : {"actual", "predicted"}) {
      const double want = b[figure].get<double>();
      EXPECT_NEAR(a[figure].get<double>(), want, 1e-9 * std::abs(want)) << book << " " << figure;
    }
  }
}

namespace {

const std::vector<std::string> kInterleavedTicks = {"bump-curve GBP-GILT 1", "bump-curve EUR-BUND 2",
                                                   "bump-curve GBP-GILT 1.5", "set-rate EUR-BUND 0 0.031",
                                                   "bump-curve GBP-GILT -0.5"};

// The events the replies of a batch were recalculated up to: one for a
// batch recalculated once.
std::set<std::int64_t> recalculated_up_to(const std::vector<base::Json>& replies) {
  std::set<std::int64_t> out;
  for (const base::Json& reply : replies) {
    EXPECT_EQ(reply["ok"], true) << reply.dump();
    out.insert(reply["event"].get<std::int64_t>());
  }
  return out;
}

}  // namespace

// Moves of two curves interleaved in one batch, no book holding trades on
// both: they are recalculated together (as the engine conflated ticks
// before the explain), each curve's cause gets what it gets when every move
// is a batch of its own, and the final values are the same. explain-events
// shows a book's move under its own curve's last command.
TEST(Explain, InterleavedMovesOfTwoCurvesNoBookSharesAreRecalculatedTogetherAndSplitByCurve) {
  Live batched("100", 20, 2), alone("100", 20, 2);
  EXPECT_EQ(recalculated_up_to(batched.batch(kInterleavedTicks)).size(), 1u);
  for (const std::string& line : kInterleavedTicks) ASSERT_EQ(alone.run(line)["ok"], true) << line;
  expect_same_causes(batched, alone);
  test::expect_same_as_fresh(batched);
  struct Shown {
    const char *book, *command, *cause;
  };
  for (const Shown& want : {Shown{"OB_EUR-BUND_1", "set-rate EUR-BUND 0 0.031", "curve EUR-BUND"},
                            Shown{"OB_GBP-GILT_1", "bump-curve GBP-GILT -0.5", "curve GBP-GILT"}}) {
    const base::Json events = batched.run(std::string("explain-events ") + want.book + " 1");
    ASSERT_EQ(events["events"].size(), 1u) << events.dump();
    EXPECT_EQ(events["events"][0]["command"], want.command) << events.dump();
    EXPECT_EQ(events["events"][0]["cause"], want.cause) << events.dump();
  }
}

namespace {

// The id of the first bond on `curve`.
std::string first_bond_on(const Store& s, const char* curve) {
  NodeIndex b = 0;
  while (s.bonds[b].curve != s.names.at(curve).index) ++b;
  return std::to_string(s.id(ref(Kind::bond, b)));
}

// `booking` in both engines; then the interleaved ticks, batched in one and
// one at a time in the other: the batch is recalculated once per tick (the
// curves share a book), and its causes are the one-at-a-time engine's.
void expect_ticks_recalculated_apart_after(Live& batched, Live& alone, const std::string& booking) {
  ASSERT_EQ(batched.run(booking)["ok"], true);
  ASSERT_EQ(alone.run(booking)["ok"], true);
  EXPECT_EQ(recalculated_up_to(batched.batch(kInterleavedTicks)).size(), kInterleavedTicks.size());
  for (const std::string& line : kInterleavedTicks) ASSERT_EQ(alone.run(line)["ok"], true) << line;
  expect_same_causes(batched, alone);
}

}  // namespace

// A book holding trades on both curves: their moves are not recalculated
// together (the book's move could not be split), and the split is the same.
// The book is given its second curve between two batches of ticks: the
// exposure the first batch was grouped by is read again.
TEST(Explain, InterleavedMovesOfTwoCurvesABookSharesAreRecalculatedApart) {
  Live batched("100", 20, 2), alone("100", 20, 2);
  EXPECT_EQ(recalculated_up_to(batched.batch(kInterleavedTicks)).size(), 1u);
  for (const std::string& line : kInterleavedTicks) ASSERT_EQ(alone.run(line)["ok"], true) << line;
  expect_ticks_recalculated_apart_after(batched, alone,
                                        "add-outright bond_id=" + first_bond_on(batched.store(), "EUR-BUND") +
                                            " trade_price=99 quantity=100 buy_sell=BUY book=OB_GBP-GILT_1");
  const BookExplain mixed = book_explain(batched, "OB_GBP-GILT_1");
  EXPECT_TRUE(mixed.causes.count("curve GBP-GILT") && mixed.causes.count("curve EUR-BUND"));
}

// A repo on a gilt financed on the Bund curve: its book moves with both
// curves (the gilt's can fail the bond, taking the repo out of the sum), so
// their ticks are recalculated apart.
TEST(Explain, ARepoBooksBondCurveAndOwnCurveAreNotApart) {
  Live batched("100", 20, 2), alone("100", 20, 2);
  const Store& s = batched.store();
  expect_ticks_recalculated_apart_after(
      batched, alone,
      "add-repo bond_id=" + first_bond_on(s, "GBP-GILT") + " ir_curve_id=" + std::to_string(s.id(s.names.at("EUR-BUND"))) +
          " end_date=2026-05-01 notional=100 start_cash=10000 rate=0.05 buy_sell=SELL cash_ccy=EUR book=RB_EUR-BUND_1");
}

// Without an engine, `bond_risk explain` prints the stored explain (the
// numbers the engine gives, to the cent) and `plot explain` draws it: a
// bar per cause from the running sum, then day_pnl, the causes' sum.
TEST(Explain, TheCommandLinePrintsTheStoredExplainAndDrawsItsWaterfall) {
  Live live("100", 20, 2);
  ASSERT_EQ(live.run("start-day")["ok"], true);
  for (const std::string& line : a_day(live)) ASSERT_EQ(live.run(line)["ok"], true) << line;
  const base::Json e = live.run("explain OB_GBP-GILT_1");
  const test::CliResult printed = test::run_cli("explain --db " + live.path + " OB_GBP-GILT_1");
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  double sum = 0;
  for (const base::Json& c : e["causes"]) {
    char cents[40];
    std::snprintf(cents, sizeof cents, "%.2f", c["actual"].get<double>());
    EXPECT_NE(printed.out.find(c["cause"].get<std::string>()), std::string::npos) << printed.out;
    EXPECT_NE(printed.out.find(cents), std::string::npos) << cents << " not in\n" << printed.out;
    sum += c["actual"].get<double>();
  }
  const std::string png = live.dir.path("waterfall.png");
  const test::CliResult drawn = test::run_cli("plot explain OB_GBP-GILT_1 --db " + live.path + " --out " + png);
  ASSERT_EQ(drawn.exit_code, 0) << drawn.err;
  EXPECT_EQ(test::slurp(png).substr(0, 4), "\x89PNG");
  const std::string data = test::slurp(png + ".dat");
  // The last row: "day_pnl", from, to, colour.
  std::istringstream last(data.substr(data.rfind("\"day_pnl\"")));
  std::string label;
  double from = 1, to = 0;
  last >> label >> from >> to;
  EXPECT_EQ(from, 0);
  EXPECT_NEAR(to, sum, 1e-9 * std::abs(sum)) << data;

  const test::CliResult unknown = test::run_cli("explain --db " + live.path + " NOPE");
  EXPECT_EQ(unknown.exit_code, 2) << "an unknown book is a bad value, as for plot";
  EXPECT_NE(unknown.err.find("no outright_book or repo_book with id or name 'NOPE'"), std::string::npos) << unknown.err;
  const std::string fresh = live.dir.path("fresh.db");
  generate(find_preset("tiny"), {.seed = 5, .book_size = 10}, fresh);
  const test::CliResult none = test::run_cli("explain --db " + fresh);
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no P&L day in"), std::string::npos) << none.err;
}

// A watched book's update lines carry its day_pnl, as `explain` gives it.
TEST(Explain, AWatchedBooksUpdatesCarryItsDayPnl) {
  Live live("100", 20, 2);
  ASSERT_EQ(live.run("start-day")["ok"], true);
  ASSERT_EQ(live.run("bump-curve GBP-GILT 4")["ok"], true);
  const std::int64_t id = live.store().id(live.store().names.at("OB_GBP-GILT_1"));
  const base::Json update = base::Json::parse(live.executor->watches().update_values(id));
  EXPECT_EQ(update["day_pnl"].get<double>(), live.run("explain OB_GBP-GILT_1")["day_pnl"].get<double>());
  EXPECT_NE(update["day_pnl"].get<double>(), 0.0);
}

// A new day moves every book's day_pnl (to 0) with no recalculation: every
// book counts as changed for its watchers, whose next update says 0.
TEST(Explain, ANewDayIsPushedToEveryWatchedBook) {
  Live live("100", 20, 2);
  ASSERT_EQ(live.run("start-day")["ok"], true);
  ASSERT_EQ(live.run("bump-curve GBP-GILT 4")["ok"], true);
  const std::int64_t id = live.store().id(live.store().names.at("OB_GBP-GILT_1"));
  ASSERT_NE(base::Json::parse(live.executor->watches().update_values(id))["day_pnl"].get<double>(), 0.0);
  live.executor->watches().forget();
  ASSERT_EQ(live.run("start-day")["ok"], true);
  for (Kind kind : {Kind::outright_book, Kind::repo_book}) {
    for (const std::int64_t book : live.store().ids[static_cast<std::size_t>(kind)]) {
      EXPECT_TRUE(live.executor->watches().changed(book)) << "book " << book;
      EXPECT_EQ(base::Json::parse(live.executor->watches().update_values(book))["day_pnl"].get<double>(), 0.0) << "book " << book;
    }
  }
}

// kill -9 while a desk's commands stream in (curve moves and whole curves,
// quotes, rolls, bookings, removals, amendments), then a restart: the
// explain is what the committed events made it, bit for bit. A second
// engine replaying event_log on a copy of the database from before, in the
// groups the first recalculated together (pnl_move's rows), gives the same
// figures, and the same limits' alerts. (Other programs' edits are not in
// event_log: no replay has them.)
TEST(Explain, AfterKillNineTheExplainAndTheAlertsAreAReplayOfTheLoggedEventsBitForBit) {
  test::TempDir dir;
  const std::string db = dir.path("k.db"), sock = dir.path("k.sock"), original = dir.path("original.db");
  ASSERT_EQ(test::run_cli("generate --preset 100 --out " + db).exit_code, 0);
  std::filesystem::copy_file(db, original);
  std::vector<std::int64_t> trades;
  Date today = 0;
  {
    base::Database conn(db, base::Database::Mode::read_only);
    base::Statement q = conn.prepare("SELECT id FROM outright_trade ORDER BY id");
    while (q.step()) trades.push_back(q.integer(0));
    base::Statement t = conn.prepare("SELECT today FROM calendar LIMIT 1");
    ASSERT_TRUE(t.step());
    today = *parse_date(t.text(0));
  }
  {
    std::mt19937 random(7);
    std::ofstream commands(dir.path("commands"));
    commands << "start-day\n";
    // Limits the stream crosses back and forth: their alerts are replayed too.
    for (const char* bound : {"100", "1000", "10000", "100000"}) {
      commands << "set-limit OB_GBP-GILT_1 day_pnl -" << bound << " " << bound << "\n";
      commands << "set-limit total day_pnl -" << bound << " " << bound << "\n";
    }
    for (int i = 1; i < 6000; ++i) {
      const unsigned r = random() % 20;
      if (i % 1500 == 0) {
        commands << "roll-date " << format_date(today + i / 1500) << "\n";
      } else if (r < 3) {
        commands << "bump-curve " << (random() % 2 ? "GBP-GILT" : "EUR-BUND") << " " << 1 + random() % 5 << "\n";
      } else if (r < 5) {
        commands << "set-price " << 4 + random() % 10 << " " << 95 + random() % 10 << "\n";
      } else if (r < 6) {
        commands << "add-outright bond_id=" << 4 + random() % 10 << " trade_price=99.5 quantity=" << 1 + random() % 500
                 << " buy_sell=BUY book=OB_GBP-GILT_1\n";
      } else if (r < 7 && trades.size() > 10) {  // a trade removed for good
        commands << "remove-trade " << trades.back() << "\n";
        trades.pop_back();
      } else if (r < 8) {
        commands << "set-curve EUR-BUND";
        for (int k = 0; k < 12; ++k) commands << " " << 0.03 + 0.0001 * (random() % 20);
        commands << "\n";
      } else {
        commands << "amend-trade " << trades[random() % trades.size()] << " quantity=" << 1 + random() % 5000 << "\n";
      }
    }
  }
  {
    test::EngineProcess engine(db, sock, dir.path("engine.log"));
    ASSERT_TRUE(engine.ready()) << test::slurp(dir.path("engine.log"));
    const std::string send = std::string("'") + std::getenv("BOND_RISK_BIN") + "' send --socket " + sock + " < " +
                             dir.path("commands") + " > " + dir.path("replies") + " 2>/dev/null";
    std::thread client([&] { (void)std::system(send.c_str()); });
    for (int i = 0; i < 1200 && test::slurp(dir.path("replies")).size() < 100'000; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    engine.kill9();
    client.join();
  }
  base::Json restarted;
  {
    test::EngineProcess engine(db, sock, dir.path("restart.log"));
    ASSERT_TRUE(engine.ready()) << test::slurp(dir.path("restart.log"));
    restarted = base::Json::parse(test::run_cli("send --socket " + sock + " explain").out);
    ASSERT_EQ(restarted["ok"], true) << restarted.dump();
    EXPECT_EQ(test::run_cli("send --socket " + sock + " shutdown").exit_code, 0);
    EXPECT_EQ(engine.wait(), 0);
  }
  // The committed events, in the groups they were recalculated in.
  std::vector<std::vector<std::string>> groups(1);
  {
    base::Database conn(db, base::Database::Mode::read_only);
    base::Statement ends = conn.prepare("SELECT seq FROM pnl_move WHERE seq > 0 ORDER BY id");
    std::vector<std::int64_t> boundaries;
    while (ends.step()) boundaries.push_back(ends.integer(0));
    base::Statement events = conn.prepare("SELECT seq, command FROM event_log ORDER BY seq");
    std::size_t b = 0;
    while (events.step()) {
      groups.back().emplace_back(events.text(1));
      while (b < boundaries.size() && boundaries[b] <= events.integer(0)) ++b, groups.emplace_back();
    }
    std::cout << boundaries.size() << " recalculations of " << b << " groups logged\n";
  }
  ASSERT_GT(groups.size(), 10u) << "the kill came too early";
  Reopened replica(original);
  for (const std::vector<std::string>& group : groups) {
    if (!group.empty()) replica.batch(group);
  }
  const base::Json replayed = replica.run("explain");
  ASSERT_EQ(replayed["books"].size(), restarted["books"].size());
  for (std::size_t k = 0; k < replayed["books"].size(); ++k) {
    const base::Json &a = restarted["books"][k], &b = replayed["books"][k];
    EXPECT_EQ(a["baseline"], b["baseline"]) << a["name"];
    EXPECT_EQ(a["causes"].dump(), b["causes"].dump()) << a["name"];
  }
  EXPECT_EQ(restarted["day"]["after_event"], replayed["day"]["after_event"]);
  // The limits' alerts too, and the results database holds each of them once.
  auto alerts = [](const std::string& path, const char* table) {
    return test::query_rows(path, std::string("SELECT seq, cause, limit_id, from_state, to_state, value, bound FROM ") +
                                      table + " ORDER BY id");
  };
  const std::vector<std::string> logged = alerts(db, "limit_alert");
  EXPECT_GT(logged.size(), 4u) << "the stream crossed the limits";
  replica.executor.results().wait_written();
  EXPECT_EQ(alerts(original, "limit_alert"), logged);
  EXPECT_EQ(alerts(results_path(db), "limit_event"), logged);
}

// A quote can move a book: one that fails its bond (a bad row) takes the
// bond's trades out of their books, and clear-price brings them back. That
// move is the quote's, and the causes still add up to day_pnl.
TEST(Explain, AQuoteThatFailsOrRestoresABondMovesItsBooksUnderTheQuoteCause) {
  Live live("100", 20, 2, "INSERT OR REPLACE INTO bond_quote VALUES (4, -1)");  // bond 4 FAILED by its quote
  ASSERT_EQ(live.store().state(live.node(4)).status, Status::failed);
  ASSERT_EQ(live.run("start-day")["ok"], true);
  const double before = measure(live, "OB_GBP-GILT_1");
  ASSERT_EQ(live.run("clear-price 4")["ok"], true);
  ASSERT_EQ(live.store().state(live.node(4)).status, Status::ok);
  const BookExplain e = book_explain(live, "OB_GBP-GILT_1");
  ASSERT_NE(measure(live, "OB_GBP-GILT_1"), before) << "bond 4's trades must rejoin the book";
  ASSERT_TRUE(e.causes.count("quote")) << "the move went to no cause";
  EXPECT_EQ(e.causes.at("quote")["actual"].get<double>(), measure(live, "OB_GBP-GILT_1") - before);
  EXPECT_LE(std::abs(e.residual), 1e-9 * std::max(1.0, e.gross));
}

// Another program adding a book reloads the model, and books may move in
// store order: each book's last measure is its own (by id), so no other
// book moves.
TEST(Explain, ABookAddedByAnotherProgramMovesNoOtherBook) {
  Live live("100", 20, 2);
  ASSERT_EQ(live.run("start-day")["ok"], true);
  ASSERT_EQ(live.run("bump-curve GBP-GILT 2")["ok"], true);
  base::Database(live.path, base::Database::Mode::read_write).exec("INSERT INTO outright_book (id, name) VALUES (1, 'OB_FIRST')");
  ASSERT_EQ(live.run("reload")["ok"], true);
  ASSERT_TRUE(live.store().names.count("OB_FIRST"));
  for (const char* book : {"OB_GBP-GILT_1", "OB_EUR-BUND_1", "RB_GBP-GILT_1", "RB_EUR-BUND_1"}) {
    const BookExplain e = book_explain(live, book);
    EXPECT_FALSE(e.causes.count("external")) << book << " moved: " << e.causes.at("external").dump();
    EXPECT_LE(std::abs(e.residual), 1e-9 * std::max(1.0, e.gross)) << book;
  }
}

// A day keeps each book's kKeptMoves largest moves, whatever the events:
// the largest of 2,500 are those of them all.
TEST(Explain, ADayKeepsEachBooksLargestMovesAndNoMore) {
  PnlDay day(0, "", {{7, 0.0}});
  std::vector<EventMove> all;
  std::mt19937 random(3);
  for (std::int64_t seq = 1; seq <= 2500; ++seq) {
    const double move = static_cast<double>(static_cast<int>(random() % 2001) - 1000);  // ties on purpose
    const BookMove m{7, move, std::nan("")};
    day.record(seq, Cause{CauseKind::amended}, {&m, 1});
    if (move != 0) all.push_back({seq, Cause{CauseKind::amended}, move});
  }
  std::sort(all.begin(), all.end(), [](const EventMove& a, const EventMove& b) {
    return std::abs(a.move) != std::abs(b.move) ? std::abs(a.move) > std::abs(b.move) : a.seq < b.seq;
  });
  const std::vector<EventMove> kept = day.largest_moves(7, 5000);
  ASSERT_EQ(kept.size(), kKeptMoves);
  for (std::size_t k = 0; k < kKeptMoves; ++k) {
    EXPECT_EQ(kept[k].seq, all[k].seq) << k;
    EXPECT_EQ(kept[k].move, all[k].move) << k;
  }
}

// Other programs may change the inputs while no engine runs: the next
// engine books what that moved as external, once, and a restart with no
// such change books nothing.
TEST(Explain, ChangesMadeWhileNoEngineRanAreExternal) {
  Live live("100", 20, 2);
  ASSERT_EQ(live.run("start-day")["ok"], true);
  ASSERT_EQ(live.run("bump-curve GBP-GILT 2")["ok"], true);
  const double before = measure(live, "OB_GBP-GILT_1");
  const OutrightBook& book = live.store().outright_books[live.store().names.at("OB_GBP-GILT_1").index];
  const std::int64_t trade = live.store().id(ref(Kind::outright_trade, book.members.at(0)));
  live.executor.reset();
  live.model.reset();
  live.db.reset();
  base::Database(live.path, base::Database::Mode::read_write)
      .exec("UPDATE outright_trade SET quantity = quantity + 1000 WHERE id = " + std::to_string(trade));
  Reopened again(live.path);
  const base::Json e = again.run("explain OB_GBP-GILT_1");
  const double now = book_measure(again.model.store(), again.model.store().names.at("OB_GBP-GILT_1"));
  ASSERT_NE(now, before);
  double external = 0;
  for (const base::Json& c : e["causes"]) {
    if (c["cause"] == "external") external = c["actual"].get<double>();
  }
  EXPECT_NEAR(external, now - before, 1e-9 * std::abs(now));
  EXPECT_LE(std::abs(e["residual"].get<double>()), 1e-9 * std::abs(now));
  for (const char* other : {"OB_EUR-BUND_1", "RB_EUR-BUND_1"}) {
    const base::Json reply = again.run(std::string("explain ") + other);
    for (const base::Json& c : reply["causes"]) EXPECT_NE(c["cause"], "external") << other;
  }
}

// A batch the database refuses after it applied another program's change:
// the model is read back, and the change's move is still external, in the
// running engine and after a restart.
TEST(Explain, AnotherProgramsChangeInARefusedBatchStaysExternal) {
  Live live("100", 20, 2);
  ASSERT_EQ(live.run("start-day")["ok"], true);
  const double before = measure(live, "OB_GBP-GILT_1");
  const OutrightBook& book = live.store().outright_books[live.store().names.at("OB_GBP-GILT_1").index];
  const std::string trade = std::to_string(live.store().id(ref(Kind::outright_trade, book.members.at(0))));
  const std::string add = "add-outright bond_id=4 trade_price=99 quantity=1 buy_sell=BUY book=OB_EUR-BUND_1";
  live.fill_disk(add);  // another book's trades: the measure above stays
  base::Database(live.path, base::Database::Mode::read_write)
      .exec("UPDATE outright_trade SET quantity = quantity + 1000 WHERE id = " + trade);
  ASSERT_EQ(live.batch(std::vector<std::string>(400, add)).front()["ok"], false);
  const double now = measure(live, "OB_GBP-GILT_1");
  ASSERT_NE(now, before) << "the model read back holds the other program's change";
  auto external_of = [](const base::Json& e) {
    double sum = 0;
    for (const base::Json& c : e["causes"]) sum += c["cause"] == "external" ? c["actual"].get<double>() : 0.0;
    return sum;
  };
  const base::Json running = live.run("explain OB_GBP-GILT_1");
  EXPECT_NEAR(external_of(running), now - before, 1e-9 * std::abs(now)) << running.dump();
  EXPECT_LE(std::abs(running["residual"].get<double>()), 1e-9 * std::abs(now)) << running.dump();
  live.db->exec("PRAGMA max_page_count = 1073741823");
  live.executor.reset();
  live.model.reset();
  live.db.reset();
  Reopened again(live.path);
  const base::Json restarted = again.run("explain OB_GBP-GILT_1");
  EXPECT_NEAR(external_of(restarted), now - before, 1e-9 * std::abs(now)) << restarted.dump();
  EXPECT_LE(std::abs(restarted["residual"].get<double>()), 1e-9 * std::abs(now)) << restarted.dump();
}

// A book another program deletes mid-day stays in the day's total,
// measuring 0: the total moves by what it held, as external, live as in the
// stored explain and after a restart.
TEST(Explain, ABookAnotherProgramDeletesMovesTheTotalAsExternal) {
  Live live("100", 20, 2);
  ASSERT_EQ(live.run("start-day")["ok"], true);
  ASSERT_EQ(live.run("bump-curve GBP-GILT 4")["ok"], true);
  const double held = measure(live, "OB_GBP-GILT_1");
  const std::string book = std::to_string(live.store().id(live.store().names.at("OB_GBP-GILT_1")));
  const base::Json before = live.run("explain")["total"];
  base::Database(live.path, base::Database::Mode::read_write)
      .exec("DELETE FROM outright_book_trade WHERE book_id = " + book + "; DELETE FROM outright_book WHERE id = " + book);
  ASSERT_EQ(live.run("get 1")["ok"], true);  // applies it
  ASSERT_FALSE(live.store().names.count("OB_GBP-GILT_1"));
  const base::Json after = live.run("explain")["total"];
  const double tolerance = 1e-9 * std::max(1.0, std::abs(held));
  EXPECT_NEAR(after["day_pnl"].get<double>(), before["day_pnl"].get<double>() - held, tolerance) << after.dump();
  EXPECT_NEAR(after["residual"].get<double>(), 0.0, tolerance);
  EXPECT_NEAR(stored_explain(*live.db, std::nullopt).day_pnl, after["day_pnl"].get<double>(), tolerance);
  const std::string path = live.path;
  live.executor.reset();
  live.model.reset();
  live.db.reset();
  Reopened again(path);
  const base::Json restarted = again.run("explain")["total"];
  EXPECT_NEAR(restarted["day_pnl"].get<double>(), after["day_pnl"].get<double>(), tolerance) << restarted.dump();
  EXPECT_NEAR(restarted["residual"].get<double>(), 0.0, tolerance);
}

// The explain under random interleavings of events, other programs' edits
// (amounts, books deleted and added) and restarts: its causes always add up
// to day_pnl, and the live total is the stored one and the one after a
// restart.
TEST(Explain, UnderEventsEditsAndRestartsTheLiveTotalIsTheStoredOneAndAddsUp) {
  for (const unsigned seed : {1u, 2u, 3u}) {
    test::TempDir dir;
    const std::string path = dir.path("p.db");
    ASSERT_EQ(test::run_cli("generate --preset 100 --book-size 4 --out " + path).exit_code, 0);
    std::mt19937 random(seed);
    auto pick = [&](const std::string& sql) {
      const std::vector<std::string> rows = test::query_rows(path, sql);
      if (rows.empty()) return std::string();
      const std::string row = rows[random() % rows.size()];
      return row.substr(0, row.find('|'));
    };
    std::optional<Reopened> engine(std::in_place, path);
    ASSERT_EQ(engine->run("start-day")["ok"], true);
    std::int64_t next_book = 900000;
    for (int step = 0; step < 40; ++step) {
      std::string what;
      switch (random() % 8) {
        case 0: what = "bump-curve GBP-GILT " + std::to_string(static_cast<int>(random() % 9) - 4); break;
        case 1: what = "bump-curve EUR-BUND " + std::to_string(static_cast<int>(random() % 9) - 4); break;
        case 2: what = "amend-trade " + pick("SELECT id FROM outright_trade") + " quantity=" + std::to_string(100 + random() % 5000); break;
        case 3: what = random() % 4 == 0 ? "start-day" : "get 1"; break;
        case 4: what = "sql UPDATE outright_trade SET quantity = quantity + 7 WHERE id = " + pick("SELECT id FROM outright_trade"); break;
        case 5: {
          const std::string b = pick("SELECT id FROM outright_book UNION ALL SELECT id FROM repo_book");
          const std::string table = test::query_rows(path, "SELECT 1 FROM outright_book WHERE id = " + b).empty() ? "repo_book" : "outright_book";
          what = "sql DELETE FROM " + table + "_trade WHERE book_id = " + b + "; DELETE FROM " + table + " WHERE id = " + b;
          break;
        }
        case 6: {
          const std::string id = std::to_string(next_book++);
          what = "sql INSERT INTO outright_book (id, name) VALUES (" + id + ", 'OB_NEW_" + id + "'); "
                 "INSERT INTO outright_book_trade SELECT " + id + ", id FROM outright_trade WHERE id NOT IN "
                 "(SELECT trade_id FROM outright_book_trade) LIMIT 2";
          break;
        }
        default: what = "restart"; break;
      }
      SCOPED_TRACE("seed " + std::to_string(seed) + " step " + std::to_string(step) + ": " + what);
      const base::Json before = engine->run("explain")["total"];
      if (what == "restart") {
        engine.reset();
        engine.emplace(path);
        const base::Json again = engine->run("explain")["total"];
        const double d = before["day_pnl"].get<double>();
        EXPECT_NEAR(again["day_pnl"].get<double>(), d, 1e-9 * std::max(1.0, std::abs(d)));
      } else if (what.starts_with("sql ")) {
        base::Database(path, base::Database::Mode::read_write).exec(what.substr(4));
        ASSERT_EQ(engine->run("get 1")["ok"], true);
      } else {
        const base::Json reply = engine->run(what);
        ASSERT_EQ(reply["ok"], true) << reply.dump();
      }
      const base::Json total = engine->run("explain")["total"];
      double gross = 1;
      for (const base::Json& c : total["causes"]) gross += std::abs(c["actual"].get<double>());
      const double day_pnl = total["day_pnl"].get<double>();
      EXPECT_NEAR(total["residual"].get<double>(), 0.0, 1e-9 * gross) << total.dump();
      EXPECT_NEAR(stored_explain(engine->db, std::nullopt).day_pnl, day_pnl, 1e-9 * gross) << total.dump();
    }
  }
}
