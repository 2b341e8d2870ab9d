// Risk limits (MODEL.md "Limits"): rows that cannot hold are FAILED with
// their reason and the rest are read; each measure's value equals the one
// computed from the result tables (a book's row, or an SQL sum over the OK
// books); states follow the bounds and the books' statuses.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include "bond_risk/db/result_writer.h"
#include "tests/live_support.h"

using namespace bond_risk;
using test::Live;

namespace {

// `limits` as a map by limit id.
std::map<std::int64_t, base::Json> limits_of(Live& live, const std::string& which = "") {
  const base::Json reply = live.run("limits" + (which.empty() ? "" : " " + which));
  EXPECT_EQ(reply["ok"], true) << reply.dump();
  std::map<std::int64_t, base::Json> out;
  for (const base::Json& l : reply["risk_limits"]) out[l["id"].get<std::int64_t>()] = l;
  return out;
}

// One number from the results database, once the writer has caught up.
double result(Live& live, const std::string& sql) {
  live.executor->results().wait_written();
  base::Database results(results_path(live.path), base::Database::Mode::read_only);
  base::Statement st = results.prepare(sql);
  EXPECT_TRUE(st.step()) << sql;
  return st.real(0);
}

std::int64_t id_of(const Live& live, const char* name) { return live.store().id(live.store().names.at(name)); }

std::string limit_row(std::int64_t id, const std::string& book, const std::string& measure, const std::string& rest) {
  return "INSERT INTO risk_limit (id, book_id, measure, ir_curve_id, idx, lower, upper) VALUES (" + std::to_string(id) +
         ", " + book + ", '" + measure + "', " + rest + ");";
}

}  // namespace

TEST(Limits, ARowThatCannotHoldIsFailedWithItsReasonAndTheOthersAreRead) {
  Live live("100", 20, 2,
            "INSERT INTO risk_limit VALUES (1, (SELECT id FROM outright_book WHERE name = 'OB_GBP-GILT_1'), 'pv01', "
            "NULL, NULL, -1e12, 1e12);"
            "INSERT INTO risk_limit VALUES (2, 999999, 'pv01', NULL, NULL, NULL, 1);"
            "INSERT INTO risk_limit VALUES (3, NULL, 'vega', NULL, NULL, NULL, 1);"
            "INSERT INTO risk_limit VALUES (4, NULL, 'pv01', NULL, NULL, 5, 1);"
            "INSERT INTO risk_limit VALUES (5, (SELECT id FROM outright_book WHERE name = 'OB_GBP-GILT_1'), 'margin', "
            "NULL, NULL, NULL, 1);"
            "INSERT INTO risk_limit VALUES (6, NULL, 'kr01', (SELECT id FROM ir_curve WHERE name = 'GBP-GILT'), 99, "
            "NULL, 1);"
            "INSERT INTO risk_limit VALUES (7, NULL, 'pv01', NULL, NULL, 'abc', NULL);"
            "INSERT INTO risk_limit VALUES (8, 'OB_X', 'pv01', NULL, NULL, NULL, 1);"
            "INSERT INTO risk_limit VALUES (9, NULL, 'kr01', NULL, NULL, NULL, 1);"
            "INSERT INTO risk_limit VALUES (10, NULL, 'pv01', 'x', 'y', NULL, NULL);");
  const auto limits = limits_of(live);
  ASSERT_EQ(limits.size(), 10u);
  EXPECT_EQ(limits.at(10)["state"], "OK") << "a pv01 limit does not read ir_curve_id or idx";
  EXPECT_EQ(limits.at(8)["book_name"], "OB_X");
  EXPECT_EQ(limits_of(live, "total").count(8), 0u) << "a book_id that is no number is not the total";
  EXPECT_EQ(limits.at(1)["state"], "OK") << limits.at(1).dump();
  const std::map<std::int64_t, std::string> reasons = {
      {2, "book_id 999999 names no outright_book or repo_book"},
      {3, "measure 'vega' is not one of pv01, kr01, cs01, day_pnl, margin"},
      {4, "lower 5 is above upper 1"},
      {5, "margin is a measure of repo_books, and OB_GBP-GILT_1 is not one"},
      {6, "ir_curve GBP-GILT has no input point idx 99"},
      {7, "lower 'abc' is not a finite number"},
      {8, "book_id 'OB_X' is not a whole number"},
      {9, "a kr01 limit needs ir_curve_id and idx (its input point)"}};
  for (const auto& [id, reason] : reasons) {
    EXPECT_EQ(limits.at(id)["state"], "FAILED") << id;
    EXPECT_EQ(limits.at(id)["reason"], reason) << id;
  }
  EXPECT_EQ(live.run("limits NOT_A_BOOK")["ok"], false);
  EXPECT_EQ(live.run("limits OB_GBP-GILT_1 extra")["ok"], false);
}

