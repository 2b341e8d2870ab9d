// The live engine's guarantees (no wrong state, results behind the
// acknowledgement), checked against fresh full flushes of what it wrote.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "bond_risk/db/database_rows.h"
#include "bond_risk/db/change_log.h"
#include "bond_risk/db/result_writer.h"
#include "bond_risk/model/store/published_values.h"
#include "tests/live_support.h"

using namespace bond_risk;
using test::first_id;
using test::Live;

namespace {

std::string id_text(const Store& s, Kind kind, std::size_t i = 0) {
  return std::to_string(s.ids[static_cast<std::size_t>(kind)].at(i));
}

}  // namespace

TEST(LiveEngine, ATradeRemovedInTheBatchOfAChangeThatDirtiesItStaysRemoved) {
  Live live("50k", 1000);
  const std::string ot = id_text(live.store(), Kind::outright_trade);
  const std::string rt = id_text(live.store(), Kind::repo_trade);
  const std::vector<base::Json> replies =
      live.batch({"bump-curve GBP-GILT 1", "remove-trade " + ot, "roll-date 2025-11-25", "remove-trade " + rt,
                  "add-outright bond_id=" + id_text(live.store(), Kind::bond) + " trade_price=99 quantity=5 buy_sell=BUY",
                  "get " + ot});
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(replies[i]["ok"], true) << replies[i].dump();
  EXPECT_EQ(replies[5]["ok"], false) << "a removed trade is still served: " << replies[5].dump();
  const std::string added = std::to_string(replies[4]["id"].get<std::int64_t>());
  // Added and removed in one batch: gone as well.
  const std::vector<base::Json> again = live.batch({"bump-curve EUR-BUND -1", "remove-trade " + added,
                                                    "amend-trade " + ot + " quantity=3", "stats"});
  EXPECT_EQ(again[1]["ok"], true);
  EXPECT_EQ(again[2]["ok"], false) << again[2].dump();
  const std::size_t outright_ok = again[3]["counts"]["outright_trade"]["OK"];
  EXPECT_EQ(outright_ok, live.store().size(Kind::outright_trade) - 2);
  test::expect_same_as_fresh(live);
  test::expect_result_tables_fresh(live);
}

TEST(LiveEngine, ValuesTooLargeForADoubleAreRefusedAndNoBookSumsOne) {
  Live live("100", 20);
  const std::uint64_t digest = results_digest(live.store());
  const std::string ot = id_text(live.store(), Kind::outright_trade), rt = id_text(live.store(), Kind::repo_trade);
  for (const std::string& line : {"amend-trade " + rt + " rate=1e308", "amend-trade " + rt + " start_cash=1e308",
                                  "amend-trade " + ot + " trade_price=1e308 quantity=9000000000000000000",
                                  std::string("bump-curve GBP-GILT 1e308"), std::string("set-rate EUR-BUND 0 5")}) {
    const base::Json reply = live.run(line);
    EXPECT_EQ(reply["ok"], false) << line;
    EXPECT_TRUE(reply.value("error", "").find("too large") != std::string::npos ||
                reply.value("error", "").find("is not within") != std::string::npos)
        << line << ": " << reply.dump();
  }
  EXPECT_EQ(results_digest(live.store()), digest);
  test::expect_same_as_fresh(live);
  test::expect_result_tables_fresh(live);
}

TEST(LiveEngine, ABookWhoseSumOverflowedIsOkAgainOnceAMemberNoLongerMakesItOverflow) {
  Live live("100", 20);
  const std::string bond = id_text(live.store(), Kind::bond);
  const std::string book = "OB_GBP-GILT_1";
  // Each trade's pnl, about -1e308 (sold at a price of 1e308), is finite; the two sum to an infinity: the book FAILS.
  const std::string add = "add-outright bond_id=" + bond + " trade_price=1e308 quantity=1 buy_sell=SELL book=" + book;
  const std::vector<base::Json> added = live.batch({add, add});
  ASSERT_EQ(added[0]["ok"], true) << added[0].dump();
  ASSERT_EQ(added[1]["ok"], true) << added[1].dump();
  const NodeRef ob = live.store().names.at(book);
  EXPECT_EQ(live.store().state(ob).status, Status::failed);
  // Amended, the one left sums to a finite pnl: a fresh flush finds the book OK, and so must the update.
  const base::Json amended = live.run("amend-trade " + std::to_string(added[1]["id"].get<std::int64_t>()) + " trade_price=100");
  ASSERT_EQ(amended["ok"], true) << amended.dump();
  EXPECT_EQ(live.store().state(ob).status, Status::ok);
  test::expect_same_as_fresh(live);
}

