// The running engine's commands, in process (LiveModel) and through the
// socket, against fresh full flushes of what they wrote to the database.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <span>
#include <sstream>
#include <thread>

#include "bond_risk/db/database_rows.h"
#include "bond_risk/db/change_log.h"
#include "bond_risk/live/apply_change.h"
#include "bond_risk/live/stages/event_stages.h"
#include "bond_risk/model/risk/ladders.h"
#include "bond_risk/model/store/published_values.h"
#include "tests/live_support.h"

using namespace bond_risk;
using test::change;
using test::expect_same_as_fresh;
using test::first_id;
using test::Live;

TEST(Events, EveryCommandChangesWhatItSaysAndMatchesAFreshFlush) {
  Live live;
  const Store& s = live.store();
  const std::int64_t ot = first_id(s, Kind::outright_trade), rt = first_id(s, Kind::repo_trade);
  const NodeRef trade = live.node(ot);
  const double price = s.bond_values[s.outright_trades[trade.index].bond].price;

  EXPECT_EQ(live.run("amend-trade " + std::to_string(ot) + " quantity=300 buy_sell=SELL")["id"], ot);
  EXPECT_EQ(s.outright_values[trade.index].pv, 300 * price * -1);
  expect_same_as_fresh(live);

  const double before = s.curves[0].points[3].value;
  live.run("bump-curve GBP-GILT 2.5");
  EXPECT_EQ(s.curves[0].points[3].value, before + 2.5 * 0.0001);
  expect_same_as_fresh(live);

  live.run("set-rate EUR-BUND 0 0.031");
  EXPECT_EQ(s.curves[1].points[0].value, 0.031);
  live.run("roll-date 2026-02-01");
  EXPECT_EQ(format_date(s.calendars[0].today), "2026-02-01");
  expect_same_as_fresh(live);

  live.run("amend-trade " + std::to_string(rt) + " notional=5000 rate=0.045 end_date=2026-06-30");
  EXPECT_EQ(s.repo_trades[live.node(rt).index].notional, 5000);
  const std::int64_t new_id =
      live.run("add-outright bond_id=4 trade_price=99.5 quantity=100 buy_sell=BUY book=OB_GBP-GILT_1")["id"];
  EXPECT_EQ(s.state(live.node(new_id)).status, Status::ok);
  live.run("add-repo bond_id=5 end_date=2026-05-01 notional=100 start_cash=10000 rate=0.05 buy_sell=SELL cash_ccy=EUR");
  expect_same_as_fresh(live);

  live.run("remove-trade " + std::to_string(ot));
  EXPECT_EQ(s.state(trade).status, Status::removed);
  expect_same_as_fresh(live);

  EXPECT_EQ(live.run("get " + std::to_string(new_id))["status"], "OK");
  EXPECT_TRUE(live.run("book OB_GBP-GILT_1").contains("members"));
  const base::Json stats = live.run("stats");
  EXPECT_EQ(stats["events"], 8);
  EXPECT_EQ(stats["commands"]["amend-trade"], 2);
  EXPECT_EQ(stats["commands"]["get"], 1);
  // Every recalculation in the latency histogram: each in the buckets its
  // microseconds (the window of recalc_us holds them all) fall at or below.
  const base::Json& h = stats["recalc_seconds"];
  const std::span<const double> us = live.model->latencies_us();
  EXPECT_EQ(h["observations"], us.size());
  EXPECT_EQ(h["observations"], live.model->recalculations());
  double sum = 0;
  for (double u : us) sum += u / 1e6;
  EXPECT_NEAR(h["sum"].get<double>(), sum, 1e-12 + 1e-9 * sum);
  for (std::size_t i = 0; i < h["le"].size(); ++i) {
    const double le = h["le"][i];
    const auto below = std::count_if(us.begin(), us.end(), [&](double u) { return u / 1e6 <= le; });
    EXPECT_EQ(h["cumulative"][i], below) << "le " << le;
  }
  EXPECT_GE(stats["commit_seconds"]["observations"], 8) << "a durable commit per batch of events";
  // The recalculations' time per tier: every tier these events reached,
  // named by its types, within the recalculate phases that contain them
  // (before the reply, and the rest of a curve move's or a roll's after it).
  const base::Json& tiers = stats["recalculate_tiers_us"];
  double tiers_us = 0;
  for (const char* tier : {"calendar", "ir_curve", "bond", "outright_trade+repo_trade", "outright_book+repo_book"}) {
    ASSERT_TRUE(tiers.contains(tier)) << tier;
    EXPECT_GT(tiers[tier].get<double>(), 0) << tier;
    tiers_us += tiers[tier].get<double>();
  }
  EXPECT_EQ(tiers.size(), 5u);
  EXPECT_LE(tiers_us, stats["time_us"]["recalculate"].get<double>() + stats["time_us"]["recalculate_rest"].get<double>());
}