TEST(Limits, EachMeasureIsTheResultTablesValue) {
  const std::string gilt = "(SELECT id FROM ir_curve WHERE name = 'GBP-GILT')";
  const std::string ob = "(SELECT id FROM outright_book WHERE name = 'OB_GBP-GILT_1')";
  const std::string rb = "(SELECT id FROM repo_book WHERE name = 'RB_GBP-GILT_1')";
  // The gilt's input points numbered from 100: a kr01 limit names a point by that number, not its position.
  Live live("100", 20, 2,
            "UPDATE ir_curve_input_rate SET idx = idx + 100 WHERE ir_curve_id = " + gilt + ";" +
                limit_row(1, ob, "pv01", "NULL, NULL, NULL, NULL") + limit_row(2, "NULL", "pv01", "NULL, NULL, NULL, NULL") +
                limit_row(3, ob, "cs01", "NULL, NULL, NULL, NULL") + limit_row(4, rb, "margin", "NULL, NULL, NULL, NULL") +
                limit_row(5, "NULL", "margin", "NULL, NULL, NULL, NULL") + limit_row(6, ob, "kr01", gilt + ", 103, NULL, NULL") +
                limit_row(7, ob, "day_pnl", "NULL, NULL, NULL, NULL") +
                limit_row(8, "NULL", "day_pnl", "NULL, NULL, NULL, NULL"));
  ASSERT_EQ(live.run("start-day")["ok"], true);
  const std::string ob_id = std::to_string(id_of(live, "OB_GBP-GILT_1"));
  const double pnl_before = result(live, "SELECT pnl FROM outright_book_result WHERE id = " + ob_id);
  const double total_before = result(live, "SELECT (SELECT sum(pnl) FROM outright_book_result) + "
                                           "(SELECT sum(mtm_pnl) FROM repo_book_result)");
  ASSERT_EQ(live.run("bump-curve GBP-GILT 7")["ok"], true);
  const auto limits = limits_of(live);
  auto near = [](const base::Json& limit, double want) {
    EXPECT_NEAR(limit["value"].get<double>(), want, 1e-9 * std::max(1.0, std::abs(want))) << limit.dump();
  };
  near(limits.at(1), result(live, "SELECT pv01 FROM outright_book_result WHERE id = " + ob_id));
  near(limits.at(2), result(live, "SELECT sum(pv01) FROM outright_book_result WHERE status = 'OK'"));
  near(limits.at(3), result(live, "SELECT cs01 FROM outright_book_result WHERE id = " + ob_id));
  near(limits.at(4), result(live, "SELECT margin FROM repo_book_result WHERE id = " +
                                      std::to_string(id_of(live, "RB_GBP-GILT_1"))));
  near(limits.at(5), result(live, "SELECT sum(margin) FROM repo_book_result WHERE status = 'OK'"));
  near(limits.at(6), result(live, "SELECT kr01 FROM outright_book_key_rate WHERE id = " + ob_id +
                                      " AND idx = 103 AND ir_curve_id = " + std::to_string(id_of(live, "GBP-GILT"))));
  near(limits.at(7), result(live, "SELECT pnl FROM outright_book_result WHERE id = " + ob_id) - pnl_before);
  near(limits.at(8), result(live, "SELECT (SELECT sum(pnl) FROM outright_book_result) + "
                                  "(SELECT sum(mtm_pnl) FROM repo_book_result)") - total_before);
  for (const auto& [id, limit] : limits) EXPECT_EQ(limit["state"], "OK") << limit.dump();  // unbounded
  ASSERT_NE(limits.at(7)["value"].get<double>(), 0.0) << "the bump moved the book";
}