TEST(LiveEngine, ANodeWhoseValuesOverflowFailsWithAReasonAndItsBookStaysFinite) {
  // Rows written by another program are not refused: an overflowing trade fails instead.
  Live live("100", 20, 2, "UPDATE repo_trade SET rate = 1e300 WHERE id = (SELECT min(id) FROM repo_trade);");
  const NodeRef rt = live.node(first_id(live.store(), Kind::repo_trade));
  EXPECT_EQ(live.store().state(rt).status, Status::failed);
  const base::Json got = live.run("get " + std::to_string(live.store().id(rt)));
  EXPECT_NE(got.value("reason", "").find("not finite"), std::string::npos) << got.dump();
  for (NodeRef book : live.model->graph().subscribers(rt)) {
    EXPECT_EQ(live.store().state(book).status, Status::stale);
    EXPECT_TRUE(std::isfinite(live.store().repo_books[book.index].total.margin));
  }
  // Mended, the book sums it again, from the change, and equals a fresh sum.
  EXPECT_EQ(live.run("amend-trade " + std::to_string(live.store().id(rt)) + " rate=0.04")["ok"], true);
  EXPECT_EQ(live.store().state(rt).status, Status::ok);
  test::expect_same_as_fresh(live);
  test::expect_result_tables_fresh(live);
}

TEST(LiveEngine, ExternalEditsAreAppliedAsARestartWouldSeeThem) {
  Live live("100", 20);
  ChangeLog log(*live.db);
  auto apply_other = [&](const std::string& sql) {
    test::apply_other_program(live, log, sql);
    test::expect_same_as_fresh(live);
  };
  const std::string ot = id_text(live.store(), Kind::outright_trade), ot2 = id_text(live.store(), Kind::outright_trade, 1);
  apply_other("UPDATE outright_trade SET id = 900000 WHERE id = " + ot);       // a new id: its book still names the old one
  apply_other("UPDATE ir_curve_input_rate SET ir_curve_id = 3, idx = 12 WHERE ir_curve_id = 2 AND idx = 4");  // moves curve
  apply_other("DELETE FROM outright_trade WHERE id = " + ot2);                 // its membership row stays
  apply_other("UPDATE calendar SET today = '2026-03-01'");
}

TEST(LiveEngine, ReadsWriteNothingAndSeeTheChangesBeforeThem) {
  Live live("100", 20);
  const std::string ot = id_text(live.store(), Kind::outright_trade);
  base::Database other(live.path, base::Database::Mode::read_only);
  auto version = [&] {
    base::Statement st = other.prepare("PRAGMA data_version");
    st.step();
    return st.integer(0);
  };
  live.executor->results().wait_written();
  const std::int64_t before = version();
  live.batch({"get " + ot, "book OB_GBP-GILT_1", "stats", "get 1"});
  EXPECT_EQ(version(), before) << "a batch of reads wrote to the database";
  const std::vector<base::Json> r = live.batch({"amend-trade " + ot + " quantity=777", "get " + ot});
  EXPECT_EQ(r[1]["pv"], r[0]["trade"]["pv"]) << "the read does not see the amendment before it";
  EXPECT_EQ(r[0]["event"], live.executor->served_event());
}

