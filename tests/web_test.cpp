// The desk page's gateway: its state (what a stream is sent), and the
// `bond_risk web` process against a running engine: snapshot, stream,
// conflation, reconnection and the token.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "base/json.h"
#include "base/sqlite.h"
#include "base/unix_socket.h"
#include "bond_risk/web/desk_state.h"
#include "bond_risk/web/metrics.h"
#include "tests/web_support.h"
// After Eigen (through the model headers): resolv.h, which httplib includes, defines macros Eigen names.
#include <httplib.h>

using bond_risk::web::DeskState;
using test::Desk;
using test::eventually;

namespace {

base::Json message(const DeskState& s, std::uint64_t* since, const std::string& book) {
  return base::Json::parse(s.message(*since, book, since));
}

base::Json outright(std::int64_t id, double pv, const char* status = "OK") {
  return {{"id", id}, {"type", "outright_book"}, {"status", status}, {"reason", ""}, {"pv", pv}, {"pv01", 1.0},
          {"pnl", 2.0}, {"cs01", -pv / 2}, {"excluded", 0}, {"unquoted", 0}, {"members", 3},
          {"key_rates", {{{"ir_curve_id", 2}, {"idx", 0}, {"kr01", pv}}}}};
}

// A top-positions reply for book `id`: one trade, `trade`, on bond 5 quoted at a z_spread of `z`.
base::Json top_positions(std::int64_t id, std::int64_t trade, double z) {
  return {{"ok", true}, {"id", id}, {"event", 1},
          {"positions", {{{"trade", {{"id", trade}, {"pv01", -3.0}, {"cs01", -2.0}}},
                          {"bond", {{"id", 5}, {"clean_price", 99.5}, {"z_spread", z}}}}}}};
}

// The last book row named `name` and the last positions a stream's messages carried (null when none).
std::pair<base::Json, base::Json> last_row_and_positions(const std::vector<base::Json>& messages, const std::string& name) {
  base::Json row, positions;
  for (const base::Json& m : messages) {
    for (const base::Json& r : m["rows"]) {
      if (r["name"] == name) row = r;
    }
    if (m.contains("positions")) positions = m["positions"];
  }
  return {row, positions};
}

// The books of the gateway's snapshot by name: their rows.
std::map<std::string, base::Json> rows_by_name(const base::Json& snapshot) {
  std::map<std::string, base::Json> out;
  for (const base::Json& row : snapshot["rows"]) out[row["name"].get<std::string>()] = row;
  return out;
}

std::size_t books_in(const std::string& db) {
  base::Database d(db, base::Database::Mode::read_only);
  base::Statement st = d.prepare("SELECT (SELECT count(*) FROM outright_book) + (SELECT count(*) FROM repo_book)");
  st.step();
  return static_cast<std::size_t>(st.integer(0));
}

// Writes `lines` to the engine at once and reads `n` replies; how many came.
std::size_t replies_to(const std::string& socket, const std::string& lines, std::size_t n) {
  const base::UniqueFd fd = base::connect_unix(socket);
  if (!base::write_all(fd.get(), lines)) return 0;
  std::size_t replies = 0;
  char buffer[4096];
  for (ssize_t got; replies < n && (got = ::read(fd.get(), buffer, sizeof buffer)) > 0;) {
    replies += static_cast<std::size_t>(std::count(buffer, buffer + got, '\n'));
  }
  return replies;
}

// The stream of `book` on a gateway, read on a thread of its own until destroyed.
class StreamReader {
 public:
  StreamReader(const Desk& desk, const std::string& book) : client_(desk.host, desk.port) {
    client_.set_read_timeout(std::chrono::seconds(30));
    thread_ = std::jthread([this, book] {
      client_.Get("/stream?ladder=" + book, [this](const char* data, std::size_t n) {
        const std::lock_guard lock(mutex_);
        unread_.append(data, n);
        for (std::size_t end; (end = unread_.find("\n\n")) != std::string::npos; unread_.erase(0, end + 2)) {
          if (unread_.starts_with("data: ")) messages_.push_back(base::Json::parse(unread_.substr(6, end - 6)));
        }
        return !stop_;
      });
    });
  }
  ~StreamReader() {
    stop_ = true;
    client_.stop();
  }
  std::vector<base::Json> messages() {
    const std::lock_guard lock(mutex_);
    return messages_;
  }

 private:
  httplib::Client client_;
  std::mutex mutex_;
  std::string unread_;
  std::vector<base::Json> messages_;
  std::atomic<bool> stop_{false};
  std::jthread thread_;
};

// Outright books OB_A (pv `a`) and OB_B (pv 20) and repo book RB_C, all OK.
void three_books(DeskState& s, double a) {
  s.set_books({{1, "OB_A", "outright_book"}, {2, "OB_B", "outright_book"}, {3, "RB_C", "repo_book"}});
  s.update(outright(1, a));
  s.update(outright(2, 20.0));
  s.update({{"id", 3}, {"type", "repo_book"}, {"status", "OK"}, {"margin", 5.0}, {"mtm_pnl", 7.0}, {"key_rates", base::Json::array()}});
}

}  // namespace

TEST(DeskState, AStreamIsSentOnlyWhatChangedSinceItsLastMessage) {
  DeskState s;
  three_books(s, 10.5);
  std::uint64_t v = 0;
  const base::Json first = message(s, &v, "OB_A");
  EXPECT_TRUE(first["full"]);
  ASSERT_EQ(first["rows"].size(), 3u);
  EXPECT_EQ(first["rows"][0]["name"], "OB_A");
  EXPECT_FALSE(first["rows"][0].contains("key_rates"));
  EXPECT_EQ(first["ladder"]["name"], "OB_A");
  EXPECT_EQ(first["ladder"]["points"][0]["kr01"], 10.5);
  EXPECT_EQ(first["totals"]["outright"]["pv"], 30.5);
  EXPECT_EQ(first["totals"]["repo"]["margin"], 5.0);

  s.update(outright(2, 21.0));
  const base::Json second = message(s, &v, "OB_A");
  EXPECT_FALSE(second["full"]);
  ASSERT_EQ(second["rows"].size(), 1u);
  EXPECT_EQ(second["rows"][0]["pv"], 21.0);
  EXPECT_FALSE(second.contains("ladder")) << "OB_A's ladder did not change";
  EXPECT_EQ(second["totals"]["outright"]["pv"], 31.5);

  s.update(outright(1, 99.0, "FAILED"));  // a book that is not OK is left out of the totals
  s.update({{"id", 3}, {"status", "REMOVED"}});
  const base::Json third = message(s, &v, "OB_A");
  EXPECT_EQ(third["totals"]["outright"]["pv"], 21.0);
  EXPECT_EQ(third["totals"]["not_ok"], 1);
  EXPECT_EQ(third["removed"], base::Json::array({3}));
  EXPECT_EQ(third["ladder"]["points"][0]["kr01"], 99.0);

  const base::Json nothing = message(s, &v, "OB_A");
  EXPECT_TRUE(nothing["rows"].empty());
  EXPECT_TRUE(nothing["removed"].empty());

  s.update(outright(2, 21.0));  // the same values again (the engine's first update after a reconnect)
  EXPECT_TRUE(message(s, &v, "OB_A")["rows"].empty());
}

