// The running engine through its socket, as careless or hostile clients and
// other programs meet it: slow readers, watchers, planted files, a second
// engine, a lost reply.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "base/json.h"
#include "base/sqlite.h"
#include "base/unix_socket.h"
#include "bond_risk/model/pricing/dates.h"
#include "tests/test_support.h"

using test::EngineProcess;
using test::run_cli;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The next line (blocking); "" when the connection ends first.
std::string read_line(base::LineReader& lines) { return lines.read_line().value_or(""); }

// An engine on a fresh database (the tiny preset unless `generate` says
// otherwise) in a scratch directory.
struct Served {
  test::TempDir dir;
  std::string db = dir.path("s.db"), sock = dir.path("s.sock");
  std::unique_ptr<EngineProcess> engine;
  explicit Served(const std::string& generate = "--preset tiny") {
    EXPECT_EQ(run_cli("generate " + generate + " --out " + db).exit_code, 0);
    engine = std::make_unique<EngineProcess>(db, sock, dir.path("engine.log"));
    EXPECT_TRUE(engine->ready()) << test::slurp(dir.path("engine.log"));
  }
  std::string send(const std::string& args) { return run_cli("send --socket " + sock + " " + args).out; }
};

}  // namespace

TEST(LiveServer, AClientThatNeverReadsItsRepliesDelaysNobodyElse) {
  Served s;
  base::UniqueFd hog = base::connect_unix(s.sock);
  std::string flood;
  for (int i = 0; i < 20000; ++i) flood += "stats\n";
  std::thread writer([&] { base::write_all(hog.get(), flood); });  // blocks once the engine stops reading it
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto start = std::chrono::steady_clock::now();
  const std::string reply = s.send("get 10");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(contains(reply, "\"ok\":true")) << reply;
  EXPECT_LT(seconds, 5.0) << "another client's unread replies held this one up";
  ::shutdown(hog.get(), SHUT_RDWR);
  writer.join();
}

TEST(LiveServer, AWatcherGetsALineEachTimeItsBookChanges) {
  Served s;
  base::UniqueFd watcher = base::connect_unix(s.sock);
  base::LineReader lines(watcher.get());
  base::write_all(watcher.get(), "watch OB_GBP-GILT_1\n");
  const base::Json ack = base::Json::parse(read_line(lines));
  EXPECT_EQ(ack["ok"], true);
  const base::Json first = base::Json::parse(read_line(lines));  // the values now
  ASSERT_TRUE(first.contains("update")) << first.dump();
  EXPECT_TRUE(contains(s.send("bump-curve GBP-GILT 5"), "\"ok\":true"));
  const base::Json update = base::Json::parse(read_line(lines));
  ASSERT_TRUE(update.contains("update")) << update.dump();
  EXPECT_EQ(update["event"], 1);
  EXPECT_NE(update["update"]["pv"], first["update"]["pv"]);
  const base::Json got = base::Json::parse(s.send("get OB_GBP-GILT_1"));
  EXPECT_EQ(update["update"]["pv"], got["pv"]);
  EXPECT_TRUE(contains(s.send("get 1"), "\"ok\":true"));  // a read changes nothing: no update follows
  base::write_all(watcher.get(), "unwatch\n");
  EXPECT_TRUE(contains(read_line(lines), "\"unwatched\":0"));
}

TEST(LiveServer, AWatcherOfAConventionBondIsSentItsSettlementDirtyPriceAndQuoteYield) {
  Served s("--preset 100 --conventions market");
  std::string bond;
  double quote = 0;
  {
    base::Database db(s.db, base::Database::Mode::read_only);
    base::Statement st = db.prepare("SELECT bond_id, clean_price FROM bond_quote ORDER BY bond_id LIMIT 1");
    ASSERT_TRUE(st.step());
    bond = std::to_string(st.integer(0)), quote = st.real(1);
  }
  base::UniqueFd watcher = base::connect_unix(s.sock);
  base::LineReader lines(watcher.get());
  base::write_all(watcher.get(), "watch " + bond + "\n");
  EXPECT_EQ(base::Json::parse(read_line(lines))["ok"], true);
  const base::Json first = base::Json::parse(read_line(lines))["update"];
  const base::Json got = base::Json::parse(s.send("get " + bond));
  for (const char* field : {"settlement_date", "dirty_price", "quote_yield", "z_spread"}) {
    EXPECT_EQ(first[field], got[field]) << field << ": " << first.dump();
  }
  ASSERT_TRUE(first["settlement_date"].is_string()) << first.dump();
  EXPECT_TRUE(bond_risk::parse_date(first["settlement_date"].get<std::string>()).has_value()) << first.dump();
  // A dearer quote: a lower quote yield and spread, the model's dirty price as it was.
  EXPECT_TRUE(contains(s.send("set-price " + bond + " " + std::to_string(quote + 1)), "\"ok\":true"));
  const base::Json update = base::Json::parse(read_line(lines))["update"];
  EXPECT_LT(update["quote_yield"].get<double>(), first["quote_yield"].get<double>()) << update.dump();
  EXPECT_LT(update["z_spread"].get<double>(), first["z_spread"].get<double>());
  EXPECT_EQ(update["dirty_price"], first["dirty_price"]);
  EXPECT_EQ(update["settlement_date"], first["settlement_date"]);
}