// An amendment's reply carries the trade's values and its books' totals, not
// their ladders (JSON for a trade's and a book's 12 points cost each
// amendment about 30 us, a third of the engine's time per amendment in
// bench/run_events.sh); `get` and `book` carry the ladders.
TEST(LiveEngine, AnAmendmentsReplyCarriesValuesAndTheReadsCarryLadders) {
  Live live("100", 20);
  const std::string ot = id_text(live.store(), Kind::outright_trade);
  const std::vector<base::Json> r = live.batch({"amend-trade " + ot + " quantity=778", "get " + ot});
  ASSERT_TRUE(r[0].contains("trade")) << r[0];
  ASSERT_FALSE(r[0]["books"].empty()) << r[0];
  EXPECT_TRUE(r[0]["trade"].contains("pv01"));
  EXPECT_FALSE(r[0]["trade"].contains("key_rates")) << r[0]["trade"];
  EXPECT_FALSE(r[0]["books"][0].contains("key_rates")) << r[0]["books"][0];
  EXPECT_TRUE(r[1].contains("key_rates")) << r[1];
  const base::Json book = live.batch({"book " + std::to_string(r[0]["books"][0]["id"].get<std::int64_t>())})[0];
  EXPECT_EQ(book["pv"], r[0]["books"][0]["pv"]);
  EXPECT_TRUE(book.contains("key_rates")) << book;
}

TEST(LiveEngine, AThousandRandomBatchesEndWithResultTablesEqualToAFreshFlush) {
  Live live("100", 20, 2);
  std::mt19937_64 rng(7);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  std::vector<std::string> trades = [&] {
    std::vector<std::string> out;
    for (Kind k : {Kind::outright_trade, Kind::repo_trade}) {
      for (std::int64_t id : live.store().ids[static_cast<std::size_t>(k)]) out.push_back(std::to_string(id));
    }
    return out;
  }();
  const auto& bonds = live.store().ids[static_cast<std::size_t>(Kind::bond)];
  int day = 0;
  for (int b = 0; b < 250; ++b) {
    std::vector<std::string> lines;
    for (int e = 0; e < 4; ++e) {
      const std::string t = trades[pick(trades.size())];
      switch (pick(9)) {
        case 0: lines.push_back("bump-curve " + std::string(pick(2) ? "GBP-GILT" : "EUR-BUND") + " " + std::to_string(int(pick(11)) - 5)); break;
        case 1: day += int(pick(4)); lines.push_back("roll-date " + format_date(*parse_date("2025-11-21") + day)); break;
        case 2: lines.push_back("amend-trade " + t + " quantity=" + std::to_string(1 + pick(1000))); break;
        case 3: lines.push_back("amend-trade " + t + " rate=" + (pick(4) ? "0.03" : "1e308")); break;
        case 4: lines.push_back("amend-trade " + t + " bond_id=" + std::to_string(bonds[pick(bonds.size())])); break;
        case 5: lines.push_back("add-outright bond_id=" + std::to_string(bonds[pick(bonds.size())]) +
                                " trade_price=100 quantity=10 buy_sell=BUY book=OB_GBP-GILT_1"); break;
        case 6: lines.push_back("remove-trade " + t); break;
        case 7: lines.push_back("set-rate GBP-GILT " + std::to_string(pick(12)) + " 0.0" + std::to_string(1 + pick(8))); break;
        default: lines.push_back("get " + t); break;
      }
    }
    const std::vector<base::Json> replies = live.batch(lines);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].rfind("add-outright", 0) == 0 && replies[i]["ok"] == true) {
        trades.push_back(std::to_string(replies[i]["id"].get<std::int64_t>()));
        lines.push_back("remove-trade " + trades.back());  // sometimes removed in the next batch
      }
    }
  }
  test::expect_same_as_fresh(live);
  test::expect_result_tables_fresh(live);
}