// The P&L explain reaches a stream for its book and the total when it
// changed, and every book's day_pnl (from its watch lines) sums in the totals.
TEST(DeskState, TheExplainOfTheSelectedBookAndTheTotalIsSentWhenItChanges) {
  DeskState s;
  three_books(s, 10.5);
  s.update({{"id", 2}, {"type", "outright_book"}, {"status", "OK"}, {"pv", 20.0}, {"day_pnl", -4.0}});
  s.update({{"id", 3}, {"type", "repo_book"}, {"status", "OK"}, {"margin", 5.0}, {"mtm_pnl", 7.0}, {"day_pnl", 1.5}});
  std::uint64_t v = 0;
  EXPECT_FALSE(message(s, &v, "OB_B").contains("pnl_explain")) << "no explain before the engine's reply";
  const auto reply = base::Json::parse(R"({"ok":true,"books":[
      {"id":2,"name":"OB_B","day_pnl":-4.0,"causes":[{"cause":"curve GBP","actual":-5.0,"predicted":-5.1},{"cause":"roll","actual":1.0}]},
      {"id":3,"name":"RB_C","day_pnl":1.5,"causes":[{"cause":"roll","actual":1.5}]}],
      "total":{"day_pnl":-2.5,"causes":[{"cause":"curve GBP","actual":-5.0},{"cause":"roll","actual":2.5}]}})");
  s.set_explain(reply);
  const base::Json first = message(s, &v, "OB_B");
  ASSERT_TRUE(first.contains("pnl_explain")) << first.dump();
  EXPECT_EQ(first["pnl_explain"]["book"]["name"], "OB_B");
  EXPECT_EQ(first["pnl_explain"]["book"]["causes"][0]["predicted"], -5.1);
  EXPECT_EQ(first["pnl_explain"]["total"]["day_pnl"], -2.5);
  EXPECT_EQ(first["totals"]["outright"]["day_pnl"], -4.0);
  EXPECT_EQ(first["totals"]["repo"]["day_pnl"], 1.5);
  // A book that is not OK is at 0 in the explain's total, so its day_pnl is in the totals too.
  s.update({{"id", 1}, {"type", "outright_book"}, {"status", "FAILED"}, {"pv", 10.5}, {"day_pnl", -3.0}});
  EXPECT_EQ(message(s, &v, "OB_B")["totals"]["outright"]["day_pnl"], -7.0);
  s.set_explain(reply);  // the same again
  EXPECT_FALSE(message(s, &v, "OB_B").contains("pnl_explain")) << "nothing changed";
  base::Json moved = reply;
  moved["books"][1]["causes"][0]["actual"] = 2.0;  // RB_C's: not the selected book, so only a stream showing it learns
  s.set_explain(moved);
  std::uint64_t w = v;
  EXPECT_FALSE(message(s, &v, "OB_B").contains("pnl_explain"));
  EXPECT_EQ(message(s, &w, "RB_C")["pnl_explain"]["book"]["causes"][0]["actual"], 2.0);
}

// The limits panel gets the worst limits and the count per state when they
// change; alerts reach each stream once, and the last 50 a new one.
TEST(DeskState, TheWorstLimitsAndTheAlertsReachAStreamWhenTheyChange) {
  DeskState s;
  three_books(s, 10.5);
  base::Json reply = {{"ok", true}, {"risk_limits", base::Json::array()}, {"states", {{"BREACHED", 2}, {"UNKNOWN", 1}, {"OK", 17}}}};
  for (int i = 0; i < 20; ++i) {
    reply["risk_limits"].push_back({{"id", i + 1}, {"book_name", "OB_A"}, {"measure", "pv01"}, {"utilization", 1.0 - i / 40.0},
                                    {"state", i < 2 ? "BREACHED" : i < 3 ? "UNKNOWN" : "OK"}});
  }
  std::uint64_t v = 0;
  EXPECT_FALSE(message(s, &v, "OB_A").contains("risk_limits")) << "none before the engine's reply";
  s.set_limits(reply);
  const base::Json first = message(s, &v, "OB_A");
  ASSERT_TRUE(first.contains("risk_limits")) << first.dump();
  EXPECT_EQ(first["risk_limits"]["shown"].size(), DeskState::kShownLimits);
  EXPECT_EQ(first["risk_limits"]["shown"][0]["id"], 1) << "worst first, as the engine listed them";
  EXPECT_EQ(first["risk_limits"]["states"], base::Json({{"BREACHED", 2}, {"UNKNOWN", 1}, {"OK", 17}}));
  s.set_limits(reply);  // the same again
  EXPECT_FALSE(message(s, &v, "OB_A").contains("risk_limits")) << "nothing changed";
  for (int i = 0; i < 60; ++i) s.add_alert({{"id", i + 1}, {"seq", 7}, {"to", "BREACHED"}});
  std::uint64_t fresh = 0;
  const base::Json alerts = message(s, &v, "OB_A")["alerts"];
  ASSERT_EQ(alerts.size(), DeskState::kKeptAlerts);
  EXPECT_EQ(alerts.back()["id"], 60);
  EXPECT_TRUE(message(s, &v, "OB_A")["alerts"].empty()) << "each alert once";
  EXPECT_EQ(message(s, &fresh, "OB_A")["alerts"].size(), DeskState::kKeptAlerts) << "a new stream gets the kept ones";
}

