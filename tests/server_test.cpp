// The engine as a desk runs it: a server process driven through its socket
// by bond_risk send, including garbage, a second engine, and kill -9.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "base/json.h"
#include "bond_risk/db/database_rows.h"
#include "bond_risk/live/apply_change.h"
#include "bond_risk/protocol/command.h"
#include "bond_risk/live/live_model.h"
#include "bond_risk/db/loader.h"
#include "bond_risk/db/schema.h"
#include "base/unix_socket.h"
#include "tests/test_support.h"

using namespace bond_risk;

using test::EngineProcess;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(Server, ServesCommandsSurvivesGarbageRefusesASecondEngineAndShutsDown) {
  test::TempDir dir;
  const std::string db = dir.path("s.db"), sock = dir.path("s.sock");
  ASSERT_EQ(test::run_cli("generate --preset tiny --out " + db).exit_code, 0);
  EngineProcess engine(db, sock, dir.path("engine.log"));
  ASSERT_TRUE(engine.ready()) << test::slurp(dir.path("engine.log"));
  struct stat st {};
  ASSERT_EQ(stat(sock.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  const std::string s = " --socket " + sock;
  const test::CliResult amend = test::run_cli("send" + s + " amend-trade 10 quantity=1234");
  EXPECT_EQ(amend.exit_code, 0) << amend.err;
  EXPECT_TRUE(contains(amend.out, "{\"ok\":true,\"id\":10,\"recalculated\":{")) << amend.out;
  EXPECT_TRUE(contains(amend.out, "\"outright_trade\":1")) << amend.out;
  const test::CliResult bad = test::run_cli("send" + s + " amend-trade 10 quantity=x");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(contains(bad.out, "{\"ok\":false,\"error\":\"quantity 'x' is not a whole number\"}")) << bad.out;

  {  // 2 MB of garbage without a newline: an error reply and a closed connection.
    base::UniqueFd fd = base::connect_unix(sock);
    base::write_all(fd.get(), std::string(2 << 20, 'x'));
    char buf[256] = {};
    const ssize_t n = read(fd.get(), buf, sizeof buf - 1);
    EXPECT_GT(n, 0);
    EXPECT_TRUE(contains(buf, "line longer than 1 MiB")) << buf;
  }
  {  // A client that leaves mid-line.
    base::UniqueFd fd = base::connect_unix(sock);
    base::write_all(fd.get(), "amend-trade 10 quan");
  }
  const test::CliResult second = test::run_cli("run --db " + db + s + " --threads 0");
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_TRUE(contains(second.err, "is in use by the engine serving " + sock)) << second.err;

  // Another program edits an input table: the engine notices by itself.
  auto pv_of = [&](const std::string& reply) {
    const auto at = reply.find("\"pv\":");
    return at == std::string::npos ? 0.0 : std::stod(reply.substr(at + 5));
  };
  std::int64_t quantity = 0;
  {
    base::Database other(db, base::Database::Mode::read_write);
    base::Statement q = other.prepare("SELECT quantity FROM outright_trade WHERE id = 11");
    ASSERT_TRUE(q.step());
    quantity = q.integer(0);
  }
  const double pv_before = pv_of(test::run_cli("send" + s + " get 11").out);
  ASSERT_NE(pv_before, 0.0);
  {
    base::Database other(db, base::Database::Mode::read_write);
    other.exec("UPDATE outright_trade SET quantity = 777 WHERE id = 11");
  }
  const double expected = pv_before / static_cast<double>(quantity) * 777;
  double pv_after = pv_before;
  for (int i = 0; i < 50 && std::abs(pv_after - expected) > 1e-9 * std::abs(expected); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    pv_after = pv_of(test::run_cli("send" + s + " get 11").out);
  }
  EXPECT_NEAR(pv_after, expected, 1e-9 * std::abs(expected)) << "the engine did not pick up the external change";
  EXPECT_TRUE(contains(test::run_cli("send" + s + " reload").out, "{\"ok\":true,\"recalculated\":{"));

  const test::CliResult piped = test::run_cli("send" + s + " < /dev/null");
  EXPECT_EQ(piped.exit_code, 0);
  const test::CliResult get = test::run_cli("send" + s + " get 10");
  EXPECT_TRUE(contains(get.out, "\"status\":\"OK\"")) << get.out;
  EXPECT_EQ(test::run_cli("send" + s + " shutdown").exit_code, 0);
  EXPECT_EQ(engine.wait(), 0);
  EXPECT_NE(access(sock.c_str(), F_OK), 0) << "the socket file is removed on shutdown";

  // The change was committed with its event_log row.
  base::Database check(db, base::Database::Mode::read_only);
  base::Statement q = check.prepare("SELECT (SELECT quantity FROM outright_trade WHERE id = 10), (SELECT count(*) FROM event_log)");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.integer(0), 1234);
  EXPECT_EQ(q.integer(1), 1);
}

TEST(Server, AfterKillNineEveryAcknowledgedEventIsInTheDatabaseAndARestartEqualsAReplay) {
  test::TempDir dir;
  const std::string db = dir.path("k.db"), sock = dir.path("k.sock"), original = dir.path("original.db");
  ASSERT_EQ(test::run_cli("generate --preset 50k --out " + db).exit_code, 0);
  std::filesystem::copy_file(db, original);
  {
    std::ofstream commands(dir.path("commands"));
    for (int i = 0; i < 20000; ++i) {
      commands << "amend-trade " << 5004 + (i * 7919) % 22500 << " quantity=" << 1 + i % 997 << "\n";
      if (i % 500 == 0) commands << "bump-curve GBP-GILT 1\n";
    }
  }
  EngineProcess engine(db, sock, dir.path("engine.log"));
  ASSERT_TRUE(engine.ready()) << test::slurp(dir.path("engine.log"));
  const std::string send = std::string("'") + std::getenv("BOND_RISK_BIN") + "' send --socket " + sock + " < " +
                           dir.path("commands") + " > " + dir.path("replies") + " 2>/dev/null";
  std::thread client([&] { std::system(send.c_str()); });
  // Kill while commands are streaming: shortly after the first replies (a
  // sanitizer build takes far longer to get there).
  for (int i = 0; i < 1200 && test::slurp(dir.path("replies")).size() < 1000; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  engine.kill9();
  client.join();
  EXPECT_EQ(engine.wait(), -SIGKILL);

  std::vector<std::string> acknowledged;
  {
    std::ifstream replies(dir.path("replies")), commands(dir.path("commands"));
    std::string reply, command;
    while (std::getline(replies, reply) && std::getline(commands, command)) {
      ASSERT_TRUE(contains(reply, "{\"ok\":true")) << reply;
      acknowledged.push_back(command);
    }
  }
  ASSERT_GT(acknowledged.size(), 0u) << "no command was acknowledged before the kill";
  std::cout << acknowledged.size() << " commands acknowledged before kill -9\n";
  ASSERT_LT(acknowledged.size(), 20040u) << "the kill came after the last command";

  // Every acknowledged command is in the event log, in order (a few more may
  // have committed without their reply getting out).
  std::vector<std::string> logged;
  {
    base::Database recovered(db, base::Database::Mode::read_write);  // opening recovers the WAL
    base::Statement q = recovered.prepare("SELECT command FROM event_log ORDER BY seq");
    while (q.step()) logged.emplace_back(q.text(0));
  }
  ASSERT_GE(logged.size(), acknowledged.size());
  std::cout << logged.size() << " commands in the event log\n";
  for (std::size_t i = 0; i < acknowledged.size(); ++i) ASSERT_EQ(logged[i], acknowledged[i]) << "event " << i;

  // Replaying the logged events on the original database gives the same inputs and results.
  {
    base::Database replay(original, base::Database::Mode::read_write);
    replay.exec(kSchemaSql);
    LiveModel model(load(replay).store, engine::SchedulerOptions{.threads = 0}, 4096);
    model.flush_all();
    base::Transaction tx(replay);
    const DatabaseRows rows(replay);
    for (const std::string& line : logged) apply_change(model, std::get<Change>(parse_command(line)), replay, rows);
    model.recalculate();
    tx.commit();
  }
  {
    // A restart recomputes the results from the inputs; once its writer has
    // caught up, its result tables are those of a fresh batch run.
    EngineProcess restarted(db, sock, dir.path("restart.log"));
    ASSERT_TRUE(restarted.ready()) << test::slurp(dir.path("restart.log"));
    base::Json stats;
    for (int i = 0; i < 600; ++i) {
      stats = base::Json::parse(test::run_cli("send --socket " + sock + " stats").out);
      if (stats["results_as_of"] == stats["event"]) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_EQ(stats["results_as_of"], static_cast<std::int64_t>(logged.size()));
    EXPECT_EQ(test::run_cli("send --socket " + sock + " shutdown").exit_code, 0);
    EXPECT_EQ(restarted.wait(), 0);
  }
  ASSERT_EQ(test::run_cli("run --batch --threads 2 --db " + original).exit_code, 0);
  base::Database both(db, base::Database::Mode::read_only);
  both.exec("ATTACH DATABASE '" + original + "' AS replay");
  both.exec("ATTACH DATABASE '" + dir.path("k.results.db") + "' AS results");
  both.exec("ATTACH DATABASE '" + dir.path("original.results.db") + "' AS replay_results");
  for (const char* table : {"outright_trade", "repo_trade", "ir_curve_input_rate", "calendar", "outright_trade_result",
                            "repo_trade_result", "bond_result", "outright_book_result", "repo_book_result"}) {
    const std::string t(table);
    const bool result = t.ends_with("_result");
    const std::string main = result ? "results." : "main.", other = result ? "replay_results." : "replay.";
    base::Statement diff = both.prepare("SELECT (SELECT count(*) FROM (SELECT * FROM " + main + t + " EXCEPT SELECT * FROM " +
                                        other + t + ")), (SELECT count(*) FROM (SELECT * FROM " + other + t +
                                        " EXCEPT SELECT * FROM " + main + t + "))");
    ASSERT_TRUE(diff.step());
    EXPECT_EQ(diff.integer(0), 0) << table;
    EXPECT_EQ(diff.integer(1), 0) << table;
  }
}