// Big events back to back, each followed by only a slice of publication (as
// the server publishes between batches): what waits for the result writer
// stays within one row per node, and the tables advance during the flood.
TEST(LiveEngine, AFloodOfBigEventsKeepsAtMostOneResultWaitingPerNodeAndTheTablesAdvance) {
  Live live("100", 20, 2);
  const std::int64_t before = live.executor->results().wait_written();
  std::int64_t during = before;
  for (int e = 0; e < 300; ++e) {
    const std::string line = e % 3 == 0 ? "roll-date " + format_date(*parse_date("2025-11-21") + e / 3 + 1)
                                        : std::string("bump-curve GBP-GILT ") + (e % 2 ? "+1" : "-1");  // +1 as a desk types it
    for (const Reply& reply : live.executor->execute(std::vector{line})) {
      ASSERT_NE(reply.line.find("\"ok\":true"), std::string::npos) << line << ": " << reply.line;
    }
    live.executor->publish_results(50);  // far fewer rows than one event recalculates
    if (e == 200) during = live.executor->results().wait_written();
  }
  const base::Json stats = live.run("stats");
  ASSERT_TRUE(stats.contains("results_pending")) << stats.dump();
  const base::Json& pending = stats["results_pending"];
  const std::size_t nodes = pending["nodes"];
  EXPECT_EQ(nodes, live.store().size());
  EXPECT_GT(pending["marked_peak"].get<std::size_t>(), 0u);
  EXPECT_LE(pending["marked_peak"].get<std::size_t>(), nodes);
  EXPECT_LE(pending["assembled_peak"].get<std::size_t>(), nodes);
  EXPECT_GT(during, before) << "no results were written during the flood";
  live.executor->publish_results();
  test::expect_result_tables_fresh(live);
}

// Rows published as the server does (Handover::when_wanted) while the
// writer is held in a write (another connection holds the results file's
// lock) and the next batch is sealed: the pass waits, its rows kept marked,
// and once the writer is free they reach the tables: the last event's.
TEST(LiveEngine, APassThatWaitsForTheWriterKeepsItsRowsUntilTheyReachTheTables) {
  Live live("100", 20, 2);
  live.executor->results().wait_written();
  base::Database other(results_path(live.path), base::Database::Mode::read_write);
  other.exec("BEGIN IMMEDIATE");  // the writer's next write waits for the lock (up to its busy timeout)
  const auto roll = [&](int day, Handover handover) -> bool {
    const std::string line = "roll-date " + format_date(*parse_date("2025-11-21") + day);
    for (const Reply& reply : live.executor->execute(std::vector{line})) {
      EXPECT_NE(reply.line.find("\"ok\":true"), std::string::npos) << line << ": " << reply.line;
    }
    return live.executor->publish_results(SIZE_MAX, handover);
  };
  roll(1, Handover::now);  // every row: the writer takes them and waits for the lock
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // time for it to take them
  roll(2, Handover::now);  // every row again: sealed behind the held write
  EXPECT_FALSE(roll(3, Handover::when_wanted));  // the pass waits
  other.exec("ROLLBACK");
  // The server's poll publishes as above until the writer has the last event.
  const std::int64_t last = live.executor->served_event();
  EXPECT_TRUE(test::eventually([&] {
    while (live.executor->publish_results(4096, Handover::when_wanted)) {
    }
    return live.executor->results().written_as_of() == last;
  }, std::chrono::seconds(20))) << "written as of " << live.executor->results().written_as_of() << ", last event " << last;
  test::expect_result_tables_fresh(live);
}

// A pass of publication that ends with only a curve's mark behind it (a
// node with no result table) still brings the tables' as-of to the last
// event: the stamp is written without rows. It stayed at the pass's first
// event until another event came (seen once as a bench run whose results
// "did not catch up within a minute", 8 events behind).
TEST(LiveEngine, ResultsReachTheLastEventWhenOnlyRowlessMarksWereLeftBehindAPass) {
  Live live("100", 20, 2);
  live.executor->results().wait_written();
  auto execute = [&](const std::string& line) {
    for (const Reply& reply : live.executor->execute(std::vector{line})) {
      ASSERT_NE(reply.line.find("\"ok\":true"), std::string::npos) << line << ": " << reply.line;
    }
  };
  execute("bump-curve EUR-BUND 1");
  live.executor->publish_results(1);  // the pass takes the curve's mark, then stops before the bonds
  execute("bump-curve GBP-GILT 1");   // its curve's mark lies behind the pass, its bonds' ahead
  // The writer takes each sealed batch before the next slice (as it may when the loop is slow).
  for (bool more = true; more;) {
    live.executor->results().wait_written();
    more = live.executor->publish_results();
  }
  EXPECT_EQ(live.executor->results().wait_written(), live.executor->served_event());
  test::expect_result_tables_fresh(live);
}