TEST(Limits, AStateFollowsItsBoundsAndItsBooksStatus) {
  const std::string ob = "(SELECT id FROM outright_book WHERE name = 'OB_GBP-GILT_1')";
  Live live("100", 20, 2,
            "INSERT OR REPLACE INTO bond_quote VALUES (4, -1);" +  // bond 4 FAILED by its quote: its books are not OK
                limit_row(1, ob, "day_pnl", "NULL, NULL, -1, 1") + limit_row(2, "NULL", "pv01", "NULL, NULL, NULL, NULL"));
  ASSERT_EQ(live.run("start-day")["ok"], true);
  ASSERT_NE(live.store().state(live.node(id_of(live, "OB_GBP-GILT_1"))).status, Status::ok);
  EXPECT_EQ(limits_of(live).at(1)["state"], "UNKNOWN");
  EXPECT_EQ(limits_of(live, "total").at(2)["state"], "UNKNOWN") << "a book the total sums is not OK";
  ASSERT_EQ(live.run("clear-price 4")["ok"], true);
  ASSERT_EQ(live.run("start-day")["ok"], true);
  EXPECT_EQ(limits_of(live, "OB_GBP-GILT_1").at(1)["state"], "OK");
  EXPECT_EQ(limits_of(live, "total").at(2)["state"], "OK");

  ASSERT_EQ(live.run("bump-curve GBP-GILT 10")["ok"], true);
  const base::Json moved = limits_of(live).at(1);
  const double value = moved["value"].get<double>();
  ASSERT_GT(std::abs(value), 1.0) << "a 10bp bump moves the book by more than 1";
  EXPECT_EQ(moved["state"], "BREACHED");
  EXPECT_EQ(moved["bound"].get<double>(), value > 0 ? 1.0 : -1.0);
  EXPECT_DOUBLE_EQ(moved["utilization"].get<double>(), std::abs(value));
  ASSERT_EQ(live.run("bump-curve GBP-GILT -10")["ok"], true);
  const base::Json back = limits_of(live).at(1);
  EXPECT_EQ(back["state"], "OK") << back.dump();
  EXPECT_LT(std::abs(back["utilization"].get<double>()), 1e-6);
}

namespace {

// The alerts committed since the last call.
std::vector<base::Json> alerts_of(Live& live) {
  std::vector<base::Json> out;
  for (const std::string& line : live.executor->take_alerts()) out.push_back(base::Json::parse(line)["alert"]);
  return out;
}

// A limit set by `set-limit`, and how to read its value and its books'
// statuses from the result tables, independently of the engine's checks.
struct Checked {
  std::string args;       // set-limit's, without the bounds
  std::string value_sql;  // its value now (day_pnl: its measure, less `at_start`)
  std::string unknown_sql;  // a count of the books it reads that are not OK
  double at_start = 0;
  double lower = 0, upper = 0;
  std::int64_t id = 0;
  std::string state = "OK";  // as the result tables say it is
};

// Each measure of a book and of the total, between bounds 1e-7 of its size either side of its value now.
std::vector<Checked> checked_limits(Live& live) {
  const std::string ob = std::to_string(id_of(live, "OB_GBP-GILT_1")), rb = std::to_string(id_of(live, "RB_GBP-GILT_1"));
  const std::string gilt = std::to_string(id_of(live, "GBP-GILT"));
  const std::string outright_total = "(SELECT sum(pnl) FROM outright_book_result)";
  const std::string all_pnl = "(SELECT " + outright_total + " + (SELECT sum(mtm_pnl) FROM repo_book_result))";
  const std::string ob_status = "SELECT count(*) FROM outright_book_result WHERE status != 'OK' AND id = " + ob;
  const std::string outright_status = "SELECT count(*) FROM outright_book_result WHERE status != 'OK'";
  const std::string repo_status = "SELECT count(*) FROM repo_book_result WHERE status != 'OK'";
  const std::string all_status = "SELECT (" + outright_status + ") + (" + repo_status + ")";
  std::vector<Checked> out = {
      {"OB_GBP-GILT_1 pv01", "SELECT pv01 FROM outright_book_result WHERE id = " + ob, ob_status},
      {"OB_GBP-GILT_1 kr01 GBP-GILT 3",
       "SELECT kr01 FROM outright_book_key_rate WHERE id = " + ob + " AND ir_curve_id = " + gilt + " AND idx = 3", ob_status},
      {"OB_GBP-GILT_1 cs01", "SELECT cs01 FROM outright_book_result WHERE id = " + ob, ob_status},
      {"OB_GBP-GILT_1 day_pnl", "SELECT pnl FROM outright_book_result WHERE id = " + ob, ob_status},
      {"RB_GBP-GILT_1 margin", "SELECT margin FROM repo_book_result WHERE id = " + rb,
       "SELECT count(*) FROM repo_book_result WHERE status != 'OK' AND id = " + rb},
      {"total pv01", "SELECT sum(pv01) FROM outright_book_result WHERE status = 'OK'", outright_status},
      {"total margin", "SELECT sum(margin) FROM repo_book_result WHERE status = 'OK'", repo_status},
      {"total day_pnl", "SELECT " + all_pnl, all_status},
  };
  for (Checked& c : out) {
    const double now = result(live, c.value_sql);
    if (c.args.ends_with("day_pnl")) c.at_start = now;
    // A day_pnl is a difference of sums: its margin is of the book's measure's size.
    const double value = now - c.at_start, margin = 1e-7 * std::max({1.0, std::abs(value), std::abs(c.at_start)});
    c.lower = value - margin, c.upper = value + margin;
    char bounds[80];
    std::snprintf(bounds, sizeof bounds, " %.17g %.17g", c.lower, c.upper);
    const base::Json reply = live.run("set-limit " + c.args + bounds);
    EXPECT_EQ(reply["ok"], true) << reply.dump();
    c.id = reply["limit_id"].get<std::int64_t>();
  }
  return out;
}

// After an event: each limit whose state the result tables say changed has
// one alert, from its last state to the new, with its value and bound (the
// one crossed; none while UNKNOWN); the others none. Returns how many changed.
std::size_t expect_alerts(Live& live, std::vector<Checked>& limits, const std::string& cause, std::int64_t seq) {
  std::map<std::int64_t, base::Json> alerts;
  for (const base::Json& a : alerts_of(live)) {
    EXPECT_TRUE(alerts.emplace(a["limit_id"].get<std::int64_t>(), a).second) << "two alerts of one limit: " << a.dump();
  }
  std::size_t changed = 0;
  for (Checked& c : limits) {
    const double value = result(live, c.value_sql) - c.at_start;
    const bool unknown = result(live, c.unknown_sql) > 0;
    const std::string state = unknown ? "UNKNOWN" : (c.lower <= value && value <= c.upper) ? "OK" : "BREACHED";
    const auto alert = alerts.find(c.id);
    if (state == c.state) {
      EXPECT_EQ(alert, alerts.end()) << c.args << " stayed " << state << ": " << alert->second.dump();
      continue;
    }
    ++changed;
    if (alert == alerts.end()) {
      ADD_FAILURE() << c.args << " went from " << c.state << " to " << state << " with no alert";
      c.state = state;
      continue;
    }
    const base::Json& a = alert->second;
    EXPECT_EQ(a["from"], c.state) << c.args;
    EXPECT_EQ(a["to"], state) << c.args;
    EXPECT_EQ(a["cause"], cause) << c.args;
    EXPECT_EQ(a["seq"], seq) << c.args;
    if (state != "UNKNOWN") {
      EXPECT_NEAR(a["value"].get<double>(), value, 1e-9 * std::max({1.0, std::abs(value), std::abs(c.at_start)})) << c.args;
      if (state == "BREACHED") {
        EXPECT_EQ(a["bound"].get<double>(), value > c.upper ? c.upper : c.lower) << c.args;
      } else {  // the bound on the value's side (a value of 0 within rounding may have either)
        EXPECT_TRUE(a["bound"] == c.upper || a["bound"] == c.lower) << a.dump();
      }
    } else {
      EXPECT_TRUE(a["bound"].is_null()) << a.dump();
    }
    c.state = state;
  }
  return changed;
}

}  // namespace