TEST(Events, ARollOfOneCalendarRepricesItsBondsOnTheCurvesItSharesWithAnother) {
  // Every other bond on a second calendar: each curve sums its coupon grids
  // for both calendars, and only TOKYO's today moves.
  Live live("100", 20, 2,
            "INSERT INTO calendar (id, name, today) SELECT max(id) + 1000, 'TOKYO', today FROM calendar;"
            "UPDATE bond SET calendar_id = (SELECT id FROM calendar WHERE name = 'TOKYO') WHERE id % 4 < 2;");
  const Store& s = live.store();
  ASSERT_EQ(s.calendars.size(), 2u);
  ASSERT_EQ(s.curves[0].grids.size(), 2u);
  live.run("roll-date 2026-02-01 TOKYO");
  EXPECT_NE(s.calendars[0].today, s.calendars[1].today);
  expect_same_as_fresh(live);
  live.run("roll-date 2026-03-02 TOKYO");
  live.run("bump-curve GBP-GILT 3");
  expect_same_as_fresh(live);
}

TEST(Events, BadCommandsAreRefusedWithAReasonAndChangeNothing) {
  Live live;
  const std::uint64_t digest = results_digest(live.store());
  const std::string bond = std::to_string(first_id(live.store(), Kind::bond));
  const std::string ot = std::to_string(first_id(live.store(), Kind::outright_trade));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"explode", "unknown command 'explode'"},
      {"bump-curve NOPE 1", "no calendar, curve, bond, trade or book has the id or name 'NOPE'"},
      {"bump-curve GBP-GILT abc", "BP 'abc' is not a finite number"},
      {"bump-curve " + bond + " 1", "not ir_curve"},
      {"bump-curve GBP-GILT", "usage: bump-curve CURVE BP"},
      {"set-rate GBP-GILT 99 0.01", "has no input rate with idx 99"},
      {"set-rate GBP-GILT 0 nan", "is not a finite number"},
      {"roll-date 2026-02-30", "'2026-02-30' is not a YYYY-MM-DD date"},
      {"amend-trade 999999 quantity=1", "no calendar, curve, bond, trade or book has the id or name '999999'"},
      {"amend-trade " + bond + " quantity=1", "not a trade"},
      {"amend-trade " + ot + " colour=red", "unknown trade field 'colour'"},
      {"amend-trade " + ot + " notional=5", "unknown outright_trade field 'notional'"},
      {"amend-trade " + ot + " quantity=1.5", "quantity '1.5' is not a whole number"},
      {"amend-trade " + ot + " buy_sell=HOLD", "buy_sell 'HOLD' is not BUY or SELL"},
      {"amend-trade " + ot + " bond_id=1", "id 1 is a calendar, not a bond"},
      {"amend-trade " + ot + " quantity", "'quantity' is not field=value"},
      {"amend-trade " + ot + " quantity=1 quantity=2", "given twice"},
      {"add-outright bond_id=4 trade_price=1", "add-outright needs quantity=..."},
      {"add-outright bond_id=4 trade_price=1 quantity=1 buy_sell=BUY book=RB_GBP-GILT_1", "not outright_book"},
      {"add-repo bond_id=4 end_date=2020-01-01 notional=1 start_cash=1 rate=0.01 buy_sell=BUY cash_ccy=GBP",
       "end_date 2020-01-01 is before start_date"},
      {"remove-trade " + bond, "not a trade"},
      {"get", "usage: get ID|NAME"},
      {"stats now", "usage: stats"},
      {"get \xff\xfe", "no calendar, curve, bond, trade or book has the id or name '\xef\xbf\xbd\xef\xbf\xbd'"},  // not UTF-8: U+FFFD in valid JSON
  };
  for (const auto& [line, message] : cases) {
    const base::Json reply = live.run(line);
    EXPECT_EQ(reply["ok"], false) << "accepted: " << line;
    EXPECT_NE(reply.value("error", "").find(message), std::string::npos) << line << ": " << reply.dump();
  }
  EXPECT_EQ(results_digest(live.store()), digest);
  EXPECT_EQ(live.model->graph().dirty_count(), 0u);
  expect_same_as_fresh(live);
}