TEST(LiveEngine, EveryLineGetsOneValidJsonReplyWhateverItsBytes) {
  Live live("tiny", 4);
  const std::vector<base::Json> replies = live.batch({"", "   ", std::string("get a\0b\xff\"c", 10)});
  ASSERT_EQ(replies.size(), 3u);  // Live::batch parses each: all valid JSON
  EXPECT_EQ(replies[0]["error"], "empty command");
  EXPECT_EQ(replies[1]["error"], "empty command");
  const std::string error = replies[2]["error"];
  EXPECT_NE(error.find(std::string("a\0b", 3)), std::string::npos) << "a NUL cut the message short";
  EXPECT_NE(error.find("\xef\xbf\xbd\"c"), std::string::npos) << "a byte that is not UTF-8 is not replaced";
}

// A book's ladder updates from the one member an amendment changed (old part
// out, new part in); the part taken out must be the one the book holds, not
// one made from the trade's amended row (which names another bond or curve).
TEST(LiveEngine, ABooksLadderFollowsAMemberAmendedToAnotherBondOrCurve) {
  Live live("100", 20);
  const Store& s = live.store();
  const std::string ot = id_text(s, Kind::outright_trade), rt = id_text(s, Kind::repo_trade);
  const auto other_curve_bond = [&](NodeIndex bond) {
    for (NodeIndex b = 0; b < s.bonds.size(); ++b) {
      if (s.bonds[b].curve != s.bonds[bond].curve && s.state(ref(Kind::bond, b)).status == Status::ok) {
        return std::to_string(s.ids[static_cast<std::size_t>(Kind::bond)][b]);
      }
    }
    return std::string("none");
  };
  const std::string other_curve =
      std::to_string(s.ids[static_cast<std::size_t>(Kind::ir_curve)][1 - s.repo_trades[0].curve]);
  for (const std::string& line :
       {"amend-trade " + ot + " bond_id=" + other_curve_bond(s.outright_trades[0].bond) + " quantity=700",
        "amend-trade " + ot + " quantity=300 buy_sell=SELL",
        "amend-trade " + rt + " bond_id=" + other_curve_bond(s.repo_trades[0].bond) + " notional=90000",
        "amend-trade " + rt + " ir_curve_id=" + other_curve + " end_date=2026-03-02 start_cash=8000000"}) {
    ASSERT_EQ(live.run(line)["ok"], true) << line;
    test::expect_same_as_fresh(live);
  }
  test::expect_result_tables_fresh(live);
}

// A repo's row of its curve's discounted-sum ladder is picked by its
// calendar's today: a date roll of that calendar alone (its bond's calendar
// unchanged) moves the repo's part of its book's ladder, which the book must
// not take as unchanged.
TEST(LiveEngine, ABooksLadderFollowsARollOfOneRepoCalendar) {
  Live live("100", 10, 2,
            "INSERT INTO calendar (id, name, today) VALUES (99999, 'OTHER', '2025-11-21');"
            "UPDATE repo_trade SET calendar_id = 99999, end_date = '2026-06-30' WHERE id = (SELECT min(id) FROM repo_trade);");
  for (const char* date : {"2025-11-24", "2025-12-31"}) {
    ASSERT_EQ(live.run(std::string("roll-date ") + date + " OTHER")["ok"], true);
    test::expect_same_as_fresh(live);
  }
  test::expect_result_tables_fresh(live);
}

// `stats` takes percentiles of the last LiveModel::kLatencyWindow
// recalculations: the engine keeps that many latencies however long it runs
// (it kept every one, 8 bytes an event, and sorted them all at each stats),
// while recalculations() still counts every one.
TEST(LiveEngine, KeepsAWindowOfRecalculationLatencies) {
  Live live("tiny", 20, 0);
  const std::string ot = id_text(live.store(), Kind::outright_trade);
  const std::size_t n = LiveModel::kLatencyWindow + 10, before = live.model->recalculations();
  const DatabaseRows rows(*live.db);  // prepared and committed, not persisted: the model alone
  for (std::size_t i = 0; i < n; ++i) {
    live.model->commit(live.model->prepare(AmendTrade{ot, {{"quantity", static_cast<std::int64_t>(1 + i % 7)}}}, rows), rows);
    live.model->recalculate();
  }
  EXPECT_EQ(live.model->recalculations(), before + n);
  EXPECT_EQ(live.model->latencies_us().size(), LiveModel::kLatencyWindow);
  const base::Json stats = live.run("stats");
  EXPECT_GT(stats["recalc_us"]["max"].get<double>(), 0.0);
}