// Breach, cure and UNKNOWN of each measure, of a book and of the total:
// each is one alert of the event that caused it, as the result tables say.
TEST(Limits, EachChangeOfStateIsOneAlertOfTheEventThatCausedIt) {
  Live live("100", 20, 2);
  ASSERT_EQ(live.run("start-day")["ok"], true);
  std::vector<Checked> limits = checked_limits(live);
  EXPECT_EQ(expect_alerts(live, limits, "event", 0), 0u) << "each limit set is OK";
  const base::Json bump = live.run("bump-curve GBP-GILT 10");
  EXPECT_GE(expect_alerts(live, limits, "event", bump["event"].get<std::int64_t>()), 6u) << "a 10bp bump breaches";
  const base::Json back = live.run("bump-curve GBP-GILT -10");
  EXPECT_GE(expect_alerts(live, limits, "event", back["event"].get<std::int64_t>()), 6u) << "and the bump back cures";
  // Another program's bad quote fails bond 4: its books are not OK, and their limits and the totals UNKNOWN.
  base::Database(live.path, base::Database::Mode::read_write).exec("INSERT OR REPLACE INTO bond_quote VALUES (4, -1)");
  const std::int64_t before = live.executor->served_event();
  ASSERT_EQ(live.run("get 1")["ok"], true);
  EXPECT_GE(expect_alerts(live, limits, "external", before), 4u);
  const base::Json cleared = live.run("clear-price 4");
  EXPECT_GE(expect_alerts(live, limits, "event", cleared["event"].get<std::int64_t>()), 4u);
  // A new day moves every day_pnl limit's value to 0: inside its bounds again, or out of them.
  ASSERT_EQ(live.run("bump-curve GBP-GILT 10")["ok"], true);
  expect_alerts(live, limits, "event", live.executor->served_event());
  for (Checked& c : limits) {
    if (c.args.ends_with("day_pnl")) c.at_start = result(live, c.value_sql);
  }
  const base::Json day = live.run("start-day");
  expect_alerts(live, limits, "event", day["event"].get<std::int64_t>());
}