TEST(Events, AmendingAFailedTradeRereadsItsRowAndRevivesItsBook) {
  Live live("tiny", 4, 2,
            "UPDATE outright_trade SET bond_id = 999 WHERE id = (SELECT min(id) FROM outright_trade);"
            "UPDATE repo_trade SET bond_id = 999, end_date = 'someday' WHERE id = (SELECT min(id) FROM repo_trade);");
  const Store& s = live.store();
  const std::string bond = std::to_string(first_id(s, Kind::bond));
  const std::int64_t ot = first_id(s, Kind::outright_trade), rt = first_id(s, Kind::repo_trade);
  auto status = [&](NodeRef n) { return s.state(n).status; };
  auto book_of = [&](std::int64_t trade) { return live.model->graph().subscribers(live.node(trade)).front(); };
  ASSERT_EQ(status(live.node(ot)), Status::failed);
  ASSERT_EQ(status(book_of(ot)), Status::stale);

  // Prepared, the amendment has changed nothing yet: it says what it will write.
  {
    const DatabaseRows rows(*live.db);
    const LiveModel::Prepared prepared = live.model->prepare(change("amend-trade " + std::to_string(ot) + " bond_id=" + bond), rows);
    ASSERT_TRUE(std::holds_alternative<TradeRow>(prepared.write));
    EXPECT_EQ(std::get<TradeRow>(prepared.write).id, ot);
    EXPECT_EQ(status(live.node(ot)), Status::failed);
    EXPECT_EQ(live.model->graph().dirty_count(), 0u);
  }

  EXPECT_EQ(live.run("amend-trade " + std::to_string(ot) + " bond_id=" + bond)["id"], ot);
  EXPECT_EQ(status(live.node(ot)), Status::ok);
  EXPECT_EQ(status(book_of(ot)), Status::ok);

  // The repo has a second bad value: mending one leaves it FAILED, and says why.
  const base::Json reply = live.run("amend-trade " + std::to_string(rt) + " bond_id=" + bond);
  EXPECT_NE(reply.value("still_failed", "").find("someday"), std::string::npos) << reply.dump();
  EXPECT_EQ(status(live.node(rt)), Status::failed);
  EXPECT_EQ(status(book_of(rt)), Status::stale);
  const base::Json mended = live.run("amend-trade " + std::to_string(rt) + " end_date=2026-06-30");
  EXPECT_EQ(mended["id"], rt);
  EXPECT_FALSE(mended.contains("still_failed")) << mended.dump();
  EXPECT_EQ(status(live.node(rt)), Status::ok);
  EXPECT_EQ(status(book_of(rt)), Status::ok);
  expect_same_as_fresh(live);
}