TEST(LiveEngine, ListBooksNamesEveryBookAsTheDatabaseHoldsThem) {
  Live live("100", 20);
  base::Statement st = live.db->prepare(
      "SELECT id, name, 'outright_book' FROM outright_book UNION ALL SELECT id, name, 'repo_book' FROM repo_book "
      "ORDER BY name");
  base::Json expected = base::Json::array();
  while (st.step()) expected.push_back({{"id", st.integer(0)}, {"name", st.text(1)}, {"type", st.text(2)}});
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(live.run("list-books")["books"], expected);
}

TEST(LiveEngine, LastEventsAreTheEventLogsRowsWithWhatEachRecalculated) {
  Live live("100", 20);
  const std::string ot = id_text(live.store(), Kind::outright_trade);
  const base::Json amended = live.run("amend-trade " + ot + " quantity=778");
  EXPECT_FALSE(live.run("amend-trade 999999999 quantity=1")["ok"]);  // refused: no event
  const base::Json bumped = live.run("bump-curve " + id_text(live.store(), Kind::ir_curve) + " 1");
  const base::Json events = live.run("last-events")["events"];
  ASSERT_EQ(events.size(), 2u) << events;
  base::Statement log = live.db->prepare("SELECT seq, time, command FROM event_log ORDER BY seq");
  for (const base::Json* reply : {&amended, &bumped}) {
    const base::Json& e = events[reply == &amended ? 0 : 1];
    ASSERT_TRUE(log.step());
    EXPECT_EQ(e["seq"], log.integer(0));
    EXPECT_EQ(e["seq"], (*reply)["event"]);
    EXPECT_EQ(e["time"], log.text(1));
    EXPECT_EQ(e["command"], log.text(2));
    std::size_t nodes = 0;
    for (const auto& [kind, n] : (*reply)["recalculated"].items()) nodes += n.get<std::size_t>();
    EXPECT_EQ(e["nodes"], nodes);
    EXPECT_GT(e["engine_us"].get<double>(), 0.0);
  }
  EXPECT_EQ(live.run("last-events " + events[0]["seq"].dump())["events"], base::Json::array({events[1]}));
  // At most the last hundred.
  std::vector<std::string> many;
  for (int i = 0; i < 130; ++i) many.push_back("amend-trade " + ot + " quantity=" + std::to_string(i + 1));
  const std::int64_t last = live.batch(many).back()["event"];
  const base::Json kept = live.run("last-events")["events"];
  ASSERT_EQ(kept.size(), 100u);
  EXPECT_EQ(kept.back()["seq"], last);
  EXPECT_EQ(kept.front()["seq"], last - 99);
}