TEST(DeskState, PositionsAreAskedForTheShownOutrightBooksWhoseValuesChangedAndSentToTheirStreams) {
  DeskState s;
  three_books(s, 10.0);
  EXPECT_TRUE(s.positions_due().empty()) << "no stream shows a book";
  for (const char* name : {"OB_A", "OB_A", "RB_C", "NOT_A_BOOK"}) s.show_positions(name);
  EXPECT_EQ(s.positions_due(), std::vector<std::int64_t>{1}) << "only outright books have positions";
  EXPECT_TRUE(s.positions_due().empty()) << "asked for already";
  std::uint64_t v = 0;
  base::Json m = message(s, &v, "OB_A");
  EXPECT_FALSE(m.contains("positions")) << "none before the engine's reply";
  EXPECT_EQ(m["totals"]["outright"]["cs01"], -15.0);

  s.set_positions(1, top_positions(1, 7, 0.01));
  m = message(s, &v, "OB_A");
  EXPECT_EQ(m["positions"]["name"], "OB_A");
  EXPECT_EQ(m["positions"]["id"], 1);
  ASSERT_EQ(m["positions"]["positions"].size(), 1u);
  EXPECT_EQ(m["positions"]["positions"][0]["trade"]["id"], 7);
  EXPECT_EQ(m["positions"]["positions"][0]["bond"]["z_spread"], 0.01);
  EXPECT_FALSE(message(s, &v, "OB_A").contains("positions")) << "unchanged since the last message";

  s.update(outright(2, 21.0));
  EXPECT_TRUE(s.positions_due().empty()) << "OB_B is not shown";
  s.update(outright(1, 11.0));
  EXPECT_EQ(s.positions_due(), std::vector<std::int64_t>{1});
  s.set_positions(1, top_positions(1, 7, 0.01));
  EXPECT_FALSE(message(s, &v, "OB_A").contains("positions")) << "the same positions again";
  s.set_positions(1, top_positions(1, 7, 0.02));
  EXPECT_EQ(message(s, &v, "OB_A")["positions"]["positions"][0]["bond"]["z_spread"], 0.02);
  EXPECT_FALSE(message(s, &v, "OB_B").contains("positions"));

  s.connected("a.sock");  // another engine: its positions are asked for again
  EXPECT_EQ(s.positions_due(), std::vector<std::int64_t>{1});

  s.hide_positions("OB_A");
  EXPECT_TRUE(message(s, &(v = 0), "OB_A").contains("positions")) << "one stream still shows OB_A";
  s.hide_positions("OB_A");
  s.update(outright(1, 12.0));
  EXPECT_TRUE(s.positions_due().empty()) << "no stream shows OB_A any more";
  s.set_positions(1, top_positions(1, 8, 0.03));  // a reply after the last stream went
  EXPECT_FALSE(message(s, &(v = 0), "OB_A").contains("positions")) << "kept only while a stream shows the book";
}

TEST(DeskState, AWaitingStreamWakesOnAChangeAndOnStop) {
  DeskState s;
  std::uint64_t v = 0;
  message(s, &v, "");
  std::jthread writer([&] { s.add_events(base::Json::parse(R"([{"seq":7,"command":"bump-curve 2 1"}])")); });
  EXPECT_GT(s.wait_past(v, std::chrono::seconds(60)), v);
  writer.join();
  EXPECT_EQ(message(s, &v, "")["as_of_event"], 7);
  std::jthread stopper([&] { s.stop(); });
  s.wait_past(v, std::chrono::seconds(60));
  stopper.join();
  EXPECT_TRUE(s.stopping());
}

TEST(WebGateway, TheSnapshotHoldsEveryBookAsTheEngineRepliesIt) {
  Desk desk;
  const std::size_t books = books_in(desk.db);
  ASSERT_GT(books, 0u);
  ASSERT_TRUE(eventually([&] { return desk.snapshot()["rows"].size() == books; })) << desk.log();
  const base::Json snapshot = desk.snapshot();
  EXPECT_TRUE(snapshot["engine"]["connected"]);
  for (const auto& [name, row] : rows_by_name(snapshot)) {
    const base::Json book = desk.send("book " + name);
    for (const char* field : {"status", "pv", "pv01", "cs01", "pnl", "margin", "mtm_pnl", "members", "unquoted"}) {
      EXPECT_EQ(row.value(field, base::Json()), book.value(field, base::Json())) << name << " " << field;
    }
  }
  const auto [status, page] = desk.get("/");
  EXPECT_EQ(status, 200);
  EXPECT_NE(page.find("desk.js"), std::string::npos);
  EXPECT_EQ(desk.get("/chart.js").first, 200);
}

TEST(WebGateway, ABooksCs01AndItsPositionsBondFiguresReachTheStreamAndFollowASetPrice) {
  Desk desk;
  ASSERT_TRUE(eventually([&] { return !desk.snapshot()["rows"].empty(); })) << desk.log();
  const base::Json books = desk.send("list-books");
  std::string name;
  for (const base::Json& b : books["books"]) {
    if (b["type"] == "outright_book" && name.empty()) name = b["name"];
  }
  ASSERT_FALSE(name.empty()) << books;
  StreamReader stream(desk, name);
  // The stream shows the book's cs01 and positions as the engine replies them.
  const auto shows = [&](const base::Json& book, const base::Json& top) {
    return eventually([&] {
      auto [row, positions] = last_row_and_positions(stream.messages(), name);  // null until the stream said
      return row["cs01"] == book["cs01"] && positions["name"] == name && positions["positions"] == top["positions"];
    });
  };
  const base::Json book = desk.send("book " + name), top = desk.send("top-positions " + name + " 20");
  ASSERT_FALSE(top["positions"].empty()) << top;
  ASSERT_TRUE(shows(book, top)) << last_row_and_positions(stream.messages(), name).second << "\n" << top;
  EXPECT_TRUE(desk.snapshot(name)["positions"]["positions"] == top["positions"]) << "the snapshot has them while a stream shows them";

  // The largest position's bond quoted a point below its clean price: its z_spread and the book's cs01 move.
  const base::Json bond = top["positions"][0]["bond"];
  const base::Json quoted = desk.send("set-price " + std::to_string(bond["id"].get<std::int64_t>()) + " " +
                                      std::to_string(bond["clean_price"].get<double>() - 1.0));
  ASSERT_TRUE(quoted["ok"]) << quoted;
  const base::Json book_after = desk.send("book " + name), top_after = desk.send("top-positions " + name + " 20");
  ASSERT_NE(book_after["cs01"], book["cs01"]);
  ASSERT_NE(top_after["positions"][0]["bond"]["z_spread"], bond["z_spread"]);
  EXPECT_TRUE(shows(book_after, top_after)) << last_row_and_positions(stream.messages(), name).second << "\n" << top_after;
}