// set-limit refuses a limit that could not hold, naming why, and changes
// nothing; a good one is a row of risk_limit with the id its reply gives,
// and remove-limit deletes it.
TEST(Limits, SetLimitRefusesALimitThatCannotHoldAndRemoveLimitDeletesOne) {
  Live live("100", 20, 2);
  auto rows = [&] {
    base::Statement st = live.db->prepare("SELECT count(*) FROM risk_limit");
    st.step();
    return st.integer(0);
  };
  const std::int64_t before = rows();
  const std::map<std::string, std::string> refused = {
      {"set-limit NO_BOOK pv01 0 1", "no calendar, curve, bond, trade or book has the id or name 'NO_BOOK'"},
      {"set-limit OB_GBP-GILT_1 vega 0 1", "measure 'vega' is not one of pv01, kr01, cs01, day_pnl, margin"},
      {"set-limit OB_GBP-GILT_1 margin 0 1", "margin is a measure of repo_books, and OB_GBP-GILT_1 is not one"},
      {"set-limit OB_GBP-GILT_1 pv01 5 1", "lower 5 is above upper 1"},
      {"set-limit OB_GBP-GILT_1 kr01 GBP-GILT 99 0 1", "ir_curve GBP-GILT has no input point idx 99"},
      {"set-limit OB_GBP-GILT_1 kr01 0 1", "a kr01 limit needs ir_curve_id and idx (its input point)"},
      {"set-limit OB_GBP-GILT_1 pv01 GBP-GILT 3 0 1", "only a kr01 limit names a curve and idx, not pv01"},
      {"set-limit OB_GBP-GILT_1 kr01 GBP-GILT 3 1", "usage: set-limit"},
      {"set-limit OB_GBP-GILT_1 pv01 0 abc", "UPPER"},
      {"set-limit GBP-GILT pv01 0 1", "is ir_curve, not a book"},
      {"remove-limit 12345", "no risk limit with id 12345"},
      {"remove-limit x", "ID"}};
  for (const auto& [line, why] : refused) {
    const base::Json reply = live.run(line);
    EXPECT_EQ(reply["ok"], false) << line;
    EXPECT_NE(reply.value("error", "").find(why), std::string::npos) << line << ": " << reply.dump();
  }
  EXPECT_EQ(rows(), before);
  EXPECT_TRUE(live.store().limits.empty());

  const base::Json set = live.run("set-limit total pv01 none 1e12");
  ASSERT_EQ(set["ok"], true) << set.dump();
  const std::int64_t id = set["limit_id"].get<std::int64_t>();
  base::Statement row = live.db->prepare("SELECT book_id IS NULL, measure, lower IS NULL, upper FROM risk_limit WHERE id = ?");
  row.bind(1, id);
  ASSERT_TRUE(row.step());
  EXPECT_EQ(row.integer(0), 1);
  EXPECT_EQ(row.text(1), "pv01");
  EXPECT_EQ(row.integer(2), 1);
  EXPECT_EQ(row.real(3), 1e12);
  EXPECT_EQ(limits_of(live, "total").at(id)["state"], "OK");
  EXPECT_EQ(live.run("remove-limit " + std::to_string(id))["ok"], true);
  EXPECT_EQ(rows(), before);
  EXPECT_TRUE(limits_of(live).empty());
}

// A limit another program adds, or moves, is checked at once; one added
// breached is an alert of cause external.
TEST(Limits, ALimitAnotherProgramEditsIsCheckedAtOnce) {
  Live live("100", 20, 2);
  const std::string ob = std::to_string(id_of(live, "OB_GBP-GILT_1"));
  base::Database other(live.path, base::Database::Mode::read_write);
  other.exec(limit_row(70, ob, "pv01", "NULL, NULL, NULL, -1e15"));  // any pv01 is above it
  const std::int64_t seq = live.executor->served_event();
  ASSERT_EQ(live.run("limits")["ok"], true);
  std::vector<base::Json> alerts = alerts_of(live);
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0]["limit_id"], 70);
  EXPECT_EQ(alerts[0]["to"], "BREACHED");
  EXPECT_EQ(alerts[0]["cause"], "external");
  EXPECT_EQ(alerts[0]["seq"], seq);
  EXPECT_EQ(alerts[0]["book_name"], "OB_GBP-GILT_1");
  other.exec("UPDATE risk_limit SET upper = NULL WHERE id = 70");
  ASSERT_EQ(live.run("get 1")["ok"], true);
  alerts = alerts_of(live);
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0]["from"], "BREACHED");
  EXPECT_EQ(alerts[0]["to"], "OK");
}