TEST(LiveEngine, WatchersAreToldOnlyOfTheNodesABatchChanged) {
  Live live("100", 20);
  const std::string ot = id_text(live.store(), Kind::outright_trade);
  // The amended trade's books, from the membership tables.
  std::set<std::int64_t> its_books;
  base::Statement st = live.db->prepare("SELECT book_id FROM outright_book_trade WHERE trade_id = ?");
  st.bind(1, std::int64_t{std::stoll(ot)});
  while (st.step()) its_books.insert(st.integer(0));
  ASSERT_FALSE(its_books.empty());
  auto changed_books = [&] {
    std::set<std::int64_t> out;
    for (Kind k : {Kind::outright_book, Kind::repo_book}) {
      for (std::int64_t id : live.store().ids[static_cast<std::size_t>(k)]) {
        if (live.executor->watches().changed(id)) out.insert(id);
      }
    }
    return out;
  };
  EXPECT_EQ(changed_books().size(), live.store().size(Kind::outright_book) + live.store().size(Kind::repo_book))
      << "before the first notification every node counts as changed";
  live.executor->watches().forget();
  EXPECT_TRUE(changed_books().empty());
  live.run("amend-trade " + ot + " quantity=778");
  EXPECT_EQ(changed_books(), its_books);
  EXPECT_TRUE(live.executor->watches().changed(std::stoll(ot)));
  live.executor->watches().forget();
  live.run("get " + ot);
  EXPECT_TRUE(changed_books().empty()) << "a read changes nothing";
  live.run("reload");
  live.executor->watches().forget();
  const std::string curve = id_text(live.store(), Kind::ir_curve);
  live.run("bump-curve " + curve + " 1");
  // Every bond on that curve, and none on another.
  for (std::size_t b = 0; b < live.store().size(Kind::bond); ++b) {
    const NodeRef bond{static_cast<engine::TypeId>(Kind::bond), static_cast<NodeIndex>(b)};
    const bool on_curve = std::to_string(live.store().id(NodeRef{static_cast<engine::TypeId>(Kind::ir_curve),
                                                                 live.store().bonds[b].curve})) == curve;
    EXPECT_EQ(live.executor->watches().changed(live.store().id(bond)), on_curve) << live.store().id(bond);
  }
}

TEST(LiveEngine, AnEngineStartsItsEventFeedWithTheEventsLoggedBefore) {
  Live live("100", 20);
  const std::string ot = id_text(live.store(), Kind::outright_trade);
  live.batch({"amend-trade " + ot + " quantity=11", "amend-trade " + ot + " quantity=12"});
  live.executor.reset();  // a restart: a new executor on the same database
  live.executor = std::make_unique<CommandExecutor>(*live.model, *live.db);
  const base::Json events = live.run("last-events")["events"];
  base::Statement log = live.db->prepare("SELECT seq, time, command FROM event_log ORDER BY seq");
  std::size_t n = 0;
  for (; log.step(); ++n) {
    ASSERT_LT(n, events.size()) << events;
    EXPECT_EQ(events[n]["seq"], log.integer(0));
    EXPECT_EQ(events[n]["time"], log.text(1));
    EXPECT_EQ(events[n]["command"], log.text(2));
    EXPECT_TRUE(events[n]["engine_us"].is_null()) << "not measured by this engine";
  }
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(events.size(), n);
}

TEST(LiveEngine, TopPositionsAreAnOutrightBooksLargestTradesByPv01WithTheirBonds) {
  // One member of the first outright book FAILED (a bad side): it ranks after every OK one.
  const std::string first_book = "(SELECT min(id) FROM outright_book)";
  Live live("100", 20, 2,
            "UPDATE outright_trade SET buy_sell = 'XX' WHERE id = (SELECT min(trade_id) FROM outright_book_trade "
            "WHERE book_id = " + first_book + ");");
  base::Statement members = live.db->prepare("SELECT m.book_id, t.id, t.bond_id FROM outright_book_trade m JOIN "
                                             "outright_trade t ON t.id = m.trade_id WHERE m.book_id = " + first_book);
  std::string book;
  std::map<std::int64_t, std::int64_t> bond_of;  // the book's trades
  while (members.step()) book = std::to_string(members.integer(0)), bond_of[members.integer(1)] = members.integer(2);
  ASSERT_GT(bond_of.size(), 5u);
  // What `get` says of each trade and bond, ranked: OK trades by |pv01|, then by id.
  std::map<std::int64_t, base::Json> got;
  for (const auto& [trade, bond] : bond_of) {
    for (const std::int64_t id : {trade, bond}) {
      got[id] = live.run("get " + std::to_string(id));
      got[id].erase("key_rates");
      got[id].erase("ok");
      got[id].erase("inputs");  // what it is computed from: get's alone
    }
  }
  std::vector<std::int64_t> expected;
  for (const auto& [trade, bond] : bond_of) expected.push_back(trade);
  const auto size = [&](std::int64_t t) { return got[t]["status"] == "OK" ? std::abs(got[t]["pv01"].get<double>()) : -1.0; };
  std::stable_sort(expected.begin(), expected.end(), [&](std::int64_t a, std::int64_t b) { return size(a) > size(b); });
  EXPECT_EQ(got[expected.back()]["status"], "FAILED") << got[expected.back()];

  const base::Json all = live.run("top-positions " + book + " 1000");
  ASSERT_EQ(all["ok"], true) << all;
  EXPECT_EQ(std::to_string(all["id"].get<std::int64_t>()), book);
  ASSERT_EQ(all["positions"].size(), expected.size()) << all;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const base::Json& p = all["positions"][i];
    EXPECT_EQ(p["trade"], got[expected[i]]) << i;
    EXPECT_EQ(p["bond"], got[bond_of[expected[i]]]) << i;
  }
  const base::Json top = live.run("top-positions " + book + " 5");
  ASSERT_EQ(top["positions"].size(), 5u) << top;
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(top["positions"][i], all["positions"][i]) << i;
  EXPECT_EQ(live.run("top-positions " + book)["positions"].size(), std::min<std::size_t>(20, expected.size()));

  // A removed trade is no position.
  ASSERT_EQ(live.run("remove-trade " + std::to_string(expected[0]))["ok"], true);
  const base::Json after = live.run("top-positions " + book + " 1000");
  ASSERT_EQ(after["positions"].size(), expected.size() - 1) << after;
  EXPECT_EQ(after["positions"][0]["trade"]["id"], expected[1]);

  const base::Json repo = live.run("top-positions " + std::to_string(first_id(live.store(), Kind::repo_book)));
  EXPECT_EQ(repo["ok"], false);
  EXPECT_NE(repo.value("error", "").find("repo_book, not an outright book"), std::string::npos) << repo;
  EXPECT_EQ(live.run("top-positions " + book + " 1001")["ok"], false);
}

