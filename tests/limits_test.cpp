// Risk limits (MODEL.md "Limits"): rows that cannot hold are FAILED with
// their reason and the rest are read; each measure's value equals the one
// computed from the result tables (a book's row, or an SQL sum over the OK
// books); states follow the bounds and the books' statuses.
#include <gtest/gtest.h>

#include <cmath>
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
