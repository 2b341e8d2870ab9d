// `watch` at scale, through the engine's socket: many connections following
// many nodes, then leaving, cannot make the engine refuse to stop, hold its
// memory or freeze another client.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "base/json.h"
#include "base/sqlite.h"
#include "base/unix_socket.h"
#include "bond_risk/synth/generator.h"
#include "tests/test_support.h"

using namespace bond_risk;

namespace {

// `watch` of the first n trades of the database at `db`, as one line.
std::string watch_line(const std::string& db, std::size_t n) {
  base::Database conn(db, base::Database::Mode::read_only);
  base::Statement ids = conn.prepare("SELECT id FROM outright_trade ORDER BY id LIMIT ?");
  ids.bind(1, static_cast<std::int64_t>(n));
  std::string line = "watch";
  while (ids.step()) line += " " + std::to_string(ids.integer(0));
  return line + "\n";
}

// An engine serving the 50k preset, and the line that watches its first
// 10,000 outright trades.
struct Served {
  test::TempDir dir;
  std::string db = dir.path("w.db"), sock = dir.path("w.sock");
  std::string watch = (generate(find_preset("50k"), {.seed = 3}, db), watch_line(db, 10'000));
  test::EngineProcess engine{db, sock, dir.path("engine.log")};
};

}  // namespace

// Twenty connections each ask to follow 10,000 trades (half are refused:
// see the bound below) and close without reading: the engine still stops
// on `shutdown` (it once polled on forever, its database locked) and
// meanwhile serves another client within a couple of seconds.
TEST(Watch, ManyWatchersThatLeaveNeitherFreezeAnotherClientNorKeepTheEngineFromStopping) {
  Served served;
  ASSERT_TRUE(served.engine.ready()) << test::slurp(served.dir.path("engine.log"));
  const std::string &sock = served.sock, &watch = served.watch;
  test::EngineProcess& engine = served.engine;
  {
    std::vector<base::UniqueFd> watchers;
    for (int c = 0; c < 20; ++c) {
      watchers.push_back(base::connect_unix(sock));
      base::write_all(watchers.back().get(), watch);
    }
    const std::string got = test::ask(sock, "get 1", std::chrono::seconds(2 * test::kSlowdown));
    EXPECT_NE(got.find("\"id\":1"), std::string::npos)
        << "another client waited past " << 2 * test::kSlowdown << " s: '" << got << "'";
    std::this_thread::sleep_for(std::chrono::seconds(3));  // their updates queued, unread
  }  // the watchers close
  std::this_thread::sleep_for(std::chrono::seconds(1));  // while the engine's polls go on
  const std::string stopping = test::ask(sock, "shutdown", std::chrono::seconds(10));
  EXPECT_NE(stopping.find("\"stopping\":true"), std::string::npos) << stopping;
  const std::optional<int> exit = engine.wait_for(std::chrono::seconds(20));
  if (!exit) engine.kill9();
  ASSERT_TRUE(exit.has_value()) << "the engine did not stop within 20 s of shutdown";
  EXPECT_EQ(*exit, 0) << test::slurp(served.dir.path("engine.log"));
}

// The connections together follow at most 100,000 nodes: past that a watch
// is refused with a reason and the connection stays; a connection that
// closed gives its share back.
TEST(Watch, TheConnectionsTogetherFollowABoundedNumberOfNodes) {
  Served served;
  ASSERT_TRUE(served.engine.ready()) << test::slurp(served.dir.path("engine.log"));
  const std::string &sock = served.sock, &watch = served.watch;
  test::EngineProcess& engine = served.engine;
  std::vector<base::UniqueFd> watchers;
  for (int c = 0; c < 10; ++c) {
    watchers.push_back(base::connect_unix(sock));
    base::write_all(watchers.back().get(), watch);
  }
  // The eleventh is refused, stays connected, and may still ask.
  base::UniqueFd extra = base::connect_unix(sock);
  base::LineReader reader(extra.get());
  base::write_all(extra.get(), watch);
  const std::string refused = reader.read_line().value_or("");
  EXPECT_NE(refused.find("watch refused: the engine's connections would follow 110000 nodes together, at most 100000"),
            std::string::npos) << refused.substr(0, 300);
  base::write_all(extra.get(), "get 1\n");
  EXPECT_NE(reader.read_line().value_or("").find("\"id\":1"), std::string::npos);
  // One watcher leaves: its 10,000 are free again.
  watchers.pop_back();
  EXPECT_TRUE(test::eventually([&] {
    base::write_all(extra.get(), watch);
    std::string reply = reader.read_line().value_or("");
    while (reply.starts_with("{\"update\"")) reply = reader.read_line().value_or("");
    return reply.find("\"watching\"") != std::string::npos;
  }, std::chrono::seconds(20)));
  test::ask(sock, "shutdown", std::chrono::seconds(10));
  EXPECT_TRUE(engine.wait_for(std::chrono::seconds(20)).has_value());
}