// A limit's state belongs to the limit as defined (its book and measure),
// not to its id: a limit another program puts under a used id starts OK,
// whether the engine was stopped (the next start raises its breach) or
// running (it raises no recovery for a breach the new limit never had).
TEST(Limits, ALimitPutUnderAnotherLimitsIdStartsAfresh) {
  test::TempDir dir;
  const std::string db = dir.path("r.db");
  ASSERT_EQ(test::run_cli("generate --preset 100 --out " + db).exit_code, 0);
  const auto value = [&](const std::string& sql) {
    std::string row = test::query_rows(db, sql).at(0);
    return row.substr(0, row.find('|'));
  };
  const std::string book2 = value("SELECT id FROM outright_book WHERE name = 'OB_EUR-BUND_1'");
  const std::string repo = value("SELECT min(id) FROM repo_book");
  {
    test::Reopened engine(db);
    ASSERT_EQ(engine.run("set-limit OB_GBP-GILT_1 pv01 -1e15 -1e14")["ok"], true);  // breached as set
  }
  const std::string id = value("SELECT max(id) FROM risk_limit");
  {  // while no engine runs: the breached limit deleted, and another breached one under its id
    base::Database other(db, base::Database::Mode::read_write);
    other.exec("DELETE FROM risk_limit WHERE id = " + id + "; " +
               limit_row(std::stoll(id), book2, "pv01", "NULL, NULL, -1e15, -1e14"));
  }
  test::Reopened engine(db);
  std::vector<std::string> alerts = engine.executor.take_alerts();
  ASSERT_EQ(alerts.size(), 1u) << "the new limit's breach";
  base::Json alert = base::Json::parse(alerts[0])["alert"];
  EXPECT_EQ(alert["book_name"], "OB_EUR-BUND_1");
  EXPECT_EQ(alert["from"], "OK");
  EXPECT_EQ(alert["to"], "BREACHED");
  {  // while it runs: the breached limit becomes a margin limit that is OK
    base::Database other(db, base::Database::Mode::read_write);
    other.exec("UPDATE risk_limit SET book_id = " + repo + ", measure = 'margin', lower = NULL, upper = NULL WHERE id = " + id);
  }
  ASSERT_EQ(engine.run("get 1")["ok"], true);
  EXPECT_TRUE(engine.executor.take_alerts().empty()) << "the margin limit was never breached";
  {  // and a breached margin limit of the same book under the id: an edit of its bounds
    base::Database other(db, base::Database::Mode::read_write);
    other.exec("UPDATE risk_limit SET upper = -1e300 WHERE id = " + id);
  }
  ASSERT_EQ(engine.run("get 1")["ok"], true);
  alerts = engine.executor.take_alerts();
  ASSERT_EQ(alerts.size(), 1u);
  alert = base::Json::parse(alerts[0])["alert"];
  EXPECT_EQ(alert["from"], "OK");
  EXPECT_EQ(alert["to"], "BREACHED");
}