// A limit a bump breaches: its alert reaches the page's stream, and the
// limits panel lists it breached.
TEST(WebGateway, ALimitABumpBreachesReachesTheStreamAsAnAlertAndInThePanel) {
  Desk desk;
  ASSERT_TRUE(eventually([&] { return !desk.snapshot()["rows"].empty(); })) << desk.log();
  ASSERT_TRUE(desk.send("start-day")["ok"]);
  const base::Json set = desk.send("set-limit OB_GBP-GILT_1 day_pnl -0.001 0.001");
  ASSERT_TRUE(set["ok"]) << set;
  StreamReader stream(desk, "OB_GBP-GILT_1");
  ASSERT_TRUE(desk.send("bump-curve GBP-GILT 5")["ok"]);
  const auto breached = [&](const base::Json& m) {
    for (const base::Json& a : m.value("alerts", base::Json::array())) {
      if (a["limit_id"] == set["limit_id"] && a["to"] == "BREACHED") return true;
    }
    return false;
  };
  ASSERT_TRUE(eventually([&] {
    const std::vector<base::Json> messages = stream.messages();
    return std::any_of(messages.begin(), messages.end(), breached);
  })) << "no alert reached the stream";
  ASSERT_TRUE(eventually([&] {
    const base::Json panel = desk.snapshot("OB_GBP-GILT_1").value("risk_limits", base::Json::object());
    return panel.contains("shown") && !panel["shown"].empty() && panel["shown"][0]["id"] == set["limit_id"] &&
           panel["shown"][0]["state"] == "BREACHED";
  })) << desk.snapshot("OB_GBP-GILT_1").dump();
}

TEST(WebGateway, TheStreamCarriesAnAmendmentConflatedToTenMessagesASecond) {
  Desk desk;
  ASSERT_TRUE(eventually([&] { return !desk.snapshot()["rows"].empty(); })) << desk.log();
  StreamReader stream(desk, "");
  ASSERT_TRUE(eventually([&] { return !stream.messages().empty(); }));
  // Thirty amendments in one write, as fast as the engine takes them.
  std::string lines;
  for (int i = 0; i < 30; ++i) lines += "amend-trade OT_10 quantity=" + std::to_string(100 + i) + "\n";
  EXPECT_EQ(replies_to(desk.sock, lines, 30), 30u);
  const base::Json last = desk.send("amend-trade OT_10 quantity=777");
  ASSERT_TRUE(last["ok"]) << last;
  const std::int64_t book_id = last["books"][0]["id"];
  const std::int64_t event = last["event"];
  const base::Json book = desk.send("book " + std::to_string(book_id));
  // The stream reaches the engine's values after the amendment. Messages
  // carry only what changed since the one before, as the page reads them:
  // the book's last row and the last event number, folded over all of them
  // (the row may come before the event number that follows it).
  ASSERT_TRUE(eventually([&] {
    base::Json row;
    std::int64_t as_of = 0;
    for (const base::Json& m : stream.messages()) {
      as_of = m["as_of_event"];
      for (const base::Json& r : m["rows"]) {
        if (r["id"] == book_id) row = r;
      }
    }
    return !row.is_null() && row["pv"] == book["pv"] && as_of >= event;
  })) << desk.log();
  const std::vector<base::Json> messages = stream.messages();
  EXPECT_TRUE(messages.front()["full"]);
  for (std::size_t i = 1; i < messages.size(); ++i) {
    EXPECT_FALSE(messages[i]["full"]);
    EXPECT_GE(messages[i]["sent_ms"].get<std::int64_t>() - messages[i - 1]["sent_ms"].get<std::int64_t>(), 99)
        << "two messages of one stream closer than 100 ms";
  }
}

TEST(WebGateway, SaysWhenTheEngineIsUnreachableAndReconnectsByItself) {
  Desk desk(false);
  ASSERT_TRUE(eventually([&] { return !desk.snapshot()["engine"].value("error", "").empty(); })) << desk.log();
  const base::Json alone = desk.snapshot();
  EXPECT_FALSE(alone["engine"]["connected"]);
  EXPECT_NE(alone["engine"]["error"].get<std::string>().find("no engine is listening"), std::string::npos) << alone;
  desk.start_engine();
  ASSERT_TRUE(eventually([&] {
    const base::Json s = desk.snapshot();
    return s["engine"]["connected"] == true && s["rows"].size() == books_in(desk.db);
  })) << desk.log();
  desk.engine->kill9();
  desk.engine->wait();
  ASSERT_TRUE(eventually([&] { return desk.snapshot()["engine"]["connected"] == false; })) << desk.log();
  EXPECT_EQ(desk.snapshot()["rows"].size(), books_in(desk.db)) << "the last values stay, marked unreachable";
}

TEST(WebGateway, AnyAddressButLoopbackNeedsATokenThatEveryRequestCarries) {
  const test::CliResult open = test::run_cli("web --socket /nonexistent.sock --listen 0.0.0.0:0");
  EXPECT_EQ(open.exit_code, 2);
  EXPECT_NE(open.err.find("WEB_TOKEN"), std::string::npos) << open.err;

  Desk desk(true, {"--listen", "0.0.0.0:0"}, {"WEB_TOKEN=s3cret-t0ken"});
  EXPECT_NE(desk.log().find("WEB_TOKEN"), std::string::npos) << "start-up says the token is required";
  for (const char* path : {"/", "/desk.js", "/chart.js", "/api/snapshot", "/stream", "/metrics", "/healthz", "/?token=wrong"}) {
    EXPECT_EQ(desk.get(path).first, 401) << path;
  }
  EXPECT_EQ(desk.get("/api/snapshot", {{"Authorization", "Bearer wrong"}}).first, 401);
  EXPECT_EQ(desk.get("/api/snapshot", {{"Cookie", "bond_risk_token=wrong"}}).first, 401);
  EXPECT_EQ(desk.get("/?token=s3cret-t0ken").first, 200);
  EXPECT_EQ(desk.get("/api/snapshot", {{"Authorization", "Bearer s3cret-t0ken"}}).first, 200);
  EXPECT_EQ(desk.get("/desk.js", {{"Cookie", "theme=dark; bond_risk_token=s3cret-t0ken"}}).first, 200);
}