TEST(LiveServer, AWatcherOfEveryBookIsSentTheBooksAnAmendmentChangedAndNoOthers) {
  Served s;
  base::Database db(s.db, base::Database::Mode::read_only);
  std::string books;
  std::size_t count = 0;
  for (base::Statement st = db.prepare("SELECT id FROM outright_book UNION ALL SELECT id FROM repo_book"); st.step(); ++count) {
    books += " " + std::to_string(st.integer(0));
  }
  std::int64_t its_book = 0;
  for (base::Statement st = db.prepare("SELECT book_id FROM outright_book_trade WHERE trade_id = 10"); st.step();) {
    its_book = st.integer(0);
  }
  base::UniqueFd watcher = base::connect_unix(s.sock);
  base::LineReader lines(watcher.get());
  base::write_all(watcher.get(), "watch" + books + "\n");
  EXPECT_EQ(base::Json::parse(read_line(lines))["ok"], true);
  for (std::size_t i = 0; i < count; ++i) {
    ASSERT_TRUE(base::Json::parse(read_line(lines)).contains("update"));  // the values now
  }
  const std::size_t built_before = base::Json::parse(s.send("stats"))["watch_lines"];
  EXPECT_TRUE(contains(s.send("amend-trade 10 quantity=4321"), "\"ok\":true"));
  // A read on the watcher's connection: its reply comes after the amendment's updates.
  base::write_all(watcher.get(), "get 10\n");
  std::vector<std::int64_t> updated;
  for (base::Json line; !(line = base::Json::parse(read_line(lines))).contains("ok");) {
    updated.push_back(line["update"]["id"]);
  }
  EXPECT_EQ(updated, std::vector<std::int64_t>{its_book});
  // Three batches since (stats, the amendment, get) built one line: the changed book's, not one per watched book each.
  const std::size_t built = base::Json::parse(s.send("stats"))["watch_lines"].get<std::size_t>() - built_before;
  EXPECT_EQ(built, 1u) << "of " << count << " watched books";
}

TEST(LiveServer, AWatchFollowsItsNodeThroughAReloadThatMovesIt) {
  // A trade booked live sits at the end of the arrays; a reload lays it out in its book's order,
  // which moves every trade after it (OT_11, of the second book among them).
  Served s;
  base::UniqueFd watcher = base::connect_unix(s.sock);
  base::LineReader lines(watcher.get());
  base::write_all(watcher.get(), "watch 11\n");
  EXPECT_EQ(base::Json::parse(read_line(lines))["ok"], true);
  const base::Json first = base::Json::parse(read_line(lines));
  ASSERT_EQ(first["update"]["id"], 11) << first.dump();
  EXPECT_TRUE(contains(s.send("add-outright bond_id=4 trade_price=99.5 quantity=100 buy_sell=BUY book=OB_GBP-GILT_1"),
                       "\"ok\":true"));
  {
    // Another program edits a bond: not a row the engine re-reads alone, so it reloads the model.
    base::Database other(s.db, base::Database::Mode::read_write);
    other.exec("UPDATE bond SET coupon = coupon WHERE id = 4");
  }
  EXPECT_TRUE(contains(s.send("reload"), "\"ok\":true"));
  EXPECT_TRUE(contains(s.send("amend-trade 11 quantity=777"), "\"ok\":true"));
  const base::Json got = base::Json::parse(s.send("get 11"));
  for (;;) {  // every update is trade 11's, and the last one has its amended values
    const base::Json update = base::Json::parse(read_line(lines));
    ASSERT_TRUE(update.contains("update")) << update.dump();
    ASSERT_EQ(update["update"]["id"], 11) << update.dump();
    if (update["update"]["pv"] == got["pv"]) break;
  }
  EXPECT_TRUE(contains(s.send("remove-trade 11"), "\"ok\":true"));
  const base::Json gone = base::Json::parse(read_line(lines));
  EXPECT_EQ(gone["update"], (base::Json{{"id", 11}, {"status", "REMOVED"}})) << gone.dump();
}

TEST(LiveServer, TheSocketPathNeverDeletesAFileThatIsNotAStaleSocket) {
  test::TempDir dir;
  const std::string db = dir.path("c.db");
  ASSERT_EQ(run_cli("generate --preset tiny --out " + db).exit_code, 0);
  std::ofstream(dir.path("notes.txt")) << "precious\n";
  for (const std::string& target : {db, dir.path("notes.txt")}) {
    const test::CliResult r = run_cli("run --threads 0 --db " + db + " --socket " + target);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(contains(r.err, "exists and is not a socket; refusing to replace it")) << r.err;
  }
  EXPECT_EQ(test::slurp(dir.path("notes.txt")), "precious\n");
  EXPECT_EQ(run_cli("show --db " + db + " 4").exit_code, 0) << "the database is gone";
}