TEST(Events, AThousandRandomEventsEndEqualToAFreshFlush) {
  Live live("100", 20, 3);
  std::mt19937_64 rng(42);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  base::HugeVector<std::int64_t> trades = live.store().ids[static_cast<std::size_t>(Kind::outright_trade)];
  const auto& repos = live.store().ids[static_cast<std::size_t>(Kind::repo_trade)];
  trades.insert(trades.end(), repos.begin(), repos.end());
  const auto& bonds = live.store().ids[static_cast<std::size_t>(Kind::bond)];
  const char* books[] = {"OB_GBP-GILT_1", "OB_EUR-BUND_1", "OB_GBP-GILT_2"};
  int day = 0, refused = 0;
  for (int e = 0; e < 1000; ++e) {
    const std::string t = std::to_string(trades[pick(trades.size())]);
    std::string line;
    switch (pick(8)) {
      case 0: line = "bump-curve " + std::string(pick(2) ? "GBP-GILT" : "EUR-BUND") + " " + std::to_string(int(pick(11)) - 5); break;
      case 1: day += int(pick(5)); line = "roll-date " + format_date(*parse_date("2025-11-21") + day); break;
      case 2: line = "amend-trade " + t + " quantity=" + std::to_string(1 + pick(1000)); break;
      case 3: line = "amend-trade " + t + " trade_price=" + std::to_string(80 + pick(40)) + ".5"; break;
      case 4: line = "amend-trade " + t + " bond_id=" + std::to_string(bonds[pick(bonds.size())]); break;
      case 5:
        line = "add-outright bond_id=" + std::to_string(bonds[pick(bonds.size())]) +
               " trade_price=100 quantity=10 buy_sell=BUY book=" + books[pick(3)];
        break;
      case 6: line = "remove-trade " + t; break;
      default: line = "amend-trade " + t + " buy_sell=" + (pick(2) ? "BUY" : "SELL"); break;
    }
    const base::Json reply = live.run(line);
    if (reply["ok"] == false) {
      ++refused;  // fields of a repo given to an outright trade, a removed trade, ...
    } else if (line.rfind("add-outright", 0) == 0) {
      trades.push_back(reply["id"]);
    }
  }
  EXPECT_LT(refused, 500);
  expect_same_as_fresh(live);
}