// `get` says what a node is computed from beside its values: a trade's
// bond, size, price, side and books, a curve's rates, the date it is valued at.
TEST(LiveEngine, GetShowsWhatANodeIsComputedFrom) {
  Live live("100", 20, 2, "UPDATE outright_trade SET bond_id = 999999 WHERE id = (SELECT max(id) FROM outright_trade);");
  const Store& s = live.store();
  const OutrightBook& book = s.outright_books[s.names.at("OB_GBP-GILT_1").index];
  const NodeIndex t = book.members.at(0);
  const base::Json trade = live.run("get " + std::to_string(s.id(ref(Kind::outright_trade, t))))["inputs"];
  EXPECT_EQ(trade["quantity"], s.outright_trades[t].quantity);
  EXPECT_EQ(trade["trade_price"], s.outright_trades[t].trade_price);
  EXPECT_EQ(trade["bond_id"], s.id(ref(Kind::bond, s.outright_trades[t].bond)));
  EXPECT_EQ(trade["buy_sell"], s.outright_trades[t].dir > 0 ? "BUY" : "SELL");
  ASSERT_EQ(trade["books"].size(), 1u);
  EXPECT_EQ(trade["books"][0]["name"], "OB_GBP-GILT_1");
  EXPECT_EQ(trade["today"], format_date(s.calendars[0].today));
  const base::Json curve = live.run("get GBP-GILT")["inputs"];
  const IrCurve& gilt = s.curves[s.names.at("GBP-GILT").index];
  ASSERT_EQ(curve["rates"].size(), gilt.points.size());
  EXPECT_EQ(curve["rates"][3]["value"], gilt.points[3].value);
  EXPECT_EQ(curve["rates"][3]["days_forward"], gilt.points[3].days_forward);
  // A row that could not be read whole names nothing it could not resolve, only why.
  const std::int64_t bad = *std::max_element(s.ids[static_cast<std::size_t>(Kind::outright_trade)].begin(),
                                             s.ids[static_cast<std::size_t>(Kind::outright_trade)].end());
  const base::Json unreadable = live.run("get " + std::to_string(bad))["inputs"];
  EXPECT_FALSE(unreadable.contains("bond_id")) << unreadable.dump();
  EXPECT_NE(unreadable.value("unreadable", "").find("unknown bond id 999999"), std::string::npos) << unreadable.dump();
}