// Alerts are durable with their events: the results database's limit_event
// holds each once, a restart raises none again, and what changed while no
// engine ran is raised at the next start as external.
TEST(Limits, AlertsReachTheResultsDatabaseOnceAndARestartRaisesOnlyWhatChangedMeanwhile) {
  test::TempDir dir;
  const std::string db = dir.path("r.db");
  ASSERT_EQ(test::run_cli("generate --preset 100 --out " + db).exit_code, 0);
  auto alert_rows = [](const std::string& path, const char* table) {
    return test::query_rows(path, std::string("SELECT id, seq, cause, limit_id, from_state, to_state, value FROM ") +
                                      table + " ORDER BY id");
  };
  {
    test::Reopened engine(db);
    ASSERT_EQ(engine.run("set-limit OB_GBP-GILT_1 pv01 -1e15 -1e14")["ok"], true);  // breached as set
    ASSERT_EQ(engine.run("set-limit total pv01 -1e15 1e15")["ok"], true);
    ASSERT_EQ(engine.run("bump-curve GBP-GILT 1")["ok"], true);
    engine.executor.results().wait_written();
    EXPECT_EQ(engine.executor.take_alerts().size(), 1u);
  }
  const std::vector<std::string> logged = alert_rows(db, "limit_alert");
  ASSERT_EQ(logged.size(), 1u);
  EXPECT_EQ(alert_rows(results_path(db), "limit_event"), logged);
  base::Database(db, base::Database::Mode::read_write).exec("UPDATE risk_limit SET upper = -1e15 WHERE measure = 'pv01' AND book_id IS NULL");
  {
    test::Reopened engine(db);
    const std::vector<std::string> alerts = engine.executor.take_alerts();
    ASSERT_EQ(alerts.size(), 1u) << "the limit another program moved, and only it";
    const base::Json alert = base::Json::parse(alerts[0])["alert"];
    EXPECT_EQ(alert["book_name"], "total");
    EXPECT_EQ(alert["cause"], "external");
    EXPECT_EQ(alert["to"], "BREACHED");
    ASSERT_EQ(engine.run("get 1")["ok"], true);
    engine.executor.results().wait_written();
  }
  EXPECT_EQ(alert_rows(db, "limit_alert").size(), 2u);
  EXPECT_EQ(alert_rows(results_path(db), "limit_event"), alert_rows(db, "limit_alert"));
}

// A read whose reply would be longer than a reply may be (60,000 limits)
// is refused up front, saying how to ask for less, and what it suggests is
// answered: a connection is never left with a reply it cannot queue.
TEST(Limits, AListTooLongToSendIsRefusedSayingHowToAskForLess) {
  Live live("100", 20, 2,
            "WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < 60000) "
            "INSERT INTO risk_limit (id, book_id, measure, lower, upper) "
            "SELECT 1000 + k, (SELECT min(id) FROM outright_book), 'pv01', -1e12, 1e12 FROM n;");
  const base::Json all = live.run("limits all");
  EXPECT_EQ(all["ok"], false);
  EXPECT_NE(all.value("error", "").find("more than a reply may be"), std::string::npos) << all.value("error", "");
  EXPECT_NE(all.value("error", "").find("limits all 1000"), std::string::npos) << all.value("error", "");
  const base::Json first = live.run("limits all 1000");
  ASSERT_EQ(first["ok"], true);
  EXPECT_EQ(first["risk_limits"].size(), 1000u);
  EXPECT_GE(first["states"]["OK"].get<int>(), 60000);
}

// An input database restored from a backup holds fewer alerts than the
// results file beside it, and numbers its next alerts as the ones it lost:
// the start-up's rewrite makes limit_event its alerts again.
TEST(Limits, BesideARestoredInputDatabaseTheResultsHoldItsAlerts) {
  test::TempDir dir;
  const std::string db = dir.path("r.db"), backup = dir.path("backup.db");
  ASSERT_EQ(test::run_cli("generate --preset 100 --out " + db).exit_code, 0);
  auto alert_rows = [](const std::string& path, const char* table) {
    return test::query_rows(path, std::string("SELECT id, seq, cause, limit_id, from_state, to_state, value FROM ") +
                                      table + " ORDER BY id");
  };
  auto breach = [](test::Reopened& engine, const std::string& book) {
    ASSERT_EQ(engine.run("set-limit " + book + " pv01 -1e15 -1e14")["ok"], true);  // breached as set
  };
  {
    test::Reopened engine(db);
    breach(engine, "OB_GBP-GILT_1");
    engine.executor.results().wait_written();
    engine.db.prepare("VACUUM INTO ?").bind(1, backup).run();
    breach(engine, "OB_GBP-GILT_1");
    breach(engine, "OB_GBP-GILT_1");
    engine.executor.results().wait_written();
  }
  ASSERT_EQ(alert_rows(results_path(db), "limit_event").size(), 3u);
  std::filesystem::copy_file(backup, db, std::filesystem::copy_options::overwrite_existing);
  {
    test::Reopened engine(db);
    breach(engine, "OB_GBP-GILT_1");
    engine.executor.results().wait_written();
  }
  const std::vector<std::string> logged = alert_rows(db, "limit_alert");
  ASSERT_EQ(logged.size(), 2u);
  EXPECT_EQ(alert_rows(results_path(db), "limit_event"), logged);
}