namespace {

// Every node's status, published values and ladder in `a` and `b` have the
// same bits, books' too unless `book_rounding` (then to 1e-12 of their size).
void expect_same_bits(const Store& a, const Store& b, const std::string& after, bool book_rounding = false) {
  for (std::size_t k = 0; k < kKindCount; ++k) {
    for (NodeIndex i = 0; i < a.ids[k].size(); ++i) {
      const NodeRef n = ref(static_cast<Kind>(k), i);
      const std::string what = after + ": " + std::string(kind_name(kind_of(n))) + " " + std::to_string(a.id(n));
      ASSERT_EQ(a.state(n).status, b.state(n).status) << what;
      const PublishedValues x = published_values(a, n), y = published_values(b, n);
      ASSERT_EQ(x.count, y.count) << what;
      for (std::size_t v = 0; v < x.count; ++v) {
        const std::string value = what + " " + std::string(value_names(kind_of(n))[v]);
        if (book_rounding && is_book(kind_of(n))) {
          EXPECT_NEAR(x.values[v], y.values[v], 1e-12 * std::max(1.0, std::abs(x.values[v]))) << value;
          continue;
        }
        EXPECT_EQ(std::memcmp(&x.values[v], &y.values[v], sizeof(double)), 0)
            << value << ": " << x.values[v] << " against " << y.values[v];
      }
      if (book_rounding) continue;
      const std::vector<KeyRate> p = key_rate_ladder(a, n), q = key_rate_ladder(b, n);
      ASSERT_EQ(p.size(), q.size()) << what;
      for (std::size_t j = 0; j < p.size(); ++j) EXPECT_EQ(p[j].kr01, q[j].kr01) << what << " key rate " << j;
    }
  }
}

// The values a first pass publishes (engine::Pass) have the bits of a whole recalculation's.
void expect_same_values(const Store& a, const Store& b, const std::string& after) {
  for (std::size_t k = 0; k < kKindCount; ++k) {
    for (NodeIndex i = 0; i < a.ids[k].size(); ++i) {
      ASSERT_EQ(a.state(ref(static_cast<Kind>(k), i)).status, b.state(ref(static_cast<Kind>(k), i)).status)
          << after << ": " << kind_name(static_cast<Kind>(k)) << " index " << i;
    }
  }
  const auto same = [](const auto& x, const auto& y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  for (NodeIndex i = 0; i < a.bonds.size(); ++i) {
    EXPECT_TRUE(same(a.bond_values[i].price, b.bond_values[i].price) && same(a.bond_values[i].pv01, b.bond_values[i].pv01))
        << after << ": bond index " << i;
  }
  for (NodeIndex i = 0; i < a.outright_trades.size(); ++i) {
    const OutrightValue &x = a.outright_values[i], &y = b.outright_values[i];
    EXPECT_TRUE(same(x.pv, y.pv) && same(x.pv01, y.pv01) && same(x.pnl, y.pnl)) << after << ": outright index " << i;
  }
  for (NodeIndex i = 0; i < a.repo_trades.size(); ++i) {
    EXPECT_TRUE(same(a.repo_values[i], b.repo_values[i])) << after << ": repo index " << i;
  }
  for (NodeIndex i = 0; i < a.outright_books.size(); ++i) {
    const OutrightValue &x = a.outright_books[i].total, &y = b.outright_books[i].total;
    EXPECT_TRUE(same(x.pv, y.pv) && same(x.pv01, y.pv01) && same(x.pnl, y.pnl)) << after << ": outright book index " << i;
  }
  for (NodeIndex i = 0; i < a.repo_books.size(); ++i) {
    EXPECT_TRUE(same(a.repo_books[i].total, b.repo_books[i].total)) << after << ": repo book index " << i;
  }
}

}  // namespace

// A big event may be recalculated in two passes, so that the engine can
// answer with the values first (LiveModel::recalculate(true)): the first
// publishes every value a whole recalculation does, and the rest (ladders,
// quote analytics, cs01) leaves every published bit as one whole
// recalculation does, books' sums too. A bond whose quote no spread
// reprices, having failed so once, solves its analytics in the first pass,
// which fails it with its trades and books: the same bits again. A trade
// whose cs01 overflows only once its bond's is solved is valued by the
// first pass and failed after the rest, its bond recalculated again whole;
// its books' sums, having added it and taken it away, are then the whole
// pass's to rounding.
TEST(Events, ValuesFirstThenTheRestGiveTheBitsOfAWholeRecalculation) {
  Live whole("100", 20, 2), passes("100", 20, 3);
  const Store& s = whole.store();
  const NodeIndex bond = s.outright_trades.front().bond;
  const std::string bond_id = std::to_string(s.id(ref(Kind::bond, bond)));
  const std::string curve = std::to_string(s.id(ref(Kind::ir_curve, s.bonds[bond].curve)));
  const std::string trade = std::to_string(s.id(ref(Kind::outright_trade, 0)));
  // Applies `line` to both models, recalculated whole and in two passes.
  const auto apply = [&](const std::string& line) {
    for (Live* live : {&whole, &passes}) live->commit(line);
    whole.model->recalculate();
    passes.model->recalculate(true);
    EXPECT_EQ(passes.model->completing(), line.rfind("set-price", 0) != 0) << line << ": a quote's recalculation runs whole";
  };
  for (const std::string& line : std::vector<std::string>{"bump-curve GBP-GILT 3", "roll-date 2025-11-24", "amend-trade " + trade + " quantity=77",
                                  "set-price " + bond_id + " 99.5", "bump-curve EUR-BUND -2", "roll-date 2025-12-01"}) {
    apply(line);
    if (passes.model->completing()) expect_same_values(whole.store(), passes.store(), line + " (first pass)");
    passes.model->complete();
    EXPECT_FALSE(passes.model->completing());
    expect_same_bits(whole.store(), passes.store(), line);
  }

  apply("set-price " + bond_id + " 1e308");  // whole: the bond fails
  ASSERT_EQ(whole.store().state(ref(Kind::bond, bond)).status, Status::failed);
  apply("bump-curve " + curve + " 3");
  EXPECT_EQ(passes.store().state(ref(Kind::bond, bond)).status, Status::failed) << "the first pass fails it again";
  const LiveModel::Recalculation again = passes.model->complete();
  EXPECT_EQ(again.nodes[static_cast<std::size_t>(Kind::bond)], 0u) << "nothing to recalculate again";
  expect_same_bits(whole.store(), passes.store(), "a quote no spread reprices");

  // A quote so high that its cs01 times a huge quantity overflows a double:
  // one pass fails the trade; the rest leaves its book's cs01 infinite, and
  // the trade's bond is recalculated again whole.
  apply("set-price " + bond_id + " 99.5");
  apply("amend-trade " + trade + " quantity=9000000000000000000");  // refused under a quote of 1e300
  passes.model->complete();
  apply("set-price " + bond_id + " 1e300");  // quotes recalculate whole
  ASSERT_EQ(whole.store().state(ref(Kind::bond, bond)).status, Status::ok) << "a spread reprices 1e300";
  ASSERT_EQ(whole.store().state(ref(Kind::outright_trade, 0)).status, Status::failed) << "its trade's cs01 overflows";
  apply("bump-curve " + curve + " 2");
  EXPECT_EQ(passes.store().state(ref(Kind::outright_trade, 0)).status, Status::ok) << "the first pass values the trade";
  EXPECT_EQ(passes.model->complete().nodes[static_cast<std::size_t>(Kind::bond)], 1u) << "its bond, again";
  // Every status as the whole recalculation's, every value bit for bit but
  // the books' sums (to rounding: they added the trade and took it away).
  expect_same_bits(whole.store(), passes.store(), "a cs01 that overflows its trade's", true);
  EXPECT_NO_THROW(passes.model->graph().check());
  expect_same_as_fresh(passes);
}

// A batch of curve moves and rolls is answered once their values are
// recalculated (its reply names what it recalculated); the rest of the
// recalculation follows before the executor reads anything else, so a read
// in the next batch sees every figure as a fresh flush has it.
TEST(Events, ABumpIsAnsweredWithItsValuesAndTheNextReadSeesEveryFigure) {
  Live live("100", 20, 2);
  const std::int64_t bond = first_id(live.store(), Kind::bond);
  for (const std::string line : {"bump-curve GBP-GILT 4", "roll-date 2025-11-25"}) {
    const std::vector<Reply> replies = live.executor->execute(std::vector{line});
    EXPECT_NE(replies.front().line.find("\"recalculated\""), std::string::npos) << replies.front().line;
    EXPECT_TRUE(live.model->completing()) << line << ": answered before its ladders and quote analytics";
    const base::Json got = live.run("get " + std::to_string(bond));
    EXPECT_FALSE(live.model->completing());
    const BondFigures& figures = live.store().bond_figures[live.node(bond).index];
    EXPECT_EQ(got["z_spread"].get<double>(), figures.z_spread) << got.dump();
    expect_same_as_fresh(live);
  }
  // Several changes in a batch (lines that queued): one pass, which costs less than two.
  live.executor->execute(std::vector<std::string>{"bump-curve GBP-GILT 1", "bump-curve EUR-BUND 1"});
  EXPECT_FALSE(live.model->completing());
  // A trade's reply shows its books' cs01: its batch is recalculated whole.
  live.executor->execute(std::vector<std::string>{"amend-trade " + std::to_string(first_id(live.store(), Kind::outright_trade)) + " quantity=5"});
  EXPECT_FALSE(live.model->completing());
}

TEST(Events, ChangesByAnotherProgramAreAppliedRowByRowOrByAWholeReload) {
  Live live;
  ChangeLog log(*live.db);
  const std::int64_t ot = first_id(live.store(), Kind::outright_trade), rt = first_id(live.store(), Kind::repo_trade);
  const std::int64_t bond = first_id(live.store(), Kind::bond);
  {
    base::Database other(live.path, base::Database::Mode::read_write);
    other.exec("UPDATE outright_trade SET quantity = 4321, buy_sell = 'SELL' WHERE id = " + std::to_string(ot));
    other.exec("UPDATE repo_trade SET rate = 0.0777 WHERE id = " + std::to_string(rt));
    other.exec("INSERT INTO outright_trade VALUES (90001, 'EXT_1', " + std::to_string(bond) +
               ", '2025-01-02', 99.0, 10, 'BUY')");
    other.exec("INSERT INTO outright_trade VALUES (90002, 'EXT_BAD', 424242, '2025-01-02', 99.0, 10, 'BUY')");
    other.exec("UPDATE ir_curve_input_rate SET value = value + 0.001 WHERE ir_curve_id = 2");
    other.exec("UPDATE calendar SET today = '2025-12-15'");
  }
  EXPECT_TRUE(log.external_commit());
  ASSERT_TRUE(log.pending());
  base::Transaction tx(*live.db, true);
  const DatabaseRows rows(*live.db);
  apply_change(*live.model, log.changes(), *live.db, rows);
  const LiveModel::Recalculation r = live.model->recalculate();
  log.consume();
  tx.commit();
  EXPECT_LT(r.nodes[static_cast<std::size_t>(Kind::bond)] + r.nodes[static_cast<std::size_t>(Kind::outright_trade)],
            live.store().size()) << "applied row by row, not by a whole reload";
  EXPECT_EQ(live.store().state(live.node(90002)).status, Status::failed);
  EXPECT_FALSE(log.pending());
  expect_same_as_fresh(live);

  // Another program's SQL, applied as the engine applies it.
  auto apply_other = [&](const std::string& sql) { test::apply_other_program(live, log, sql); };
  // One trade of a book broken, then mended: the book updates from that one
  // member's change, so it must see the status the member had before.
  const std::string second = std::to_string(live.store().ids[static_cast<std::size_t>(Kind::outright_trade)][1]);
  apply_other("UPDATE outright_trade SET bond_id = 999 WHERE id = " + second);
  EXPECT_EQ(live.store().state(live.node(std::stoll(second))).status, Status::failed);
  expect_same_as_fresh(live);
  apply_other("UPDATE outright_trade SET bond_id = " + std::to_string(bond) + " WHERE id = " + second);
  EXPECT_EQ(live.store().state(live.node(std::stoll(second))).status, Status::ok);
  expect_same_as_fresh(live);

  // A book membership change: the whole model is reloaded.
  apply_other("DELETE FROM repo_book_trade WHERE trade_id = " + std::to_string(rt) +
              "; DELETE FROM repo_trade WHERE id = " + std::to_string(rt));
  EXPECT_EQ(live.store().by_id.find(rt), nullptr);
  expect_same_as_fresh(live);
}

// The engine's own writes to the input tables are not recorded as changes
// to apply (its connection runs no triggers); another program's are.
TEST(Events, TheEnginesOwnWritesAreNotRecordedAsChangesButAnotherProgramsAre) {
  Live live;
  const auto recorded = [&] {
    base::Statement st = live.db->prepare("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'input_change'), 0)");
    st.step();
    return st.integer(0);
  };
  const std::int64_t ot = first_id(live.store(), Kind::outright_trade);
  const std::int64_t before = recorded();
  ASSERT_EQ(live.run("amend-trade " + std::to_string(ot) + " quantity=300")["ok"], true);
  ASSERT_EQ(live.run("set-limit total pv01 none 1e9")["ok"], true);
  EXPECT_EQ(recorded(), before) << "the engine's own writes went through the triggers";
  base::Database(live.path, base::Database::Mode::read_write)
      .exec("UPDATE outright_trade SET quantity = 400 WHERE id = " + std::to_string(ot));
  EXPECT_GT(recorded(), before) << "another program's write was not recorded";
  live.run("reload");
  EXPECT_EQ(live.store().outright_trades[live.node(ot).index].quantity, 400);
}

namespace {

// A stage whose reading back fails, and one that records being told.
struct FailingStage : EventStage {
  Phase phase() const override { return Phase::explain; }
  void refused(bool) override { throw std::runtime_error("the day could not be read back"); }
};
struct TellingStage : EventStage {
  Phase phase() const override { return Phase::recalculate; }
  void refused(bool read_back) override { told = read_back; }
  bool told = false;
};

}  // namespace

// A refused batch is told to every stage, even when one fails to read the
// database back: a model read back whole must reach the result marks and
// the watchers after it (their marks index the store read back); the
// first failure is rethrown once all have heard.
TEST(Events, ARefusalReachesEveryStageEvenWhenOneFails) {
  Live live;
  PhaseTimes phases;
  EventStages road(*live.model, phases, 0);
  road.add<FailingStage>();
  const TellingStage& after = road.add<TellingStage>();
  EXPECT_THROW(road.refused(true, 7), std::runtime_error);
  EXPECT_TRUE(after.told) << "a stage after the failing one never heard of the refusal";
  EXPECT_EQ(road.served(), 7);
}