TEST(LiveServer, ABatchRunOrASecondEngineOnTheSameFileIsRefusedWhateverPathNamesIt) {
  Served s;
  std::filesystem::create_symlink(s.db, s.dir.path("link.db"));
  const test::CliResult batch = run_cli("run --batch --db " + s.dir.path("link.db"));
  EXPECT_EQ(batch.exit_code, 1);
  EXPECT_TRUE(contains(batch.err, "is in use by the engine serving " + s.sock)) << batch.err;
  const test::CliResult second = run_cli("run --threads 0 --db " + s.dir.path("link.db") + " --socket " + s.dir.path("o.sock"));
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_TRUE(contains(second.err, "is in use by the engine serving")) << second.err;
}

TEST(LiveServer, SendSaysSoWhenTheEngineClosesWithoutAReply) {
  test::TempDir dir;
  const std::string sock = dir.path("mute.sock");
  base::UnixListener mute(sock);  // accepts, reads, never replies
  std::thread engine([&] {
    int fd = -1;
    while ((fd = ::accept(mute.fd(), nullptr, nullptr)) < 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    char buf[256];
    while (::read(fd, buf, sizeof buf) > 0) {
    }
    ::close(fd);
  });
  const test::CliResult r = run_cli("send --socket " + sock + " amend-trade 10 quantity=5");
  engine.join();
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "closed the connection before replying to 1 of 1 commands")) << r.err;
  EXPECT_TRUE(contains(r.err, "event_log")) << r.err;
}

TEST(LiveServer, AnIdleEngineWritesItsResultsAgainWhenTheirFileIsDeleted) {
  Served s;
  const std::string results = s.dir.path("s.results.db");
  ASSERT_TRUE(test::eventually([&] { return !contains(run_cli("show --db " + s.db + " 4").out, "no results"); }));
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(results + suffix);  // rm DB.results.db*
  // No command comes: the engine notices at its poll, and writes every row to a new file.
  const auto shown = [&] { return run_cli("show --db " + s.db + " 4"); };
  EXPECT_TRUE(test::eventually([&] { return shown().exit_code == 0; }, std::chrono::seconds(10))) << shown().err;
  EXPECT_TRUE(contains(shown().out, "bond 4 (BOND_4): OK price=")) << shown().out;
  const base::Json stats = base::Json::parse(s.send("stats"));
  EXPECT_EQ(stats["results_as_of"], stats["event"]) << stats.dump();
  EXPECT_FALSE(stats.contains("results_recovering")) << stats.dump();
}

// `watch limits`: each alert, as it is committed, to every connection that
// watches them; one that never reads them holds up no other client.
TEST(LiveServer, AWatcherOfLimitsGetsEachAlertAndOneThatNeverReadsHoldsUpNobody) {
  Served s;
  base::UniqueFd hog = base::connect_unix(s.sock);
  base::write_all(hog.get(), "watch limits\n");
  base::UniqueFd watcher = base::connect_unix(s.sock);
  base::LineReader lines(watcher.get());
  base::write_all(watcher.get(), "watch limits\n");
  const base::Json ack = base::Json::parse(read_line(lines));
  EXPECT_EQ(ack["ok"], true) << ack.dump();
  EXPECT_EQ(ack["alerts"], true) << ack.dump();
  EXPECT_TRUE(contains(s.send("start-day"), "\"ok\":true"));
  const base::Json set = base::Json::parse(s.send("set-limit OB_GBP-GILT_1 day_pnl -0.001 0.001"));
  ASSERT_EQ(set["ok"], true) << set.dump();
  // Bumps up and back, one at a time (moves of one curve in a row share a
  // recalculation): each bump breaches the limit, and each bump back cures it.
  const timeval patience{10, 0};  // an alert that never comes fails the test rather than hanging it
  setsockopt(watcher.get(), SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
  base::UniqueFd desk = base::connect_unix(s.sock);
  base::LineReader replies(desk.get());
  for (int i = 0; i < 400; ++i) {
    base::write_all(desk.get(), i % 2 ? "bump-curve GBP-GILT -1\n" : "bump-curve GBP-GILT 1\n");
    ASSERT_TRUE(contains(read_line(replies), "\"ok\":true")) << i;
  }
  for (int i = 0; i < 400; ++i) {
    const base::Json alert = base::Json::parse(read_line(lines));
    ASSERT_TRUE(alert.contains("alert")) << alert.dump();
    EXPECT_EQ(alert["alert"]["limit_id"], set["limit_id"]);
    EXPECT_EQ(alert["alert"]["to"], i % 2 ? "OK" : "BREACHED") << i;
    EXPECT_EQ(alert["alert"]["seq"], alert["event"]);
  }
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(contains(s.send("get 10"), "\"ok\":true"));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
  base::write_all(watcher.get(), "unwatch limits\n");
  EXPECT_TRUE(contains(read_line(lines), "\"unwatched\":0"));
  EXPECT_TRUE(contains(s.send("remove-limit " + std::to_string(set["limit_id"].get<std::int64_t>())), "\"ok\":true"));
}