// `generate` sets each book's limits from its values now: every one starts
// OK, and the same seed gives the same set.
TEST(Limits, TheGeneratedSetStartsOkAndDependsOnlyOnTheSeed) {
  test::TempDir dir;
  auto limit_rows = [](const std::string& path) { return test::query_rows(path, "SELECT * FROM risk_limit ORDER BY id"); };
  for (const char* name : {"a.db", "b.db", "c.db"}) {
    const std::string seed = std::string(name) == "c.db" ? "2" : "1";
    ASSERT_EQ(test::run_cli("generate --preset 100 --limits-per-book 7 --seed " + seed + " --out " + dir.path(name)).exit_code, 0);
  }
  EXPECT_EQ(limit_rows(dir.path("a.db")), limit_rows(dir.path("b.db")));
  EXPECT_NE(limit_rows(dir.path("a.db")), limit_rows(dir.path("c.db")));
  test::Reopened engine(dir.path("a.db"));
  const base::Json reply = engine.run("limits");
  const Store& s = engine.model.store();
  ASSERT_EQ(reply["risk_limits"].size(), 7 * (s.outright_books.size() + s.repo_books.size()) + 3);
  std::map<std::string, std::size_t> measures;
  for (const base::Json& l : reply["risk_limits"]) {
    EXPECT_EQ(l["state"], "OK") << l.dump();
    ++measures[l["measure"].get<std::string>()];
  }
  EXPECT_EQ(measures.size(), 5u) << "every measure";
  EXPECT_EQ(reply["states"], base::Json({{"OK", reply["risk_limits"].size()}}));
  const base::Json first = engine.run("limits all 3");
  ASSERT_EQ(first["risk_limits"].size(), 3u) << "the first N";
  EXPECT_EQ(first["states"], reply["states"]) << "counted over every limit";
  EXPECT_EQ(first["risk_limits"][0], reply["risk_limits"][0]);
  EXPECT_EQ(engine.run("limits all 0")["ok"], false);
  EXPECT_TRUE(engine.executor.take_alerts().empty());
  ASSERT_EQ(test::run_cli("generate --limit-set " + dir.path("a.db") + " --limits-per-book 0").exit_code, 0);
  EXPECT_TRUE(limit_rows(dir.path("a.db")).empty());
}

// A removed limit's id is not given to the next one, whose state starts
// afresh (the removed one's alerts are not its own), even after a restart.
TEST(Limits, ARemovedLimitsIdIsNotGivenAgain) {
  test::TempDir dir;
  const std::string db = dir.path("i.db");
  ASSERT_EQ(test::run_cli("generate --preset 100 --limits-per-book 0 --out " + db).exit_code, 0);
  std::int64_t removed = 0;
  {
    test::Reopened engine(db);
    const base::Json set = engine.run("set-limit OB_GBP-GILT_1 pv01 none -1e15");  // breached as set
    ASSERT_EQ(set["ok"], true) << set.dump();
    removed = set["limit_id"].get<std::int64_t>();
    ASSERT_EQ(engine.executor.take_alerts().size(), 1u);
    ASSERT_EQ(engine.run("remove-limit " + std::to_string(removed))["ok"], true);
  }
  test::Reopened engine(db);
  const base::Json again = engine.run("set-limit OB_GBP-GILT_1 pv01 none -1e15");
  ASSERT_EQ(again["ok"], true) << again.dump();
  EXPECT_GT(again["limit_id"].get<std::int64_t>(), removed);
  const std::vector<std::string> alerts = engine.executor.take_alerts();
  ASSERT_EQ(alerts.size(), 1u) << "the new limit is breached as set: an alert of its own";
  EXPECT_EQ(base::Json::parse(alerts[0])["alert"]["from"], "OK");
}

// The invariants hold after a huge value passes through a total: a trade
// amended to a vast quantity and back leaves the total's running sum off
// its parts' fresh sum by far more than rounding of today's values (it
// carries the rounding of the vast one), which is how a total is kept, not
// a broken state. The check once called it broken, and in a debug build an
// engine would have stopped on it. (The books' own running sums carry it
// too until their next full sum: no fresh flush is compared here.)
TEST(Limits, AHugeValuePassingThroughATotalBreaksNoInvariant) {
  Live live;
  ASSERT_EQ(live.run("set-limit total pv01 none 1e300")["ok"], true);
  const std::int64_t trade = test::first_id(live.store(), Kind::outright_trade);
  const auto quantity = live.store().outright_trades[live.node(trade).index].quantity;
  ASSERT_EQ(live.run("amend-trade " + std::to_string(trade) + " quantity=1000000000000000")["ok"], true);
  ASSERT_EQ(live.run("amend-trade " + std::to_string(trade) + " quantity=" + std::to_string(quantity))["ok"], true);
  EXPECT_NO_THROW(live.executor->check());
}