namespace {

std::string host_of(const Desk& desk) { return desk.host + ":" + std::to_string(desk.port); }

// The status line of a new stream's response, read alone: a stream that
// gets a place never ends, so reading its whole response (Desk::get)
// would wait forever. "" when none came within 5 s.
std::string stream_status(test::RawClient& client, const Desk& desk) {
  if (!client.send("GET /stream HTTP/1.1\r\nHost: " + host_of(desk) + "\r\n\r\n")) return "";
  const std::string reply = client.receive(std::chrono::seconds(5), 12);  // "HTTP/1.1 200"
  return reply.substr(0, reply.find('\r'));
}

// Whether the gateway refuses a new stream now.
bool stream_refused(const Desk& desk) {
  test::RawClient probe(desk.host, desk.port);
  return stream_status(probe, desk).starts_with("HTTP/1.1 503");
}

}  // namespace

TEST(WebGateway, StreamsPastTheLimitAreRefusedAndClosedOnesFreeTheirPlace) {
  Desk desk(true, {"--listen", "127.0.0.1:0", "--max-streams", "2"});
  auto first = std::make_unique<StreamReader>(desk, "");
  StreamReader second(desk, "");
  ASSERT_TRUE(eventually([&] { return !first->messages().empty() && !second.messages().empty(); }));
  EXPECT_TRUE(stream_refused(desk));
  EXPECT_EQ(desk.get("/api/snapshot").first, 200) << "other requests are still served";
  first.reset();
  // The closed stream's place is free once the gateway's next write finds it closed.
  desk.send("bump-curve 2 1");
  EXPECT_TRUE(eventually([&] {
    desk.send("bump-curve 2 0.5");
    StreamReader third(desk, "");
    return eventually([&] { return !third.messages().empty(); }, std::chrono::seconds(2));
  }));
}

TEST(WebGateway, StopsCleanlyOnSigtermWithAStreamOpen) {
  Desk desk;
  StreamReader stream(desk, "");
  ASSERT_TRUE(eventually([&] { return !stream.messages().empty(); }));
  desk.send("bump-curve 2 1");
  desk.web->signal(SIGTERM);
  // Exit code 0: no sanitizer report either (they exit non-zero).
  EXPECT_EQ(desk.web->wait(), 0) << desk.log();
  EXPECT_NE(desk.log().find("stopped"), std::string::npos) << desk.log();
}

namespace {

// Sends `bump-curve 2 ±0.01` to the engine every `every` from a thread of
// its own until destroyed: every book on curve 2 changes all the time.
class Bumper {
 public:
  Bumper(const Desk& desk, std::chrono::milliseconds every) : fd_(base::connect_unix(desk.sock)) {
    thread_ = std::jthread([this, every](const std::stop_token& stop) {
      for (int i = 0; !stop.stop_requested(); ++i) {
        if (!base::write_all(fd_.get(), i % 2 ? "bump-curve 2 0.01\n" : "bump-curve 2 -0.01\n")) return;
        char buffer[4096];
        if (::read(fd_.get(), buffer, sizeof buffer) <= 0) return;
        std::this_thread::sleep_for(every);
      }
    });
  }

 private:
  base::UniqueFd fd_;
  std::jthread thread_;
};

}  // namespace

