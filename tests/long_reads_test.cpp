// Scenario and VaR requests run apart from the master thread: however many
// a client pipelines, another client's command is answered at once, and
// each connection's replies keep the order of its lines.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/sqlite.h"
#include "base/unix_socket.h"
#include "bond_risk/synth/generator.h"
#include "tests/test_support.h"

using namespace bond_risk;

TEST(LongReads, ClientsPipeliningVarAfterAmendmentsDelayNobodyAndGetTheirRepliesInOrder) {
  test::TempDir dir;
  const std::string db = dir.path("l.db"), sock = dir.path("l.sock");
  generate(find_preset("50k"), {.seed = 3}, db);
  std::int64_t trade = 0;
  {
    base::Database conn(db, base::Database::Mode::read_only);
    base::Statement first = conn.prepare("SELECT min(id) FROM outright_trade");
    ASSERT_TRUE(first.step());
    trade = first.integer(0);
  }
  test::EngineProcess engine(db, sock, dir.path("engine.log"));
  ASSERT_TRUE(engine.ready()) << test::slurp(dir.path("engine.log"));
  // Each amendment changes the state, so no VaR can be answered from the last one.
  constexpr int kClients = 4, kPairs = test::kSanitized ? 4 : 16;  // an instrumented VaR is slow
  std::vector<base::UniqueFd> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.push_back(base::connect_unix(sock));
    std::string lines;
    for (int k = 0; k < kPairs; ++k) {
      lines += "amend-trade " + std::to_string(trade + c) + " quantity=" + std::to_string(100 + k) + "\nvar\n";
    }
    base::write_all(clients.back().get(), lines);
  }
  {
    const auto start = std::chrono::steady_clock::now();
    const std::string reply = test::ask(sock, "get 1", std::chrono::seconds(5 * test::kSlowdown));
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_NE(reply.find("\"id\":1"), std::string::npos) << "no reply within " << 5 * test::kSlowdown << " s";
    EXPECT_LT(waited, 2.0 * test::kSlowdown) << "another client waited " << waited << " s behind the VaR requests";
  }
  for (int c = 0; c < kClients; ++c) {
    base::LineReader reader(clients[c].get());
    for (int k = 0; k < kPairs; ++k) {
      const base::Json amended = base::Json::parse(reader.read_line().value());
      EXPECT_EQ(amended["ok"], true) << amended.dump().substr(0, 200);
      EXPECT_EQ(amended["id"], trade + c);
      const base::Json var = base::Json::parse(reader.read_line().value());
      EXPECT_EQ(var["ok"], true) << var.dump().substr(0, 200);
      ASSERT_TRUE(var.contains("total")) << var.dump().substr(0, 200);
      // The VaR reflects the client's own amendment just before it.
      EXPECT_GE(var["event"].get<std::int64_t>(), amended["event"].get<std::int64_t>());
    }
  }
  base::UniqueFd last = base::connect_unix(sock);
  base::write_all(last.get(), "shutdown\n");
  EXPECT_TRUE(engine.wait_for(std::chrono::seconds(30)).has_value());
}