TEST(WebGateway, SlowHeadsHoldNoThreadAndAreClosedAtTheirDeadline) {
  Desk desk;
  ASSERT_TRUE(eventually([&] { return !desk.snapshot()["rows"].empty(); })) << desk.log();
  // More connections trickling their heads than the gateway has threads (116).
  std::vector<std::unique_ptr<test::RawClient>> slow;
  for (int i = 0; i < 200; ++i) {
    slow.push_back(std::make_unique<test::RawClient>(desk.host, desk.port));
    ASSERT_TRUE(slow.back()->send("GET /api/snapshot HTTP/1.1\r\nHost: " + host_of(desk) + "\r\n"));
  }
  const auto opened = std::chrono::steady_clock::now();
  std::jthread trickle([&](const std::stop_token& stop) {  // a header byte each every 500 ms, for 4 s
    for (int i = 0; i < 8 && !stop.stop_requested(); ++i) {
      for (auto& c : slow) c->send("X");
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::chrono::milliseconds longest{0};
  for (int i = 0; i < 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(desk.get("/api/snapshot").first, 200);
    longest = std::max(longest, std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start));
  }
  EXPECT_LT(longest.count(), 2000) << "a snapshot waited " << longest.count() << " ms behind the slow heads";
  std::cout << "longest snapshot wait behind 200 slow heads: " << longest.count() << " ms\n";
  trickle.join();
  // Each slow head is refused at its deadline (5 s after it connected) however it trickled.
  std::this_thread::sleep_until(opened + std::chrono::seconds(7));
  std::size_t timed_out = 0;
  for (auto& c : slow) timed_out += c->receive(std::chrono::milliseconds(100)).starts_with("HTTP/1.1 408");
  EXPECT_EQ(timed_out, slow.size());
}

TEST(WebGateway, HugeOrManyHeadersAreRefusedAtTheirBoundBeforeTheToken) {
  Desk desk(true, {"--listen", "127.0.0.1:0"}, {"WEB_TOKEN=s3cret-t0ken"});
  const long before = test::rss_kb(desk.web->pid());
  test::RawClient greedy(desk.host, desk.port);
  std::string lines;
  for (int i = 0; i < 64; ++i) lines += "X-Pad: " + std::string(1017, 'a') + "\r\n";  // 64 KB
  std::size_t sent = 0;
  bool open = greedy.send("GET / HTTP/1.1\r\nHost: " + host_of(desk) + "\r\n");
  for (; open && sent < (200u << 20); sent += lines.size()) open = greedy.send(lines);
  const long after = test::rss_kb(desk.web->pid());
  EXPECT_FALSE(open) << "the gateway read " << sent << " bytes of headers from a client without the token";
  EXPECT_LT(sent, 16u << 20);
  if (!test::kSanitized) {
    EXPECT_LT(after - before, 20 * 1024) << "RSS " << before << " -> " << after << " kB";
  }
  std::cout << "headers taken before the close: " << sent << " bytes; RSS " << before << " -> " << after << " kB\n";

  std::string many = "GET / HTTP/1.1\r\nHost: " + host_of(desk) + "\r\n";
  for (int i = 0; i < 100; ++i) many += "A" + std::to_string(i) + ": b\r\n";
  test::RawClient client(desk.host, desk.port);
  ASSERT_TRUE(client.send(many + "\r\n"));
  const std::string reply = client.receive(std::chrono::seconds(5));
  EXPECT_TRUE(reply.starts_with("HTTP/1.1 431")) << reply;
  EXPECT_NE(reply.find("more than 64 headers"), std::string::npos) << reply;
}

TEST(WebGateway, ManyRangesGetTheWholeFileOnce) {
  Desk desk;
  const std::size_t file = test::slurp("/usr/share/javascript/chart.js/chart.min.js").size();
  ASSERT_GT(file, 0u);
  const auto fetch = [&](const std::string& range) {
    test::RawClient client(desk.host, desk.port);
    client.send("GET /chart.js HTTP/1.1\r\nHost: " + host_of(desk) + "\r\nRange: " + range + "\r\n\r\n");
    return client.receive(std::chrono::seconds(10), 4 * file);
  };
  std::string ranges = "bytes=0-";
  for (int i = 1; i < 2500; ++i) ranges += ",0-";
  const std::string many = fetch(ranges);
  EXPECT_TRUE(many.starts_with("HTTP/1.1 200")) << many.substr(0, 200);
  EXPECT_LT(many.size(), file + 1024) << "bytes sent for 2,500 ranges of a " << file << "-byte file";
  std::cout << "2,500 ranges of chart.js (" << file << " bytes): " << many.size() << " bytes sent\n";
  const std::string past = fetch("bytes=99999999-");
  EXPECT_TRUE(past.starts_with("HTTP/1.1 200")) << past.substr(0, 200);
  EXPECT_LT(past.size(), file + 1024);
}

TEST(WebGateway, StreamsNobodyReadsAreClosedAndFreeTheirPlaces) {
  Desk desk(true, {"--listen", "127.0.0.1:0", "--max-streams", "2"}, {}, "--preset 100 --book-size 1");
  ASSERT_TRUE(eventually([&] { return !desk.snapshot()["rows"].empty(); })) << desk.log();
  std::vector<std::unique_ptr<test::RawClient>> greedy;
  for (int i = 0; i < 2; ++i) {  // each holds a place (its status line read), then reads no more
    greedy.push_back(std::make_unique<test::RawClient>(desk.host, desk.port, 4096));
    const std::string status = stream_status(*greedy.back(), desk);
    ASSERT_TRUE(status.starts_with("HTTP/1.1 200")) << status;
  }
  ASSERT_TRUE(stream_refused(desk)) << "both places are taken";
  // About 50 KB a second to each: their socket buffers fill within seconds
  // (the gateway's is 64 KB), their writes block, and after 5 s blocked the
  // gateway closes them: a reader gets a place.
  const Bumper bumper(desk, std::chrono::milliseconds(200));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(eventually(
      [&] {
        StreamReader reader(desk, "");
        return eventually([&] { return !reader.messages().empty(); }, std::chrono::seconds(1));
      },
      std::chrono::seconds(20)));
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  std::cout << "a reading stream got a place after " << waited.count() << " ms\n";
  EXPECT_GE(waited, std::chrono::seconds(5)) << "a place is freed by the gateway closing a stream blocked 5 s";
}

TEST(WebGateway, AHostThatIsNotTheGatewaysIsRefused) {
  Desk desk;
  const std::string port = std::to_string(desk.port);
  for (const std::string& host : std::vector<std::string>{"attacker.example:" + port, "127.0.0.1:1",
                                                          "localhost.attacker.example:" + port, "localhost"}) {
    const auto [status, body] = desk.get("/api/snapshot", {{"Host", host}});
    EXPECT_EQ(status, 421) << host;
    EXPECT_EQ(desk.get("/metrics", {{"Host", host}}).first, 421) << host;
    EXPECT_NE(body.find("answers only for 127.0.0.1:" + port), std::string::npos) << body;
  }
  for (const std::string& host : std::vector<std::string>{"127.0.0.1:" + port, "LOCALHOST:" + port, "[::1]:" + port}) {
    EXPECT_EQ(desk.get("/api/snapshot", {{"Host", host}}).first, 200) << host;
  }
}

TEST(DeskState, ReachingTheEngineAgainStartsFromWhatItSays) {
  DeskState s;
  s.connected("a.sock");
  s.set_books({{1, "OB_A", "outright_book"}});
  s.update(outright(1, 10.0));
  s.add_events(base::Json::parse(R"([{"seq":5,"command":"bump-curve 2 1"}])"));
  std::uint64_t v = 0;
  EXPECT_EQ(message(s, &v, "")["as_of_event"], 5);
  s.disconnected("a.sock", "the engine closed the connection");
  s.connected("a.sock");  // another engine, on a database restored to event 1
  s.add_events(base::Json::parse(R"([{"seq":1,"command":"bump-curve 2 -1"}])"));
  s.saw_event(1);
  const base::Json after = message(s, &v, "");
  EXPECT_TRUE(after["full"]) << "a stream is sent everything again";
  EXPECT_EQ(after["as_of_event"], 1);
  ASSERT_EQ(after["events"].size(), 1u);
  EXPECT_EQ(after["events"][0]["seq"], 1);
  EXPECT_EQ(s.last_event_seq(), 1);
}

TEST(DeskState, BooksWithoutValuesMakeTheTotalsIncompleteAndTheErrorSaysWhy) {
  DeskState s;
  s.set_books({{1, "OB_A", "outright_book"}, {2, "OB_B", "outright_book"}});
  s.update(outright(1, 10.0));
  std::uint64_t v = 0;
  base::Json m = message(s, &v, "");
  EXPECT_FALSE(m["totals"]["complete"]);
  EXPECT_EQ(m["totals"]["missing"], 1);
  EXPECT_EQ(m["error"], "");
  s.set_unwatched(1, "the engine refused to watch them: too many watched nodes");
  m = message(s, &v, "");
  EXPECT_NE(m["error"].get<std::string>().find("1 of 2 books are not followed (the engine refused"), std::string::npos) << m;
  s.update(outright(2, 5.0));
  s.set_unwatched(0, "");
  m = message(s, &v, "");
  EXPECT_TRUE(m["totals"]["complete"]);
  EXPECT_EQ(m["totals"]["outright"]["pv"], 15.0);
  EXPECT_EQ(m["error"], "");
}

TEST(WebGateway, AfterAnEngineRestartOnARestoredDatabaseThePageFollowsTheNewEngine) {
  Desk desk(false);
  std::filesystem::copy_file(desk.db, desk.dir.path("backup.db"));
  desk.start_engine();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(desk.send("bump-curve 2 1")["ok"]);
  const std::int64_t old_event = desk.send("bump-curve 2 1")["event"];
  ASSERT_TRUE(eventually([&] { return desk.snapshot()["as_of_event"] == old_event; })) << desk.log();
  desk.engine->kill9();
  desk.engine->wait();
  for (const char* suffix : {"-wal", "-shm"}) std::filesystem::remove(desk.db + suffix);
  std::filesystem::copy_file(desk.dir.path("backup.db"), desk.db, std::filesystem::copy_options::overwrite_existing);
  desk.start_engine();
  const base::Json reply = desk.send("amend-trade OT_10 quantity=321");
  ASSERT_TRUE(reply["ok"]) << reply;
  const std::int64_t event = reply["event"];
  ASSERT_LT(event, old_event);
  const std::int64_t book_id = reply["books"][0]["id"];
  const base::Json book = desk.send("book " + std::to_string(book_id));
  EXPECT_TRUE(eventually([&] {
    const base::Json s = desk.snapshot();
    if (s["as_of_event"] != event || s["events"].empty() || s["events"].back()["seq"] != event) return false;
    for (const base::Json& row : s["rows"]) {
      if (row["id"] == book_id) return row["pv"] == book["pv"];
    }
    return false;
  })) << desk.snapshot().dump();
}

TEST(WebGateway, MoreBooksThanOneWatchFollowsAreAllShownAndTotalled) {
  Desk desk(true, {}, {}, "--preset 50k --book-size 2");
  const std::size_t books = books_in(desk.db);
  ASSERT_GT(books, 20'000u);
  ASSERT_TRUE(eventually([&] {
    const base::Json s = desk.snapshot();
    return s["rows"].size() == books && s["totals"]["complete"] == true;
  })) << desk.log();
  const base::Json s = desk.snapshot();
  EXPECT_EQ(s["error"], "");
  double pv = 0, margin = 0;
  std::size_t outright = 0, repo = 0;
  for (const base::Json& row : s["rows"]) {
    if (row["status"] != "OK") continue;
    if (row["type"] == "outright_book") pv += row["pv"].get<double>(), ++outright;
    else margin += row["margin"].get<double>(), ++repo;
  }
  EXPECT_GT(outright, 10'000u);
  EXPECT_GT(repo, 10'000u);
  EXPECT_EQ(s["totals"]["outright"]["books"], outright);
  EXPECT_EQ(s["totals"]["repo"]["books"], repo);
  EXPECT_NEAR(s["totals"]["outright"]["pv"].get<double>(), pv, 1e-9 * std::abs(pv));
  EXPECT_NEAR(s["totals"]["repo"]["margin"].get<double>(), margin, 1e-9 * std::abs(margin) + 1e-6);
  std::cout << books << " books: " << outright << " outright (pv " << pv << ") and " << repo << " repo (margin " << margin
            << ") in the totals\n";
}

namespace {

// A /metrics page read line by line as Prometheus' text format has it:
// samples by name (with their labels), failing the test on a line that is
// not a HELP, a TYPE or a `name{labels} value` sample of a metric whose HELP
// and TYPE came before (a histogram's: its name with _bucket, _sum or _count).
std::map<std::string, double> parse_metrics(const std::string& text) {
  static const std::regex kHelp(R"(# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) \S.*)");
  static const std::regex kType(R"(# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|summary|histogram|untyped))");
  static const std::regex kSample(
      R"(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-zA-Z_][a-zA-Z0-9_]*="[^"\\]*"(,[a-zA-Z_][a-zA-Z0-9_]*="[^"\\]*")*\})? (\S+))");
  std::set<std::string> helped, typed, histograms;
  std::map<std::string, double> samples;
  std::istringstream lines(text);
  std::smatch m;
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_match(line, m, kHelp)) {
      EXPECT_TRUE(helped.insert(m[1]).second) << "two HELP lines: " << line;
    } else if (std::regex_match(line, m, kType)) {
      EXPECT_TRUE(helped.contains(m[1])) << "TYPE before HELP: " << line;
      EXPECT_TRUE(typed.insert(m[1]).second) << "two TYPE lines: " << line;
      if (m[2] == "histogram") histograms.insert(m[1]);
    } else if (std::regex_match(line, m, kSample)) {
      // A histogram's samples are its family's name with _bucket, _sum or _count.
      const std::string name = m[1];
      const bool of_histogram = std::any_of(histograms.begin(), histograms.end(), [&](const std::string& h) {
        return name == h + "_bucket" || name == h + "_sum" || name == h + "_count";
      });
      EXPECT_TRUE(typed.contains(name) || of_histogram) << "a sample of a metric with no TYPE and HELP before it: " << line;
      std::size_t used = 0;
      const std::string value = m[4];
      double v = 0;
      EXPECT_NO_THROW(v = std::stod(value, &used)) << line;
      EXPECT_EQ(used, value.size()) << "not a number: " << line;
      EXPECT_TRUE(samples.emplace(std::string(m[1]) + std::string(m[2]), v).second) << "two samples: " << line;
    } else {
      ADD_FAILURE() << "not a line of the text format: \"" << line << "\"";
    }
  }
  EXPECT_TRUE(text.empty() || text.back() == '\n');
  return samples;
}

}  // namespace

// Latencies are Prometheus histograms: cumulative buckets from 0.1 ms to 1 s
// with le="+Inf", _sum and _count, as the engine counted them since it started.
TEST(Metrics, LatenciesAreHistogramsAndTheEngineIsLeftOutWhileUnreachable) {
  base::Histogram recalc, commit;
  for (double s : {0.00005, 0.0003, 0.0003, 0.004, 2.0}) recalc.add(s);
  commit.add(0.002);
  const auto figures = [](const base::Histogram& h) {
    return bond_risk::protocol::decode_figures({{"recalc_seconds", bond_risk::protocol::histogram_json(h)}}).recalc_seconds;
  };
  DeskState::Health health{.connected = true, .error = "", .has_figures = true, .event = 40, .results_as_of = 37,
                           .resident_kb = 2048, .recalc_seconds = figures(recalc), .commit_seconds = figures(commit)};
  std::map<std::string, double> m = parse_metrics(bond_risk::web::metrics_text(health, 3, 12));
  EXPECT_EQ(m.at("bond_risk_engine_up"), 1);
  EXPECT_EQ(m.at("bond_risk_web_streams"), 3);
  EXPECT_EQ(m.at("bond_risk_web_books"), 12);
  EXPECT_EQ(m.at("bond_risk_events_total"), 40);
  EXPECT_EQ(m.at("bond_risk_results_lag_events"), 3);
  EXPECT_EQ(m.at("bond_risk_resident_memory_bytes"), 2048 * 1024);
  // Counted by hand: 0.05 ms is at or below 0.1 ms; 0.3 ms twice below 0.5 ms; 4 ms below 5 ms; 2 s only below +Inf.
  const std::map<std::string, double> buckets{{"0.0001", 1}, {"0.00025", 1}, {"0.0005", 3}, {"0.001", 3}, {"0.0025", 3},
                                               {"0.005", 4},  {"0.01", 4},    {"0.025", 4},  {"0.05", 4},  {"0.1", 4},
                                               {"0.25", 4},   {"0.5", 4},     {"1", 4},      {"+Inf", 5}};
  for (const auto& [le, count] : buckets) {
    EXPECT_EQ(m.at("bond_risk_recalc_latency_seconds_bucket{le=\"" + le + "\"}"), count) << le;
  }
  EXPECT_DOUBLE_EQ(m.at("bond_risk_recalc_latency_seconds_sum"), 0.00005 + 0.0003 + 0.0003 + 0.004 + 2.0);
  EXPECT_EQ(m.at("bond_risk_recalc_latency_seconds_count"), 5);
  EXPECT_EQ(m.at("bond_risk_commit_latency_seconds_bucket{le=\"0.001\"}"), 0);
  EXPECT_EQ(m.at("bond_risk_commit_latency_seconds_bucket{le=\"0.0025\"}"), 1);
  EXPECT_EQ(m.at("bond_risk_commit_latency_seconds_count"), 1);
  EXPECT_EQ(m.size(), 6u + 2 * (buckets.size() + 2));

  health = DeskState::Health();
  health.error = "no engine is listening";
  m = parse_metrics(bond_risk::web::metrics_text(health, 0, 12));
  EXPECT_EQ(m.at("bond_risk_engine_up"), 0);
  EXPECT_FALSE(m.contains("bond_risk_events_total")) << "no figures of an engine the feed does not reach";
}

// Health means the engine answered recently: a stopped engine (SIGSTOP)
// accepts connections but answers nothing, and is reported down; it is up
// again once it goes on.
TEST(WebGateway, AStoppedEngineIsDownUntilItAnswersAgain) {
  Desk desk;
  ASSERT_TRUE(eventually([&] { return desk.get("/healthz").first == 200; })) << desk.log();
  desk.engine->signal(SIGSTOP);
  ASSERT_TRUE(eventually([&] { return desk.get("/healthz").first == 503; }, std::chrono::seconds(20))) << desk.log();
  EXPECT_NE(desk.get("/healthz").second.find("has not answered"), std::string::npos) << desk.get("/healthz").second;
  EXPECT_EQ(parse_metrics(desk.get("/metrics").second).at("bond_risk_engine_up"), 0);
  desk.engine->signal(SIGCONT);
  ASSERT_TRUE(eventually([&] { return desk.get("/healthz").first == 200; })) << desk.log();
  EXPECT_EQ(parse_metrics(desk.get("/metrics").second).at("bond_risk_engine_up"), 1);
}

TEST(WebGateway, MetricsAgreeWithTheSnapshotAndHealthzSaysWhetherTheEngineIsReached) {
  Desk desk(false);
  ASSERT_TRUE(eventually([&] { return desk.get("/healthz").second.find("no engine is listening") != std::string::npos; }))
      << desk.log();
  EXPECT_EQ(desk.get("/healthz").first, 503);
  EXPECT_EQ(parse_metrics(desk.get("/metrics").second).at("bond_risk_engine_up"), 0);

  desk.start_engine();
  ASSERT_TRUE(eventually([&] { return desk.get("/healthz") == std::pair<int, std::string>(200, "ok\n"); })) << desk.log();
  const base::Json amended = desk.send("amend-trade OT_10 quantity=321");
  ASSERT_TRUE(amended["ok"]) << amended;
  StreamReader stream(desk, "");
  // The figures change once a second: compare a page read between two equal snapshots.
  ASSERT_TRUE(eventually([&] {
    const base::Json before = desk.snapshot();
    const auto [status, text] = desk.get("/metrics");
    const base::Json after = desk.snapshot();
    const base::Json& f = after["figures"];
    if (status != 200 || before["figures"] != f || f.value("event", 0) < amended["event"].get<std::int64_t>() ||
        !f["recalc_us"].is_object() || stream.messages().empty()) {
      return false;
    }
    const std::map<std::string, double> m = parse_metrics(text);
    EXPECT_EQ(m.at("bond_risk_engine_up"), 1);
    EXPECT_EQ(m.at("bond_risk_events_total"), f["event"].get<double>());
    EXPECT_EQ(m.at("bond_risk_results_lag_events"), f["results_lag"].get<double>());
    EXPECT_GT(m.at("bond_risk_resident_memory_bytes"), 0);
    EXPECT_EQ(m.at("bond_risk_web_books"), static_cast<double>(after["rows"].size()));
    EXPECT_EQ(m.at("bond_risk_web_streams"), 1);
    // At least the amendment's recalculation and commit, each in the +Inf bucket and in _count.
    for (const char* h : {"bond_risk_recalc_latency_seconds", "bond_risk_commit_latency_seconds"}) {
      EXPECT_GE(m.at(std::string(h) + "_count"), 1) << h;
      EXPECT_EQ(m.at(std::string(h) + "_bucket{le=\"+Inf\"}"), m.at(std::string(h) + "_count")) << h;
      EXPECT_GT(m.at(std::string(h) + "_sum"), 0) << h;
    }
    return true;
  })) << desk.log();

  desk.engine->kill9();
  desk.engine->wait();
  ASSERT_TRUE(eventually([&] { return desk.get("/healthz").first == 503; })) << desk.log();
  EXPECT_NE(desk.get("/healthz").second.find("the engine is unreachable: "), std::string::npos);
}
