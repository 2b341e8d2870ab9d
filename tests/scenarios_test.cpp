// Scenarios and VaR (MODEL.md "Scenarios") against independent sources:
// QuantLib repricing each bond off curves rebuilt from the shifted points,
// a running engine's own bump-curve, and VaR and ES recomputed from the
// stored P&L vectors by a few lines here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "base/sqlite.h"
#include "bond_risk/db/result_writer.h"
#include "bond_risk/db/scenario_sets.h"
#include "bond_risk/synth/generator.h"
#include "bond_risk/synth/scenario_generator.h"
#include "bond_risk/model/store/published_values.h"
#include "bond_risk/model/risk/scenarios.h"
#include "bond_risk/model/pricing/status.h"
#include "tests/live_support.h"
#include "tests/quantlib_support.h"
#include "tests/test_support.h"

using namespace bond_risk;

namespace {

std::string generated(const test::TempDir& dir, const char* preset = "100", std::size_t book_size = 10) {
  const std::string db = dir.path("scenarios.db");
  generate(find_preset(preset), {.seed = 11, .book_size = book_size}, db);
  return db;
}

// `expected` within 1e-9 of the gross size of what was summed.
void expect_close(double got, double expected, double gross, const std::string& what) {
  EXPECT_NEAR(got, expected, 1e-9 * gross + 1e-12) << what;
}

}  // namespace

TEST(Scenarios, BookPnlIsQuantLibsRepricedBondsSummedOverTheBook) {
  test::TempDir dir;
  const auto base_model = test::calculate(generated(dir), 2);
  const Store& s = base_model->store;
  ASSERT_EQ(s.curves.size(), 2u);
  // A twist of curve 0 at two points, and curve 1 moved in parallel.
  Scenario scenario{1, "test", {{0, 3, 25.0}, {0, 7, -40.0}}};
  for (std::size_t k = 0; k < s.curves[1].points.size(); ++k) scenario.shifts.push_back({1, k, 15.0});
  const ScenarioBase base(s);
  const ScenarioPnl pnl = ScenarioRevaluer(base).revalue(scenario);
  ASSERT_EQ(pnl.error, "");

  // The oracle: daily discount factors from the shifted points, QuantLib prices.
  std::vector<std::vector<double>> df_base, df_moved;
  for (NodeIndex c = 0; c < s.curves.size(); ++c) {
    std::vector<CurvePoint> moved = s.curves[c].points;
    for (const Shift& sh : scenario.shifts) {
      if (sh.curve == c) moved[sh.point].value += sh.bp * kBump;
    }
    df_base.push_back(test::discount_factors(s.curves[c].points));
    df_moved.push_back(test::discount_factors(moved));
  }
  std::map<NodeIndex, double> price_change;
  for (NodeIndex b = 0; b < s.bonds.size(); ++b) {
    if (s.state(ref(Kind::bond, b)).status != Status::ok) continue;
    const Bond& bond = s.bonds[b];
    const test::QuantLibBond ql(bond.start, bond.maturity, bond.coupons_per_year, bond.coupon,
                                s.calendars[bond.calendar].today);
    price_change[b] = ql.price(df_moved[bond.curve]) - ql.price(df_base[bond.curve]);
  }
  ASSERT_GE(price_change.size(), 8u);
  std::size_t checked = 0;
  for (std::size_t k = 0; k < base.books(); ++k) {
    const NodeRef book = base.book(k);
    double expected = 0, margin = 0, gross = 0;
    if (kind_of(book) == Kind::outright_book) {
      for (NodeIndex m : s.outright_books[book.index].members) {
        if (s.state(ref(Kind::outright_trade, m)).status != Status::ok) continue;
        const OutrightTrade& t = s.outright_trades[m];
        expected += static_cast<double>(t.quantity) * t.dir * price_change.at(t.bond);
        gross += std::abs(static_cast<double>(t.quantity) * price_change.at(t.bond));
      }
    } else {
      for (NodeIndex m : s.repo_books[book.index].members) {
        if (s.state(ref(Kind::repo_trade, m)).status != Status::ok) continue;
        const RepoTrade& t = s.repo_trades[m];
        margin -= static_cast<double>(t.notional) * price_change.at(t.bond);
        double moved = 0;
        for (int i = 0; i < t.end - s.calendars[t.calendar].today; ++i) {
          moved += df_moved[t.curve][static_cast<std::size_t>(i)] - df_base[t.curve][static_cast<std::size_t>(i)];
        }
        expected -= t.start_cash * moved / kYearBasis;
        gross += std::abs(t.start_cash * moved / kYearBasis) + std::abs(static_cast<double>(t.notional) * price_change.at(t.bond));
      }
    }
    const std::string what = std::string(kind_name(kind_of(book))) + " " + std::to_string(s.id(book));
    expect_close(pnl.pnl[k], expected, gross, what + " pnl");
    expect_close(pnl.margin[k], margin, gross, what + " margin");
    EXPECT_NE(pnl.pnl[k], 0.0) << what;
    ++checked;
  }
  EXPECT_GE(checked, 4u);
}

TEST(Scenarios, AParallelTenBasisPointsIsWhatBumpCurveDoesToARunningEngine) {
  test::Live live("100", 10);
  const Store& s = live.store();
  Scenario up10{1, "parallel+10bp", {}};
  for (NodeIndex c = 0; c < s.curves.size(); ++c) {
    for (std::size_t k = 0; k < s.curves[c].points.size(); ++k) up10.shifts.push_back({c, k, 10.0});
  }
  ScenarioPnl pnl;
  std::vector<double> before_value, before_margin;
  {
    const ScenarioBase base(s);
    pnl = ScenarioRevaluer(base).revalue(up10);
    for (std::size_t k = 0; k < base.books(); ++k) {
      const NodeRef b = base.book(k);
      before_value.push_back(kind_of(b) == Kind::outright_book ? s.outright_books[b.index].total.pv
                                                                : s.repo_books[b.index].total.mtm_pnl);
      before_margin.push_back(kind_of(b) == Kind::outright_book ? 0.0 : s.repo_books[b.index].total.margin);
    }
  }
  for (const char* curve : {"GBP-GILT", "EUR-BUND"}) {
    ASSERT_EQ(live.run(std::string("bump-curve ") + curve + " 10")["ok"], true);
  }
  const ScenarioBase after(live.store());
  double total = 0;
  for (std::size_t k = 0; k < after.books(); ++k) {
    const NodeRef b = after.book(k);
    const bool outright = kind_of(b) == Kind::outright_book;
    const double value = outright ? s.outright_books[b.index].total.pv : s.repo_books[b.index].total.mtm_pnl;
    const double margin = outright ? 0.0 : s.repo_books[b.index].total.margin;
    const double gross = std::abs(value) + std::abs(before_value[k]) + std::abs(margin);
    expect_close(pnl.pnl[k], value - before_value[k], gross, "book " + std::to_string(s.id(b)));
    expect_close(pnl.margin[k], margin - before_margin[k], gross, "book " + std::to_string(s.id(b)) + " margin");
    total += pnl.pnl[k];
  }
  EXPECT_EQ(pnl.total, total);
}

TEST(Scenarios, ResultsAreTheSameBitsForEveryThreadCountAndNoShiftIsNoPnl) {
  test::TempDir dir;
  const auto model = test::calculate(generated(dir), 0);
  const ScenarioBase base(model->store);
  std::vector<Scenario> scenarios;
  for (int k = 0; k < 13; ++k) {
    scenarios.push_back({k, "s" + std::to_string(k), {{static_cast<NodeIndex>(k % 2), static_cast<std::size_t>(k % 12), 3.0 * k - 20}}});
  }
  scenarios.push_back({99, "none", {}});
  std::vector<std::vector<double>> runs;
  for (std::size_t threads : {0, 1, 3}) {
    const auto scheduler = engine::make_scheduler({.threads = threads});
    const std::vector<ScenarioPnl> out = revalue_all(base, scenarios, *scheduler);
    std::vector<double> flat;
    for (const ScenarioPnl& p : out) {
      flat.insert(flat.end(), p.pnl.begin(), p.pnl.end());
      flat.insert(flat.end(), p.margin.begin(), p.margin.end());
      flat.push_back(p.total);
    }
    runs.push_back(flat);
    const ScenarioPnl& none = out.back();
    EXPECT_TRUE(std::all_of(none.pnl.begin(), none.pnl.end(), [](double v) { return v == 0.0; }));
    EXPECT_EQ(none.total, 0.0);
  }
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_EQ(runs[0], runs[2]);
}

TEST(Scenarios, TheCommandStoresPnlAndVarAndEsAreThoseOfTheStoredPnl) {
  test::TempDir dir;
  const std::string db = generated(dir);
  const test::CliResult run = test::run_cli("scenarios --threads 2 --db " + db);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("Set historical (historical): 500 scenarios"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Set ladder (stress): 20 scenarios"), std::string::npos) << run.out;
  base::Database results(scenario_results_path(db), base::Database::Mode::read_only);
  base::Statement keys = results.prepare("SELECT book_id, scenarios, var_99, es_975 FROM scenario_var WHERE set_name = 'historical'");
  std::size_t checked = 0;
  while (keys.step()) {
    const bool total = keys.column_type(0) == SQLITE_NULL;
    base::Statement pnl = results.prepare("SELECT pnl FROM scenario_pnl WHERE set_name = 'historical' AND book_id IS ?");
    if (total) {
      pnl.bind_null(1);
    } else {
      pnl.bind(1, keys.integer(0));
    }
    std::vector<double> losses;
    while (pnl.step()) losses.push_back(pnl.real(0));
    ASSERT_EQ(losses.size(), 500u);
    EXPECT_EQ(keys.integer(1), 500);
    // MODEL.md: VaR_99 = -L_j, j = ceil(0.01 N); ES_97.5 = -(L_1 + ... + L_m) / m, m = ceil(0.025 N).
    std::sort(losses.begin(), losses.end());
    const auto j = static_cast<std::size_t>(std::ceil(0.01 * 500)), m = static_cast<std::size_t>(std::ceil(0.025 * 500));
    double tail = 0;
    for (std::size_t k = 0; k < m; ++k) tail += losses[k];
    EXPECT_DOUBLE_EQ(keys.real(2), -losses[j - 1]);
    EXPECT_DOUBLE_EQ(keys.real(3), -tail / static_cast<double>(m));
    ++checked;
  }
  base::Statement books = results.prepare("SELECT count(DISTINCT book_id) FROM scenario_pnl WHERE set_name = 'ladder'");
  ASSERT_TRUE(books.step());
  EXPECT_EQ(checked, static_cast<std::size_t>(books.integer(0)) + 1);  // every book and the total
  // The total is the sum of the books' P&L in every scenario.
  base::Statement sums = results.prepare(
      "SELECT t.pnl, (SELECT sum(b.pnl) FROM scenario_pnl b WHERE b.set_name = t.set_name AND b.scenario_id = "
      "t.scenario_id AND b.book_id IS NOT NULL), (SELECT sum(abs(b.pnl)) FROM scenario_pnl b WHERE b.set_name = "
      "t.set_name AND b.scenario_id = t.scenario_id AND b.book_id IS NOT NULL) FROM scenario_pnl t WHERE t.book_id IS NULL");
  while (sums.step()) EXPECT_NEAR(sums.real(0), sums.real(1), 1e-12 * sums.real(2));

  const std::string png = dir.path("pnl.png");
  const test::CliResult plotted = test::run_cli("plot pnl --set historical --db " + db + " --out " + png);
  ASSERT_EQ(plotted.exit_code, 0) << plotted.err;
  EXPECT_EQ(test::slurp(png).substr(0, 4), "\x89PNG");
  EXPECT_NE(plotted.out.find("VaR 99%"), std::string::npos) << plotted.out;
}

// Scenario results live apart from the live results: the sets an older
// version kept in the results file move over when a batch run replaces that
// file (it has no results_file row), the sets stored already keeping their
// rows, and the results file then has no scenario tables.
TEST(Scenarios, StoredResultsSurviveABatchRunAndThoseOfAnOlderVersionMoveOver) {
  test::TempDir dir;
  const std::string db = generated(dir, "tiny", 5);
  ASSERT_EQ(test::run_cli("scenarios --set historical --db " + db).exit_code, 0);
  const auto count = [](const std::string& path, const std::string& sql) {
    base::Database file(path, base::Database::Mode::read_only);
    base::Statement st = file.prepare(sql);
    st.step();
    return st.integer(0);
  };
  const std::string scenarios = scenario_results_path(db), pnl_rows = "SELECT count(*) FROM scenario_pnl",
                    var_rows = "SELECT count(*) FROM scenario_var";
  const std::int64_t pnl = count(scenarios, pnl_rows), var = count(scenarios, var_rows);
  ASSERT_GT(pnl, 0);
  ASSERT_GT(var, 0);
  {  // the results file as an older version left it: the scenario tables in it, a set of its own and 'historical' changed
    base::Database old(results_path(db), base::Database::Mode::create);
    old.exec(std::string("CREATE TABLE scenario_pnl (set_name TEXT NOT NULL, scenario_id INTEGER NOT NULL, "
                         "book_id INTEGER, pnl REAL NOT NULL, margin_change REAL);"
                         "CREATE TABLE scenario_var (set_name TEXT NOT NULL, book_id INTEGER, scenarios INTEGER NOT NULL,"
                         " var_99 REAL NOT NULL, es_975 REAL NOT NULL);"
                         "ATTACH '") + scenarios + "' AS s;"
             "INSERT INTO scenario_pnl SELECT 'old', scenario_id, book_id, pnl, margin_change FROM s.scenario_pnl;"
             "INSERT INTO scenario_pnl SELECT set_name, scenario_id, book_id, pnl + 1, margin_change FROM s.scenario_pnl;"
             "INSERT INTO scenario_var SELECT 'old', book_id, scenarios, var_99, es_975 FROM s.scenario_var;"
             "INSERT INTO scenario_var SELECT set_name, book_id, scenarios, var_99 + 1, es_975 FROM s.scenario_var");
  }
  const test::CliResult batch = test::run_cli("run --batch --threads 2 --db " + db);
  ASSERT_EQ(batch.exit_code, 0) << batch.err;
  EXPECT_EQ(count(scenarios, pnl_rows + " WHERE set_name = 'historical'"), pnl);
  EXPECT_EQ(count(scenarios, pnl_rows + " WHERE set_name = 'old'"), pnl);
  // 'old' holds the rows 'historical' had, and 'historical' still has them (not the older file's values + 1).
  const auto in_both = [&](const std::string& table, const std::string& match) {
    return count(scenarios, "SELECT count(*) FROM " + table + " h JOIN " + table + " o ON o.set_name = 'old' AND " +
                                match + " WHERE h.set_name = 'historical'");
  };
  EXPECT_EQ(in_both("scenario_pnl", "o.scenario_id = h.scenario_id AND o.book_id IS h.book_id AND o.pnl = h.pnl"), pnl);
  EXPECT_EQ(in_both("scenario_var", "o.book_id IS h.book_id AND o.var_99 = h.var_99"), var);
  EXPECT_EQ(count(results_path(db), "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'scenario%'"), 0);
  EXPECT_GT(count(results_path(db), "SELECT count(*) FROM bond_result"), 0);
  const test::CliResult plotted = test::run_cli("plot pnl --set historical --db " + db + " --out " + dir.path("h.png"));
  EXPECT_EQ(plotted.exit_code, 0) << plotted.err;
}

// An older version's results file that cannot be read (here another
// program holds it locked) is not replaced unread: the batch run fails,
// saying so, and its scenario rows move over once the file is free.
TEST(Scenarios, AnOlderResultsFileThatCannotBeReadKeepsItsScenarioResults) {
  test::TempDir dir;
  const std::string db = generated(dir, "tiny", 5);
  base::Database old(results_path(db), base::Database::Mode::create);
  old.exec("CREATE TABLE scenario_pnl (set_name TEXT NOT NULL, scenario_id INTEGER NOT NULL, book_id INTEGER, "
           "pnl REAL NOT NULL, margin_change REAL);"
           "CREATE TABLE scenario_var (set_name TEXT NOT NULL, book_id INTEGER, scenarios INTEGER NOT NULL, "
           "var_99 REAL NOT NULL, es_975 REAL NOT NULL);"
           "INSERT INTO scenario_pnl VALUES ('kept', 1, NULL, -2.5, NULL);"
           "BEGIN EXCLUSIVE");
  const test::CliResult locked = test::run_cli("run --batch --db " + db);
  EXPECT_EQ(locked.exit_code, 1) << locked.err;
  EXPECT_NE(locked.err.find("locked"), std::string::npos) << locked.err;
  old.exec("ROLLBACK");
  EXPECT_TRUE(base::Database(results_path(db), base::Database::Mode::read_only).has_table("scenario_pnl"))
      << "the file was replaced";
  const test::CliResult freed = test::run_cli("run --batch --db " + db);
  ASSERT_EQ(freed.exit_code, 0) << freed.err;
  base::Database scenarios(scenario_results_path(db), base::Database::Mode::read_only);
  base::Statement kept = scenarios.prepare("SELECT pnl FROM scenario_pnl WHERE set_name = 'kept'");
  ASSERT_TRUE(kept.step());
  EXPECT_EQ(kept.real(0), -2.5);
}

TEST(Scenarios, ABadShiftLeavesItsScenarioOutAndTheRestOfTheSetRuns) {
  test::TempDir dir;
  const std::string db = generated(dir, "tiny", 5);
  {
    base::Database conn(db, base::Database::Mode::read_write);
    conn.exec(
        "INSERT INTO scenario (id, name, set_name) VALUES (9001, 'bad-curve', 'mine'), (9002, 'bad-idx', 'mine'),"
        " (9003, 'bad-text', 'mine'), (9004, 'too-big', 'mine'), (9005, 'good', 'mine');"
        "INSERT INTO scenario_shift VALUES (9001, 99999, 0, 1), (9002, 2, 77, 1), (9003, 2, 0, 'abc'),"
        " (9004, 2, 0, 1e6), (9005, 2, 0, 1), (9005, 3, 4, -2);"
        // A book naming a trade that does not exist is FAILED: it publishes no P&L either.
        "INSERT INTO outright_book_trade (book_id, trade_id) SELECT min(id), 999999 FROM outright_book;");
  }
  const test::CliResult run = test::run_cli("scenarios --set mine --threads 2 --db " + db);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const char* why : {"bad-curve (id 9001) left out: ir_curve_id 99999 is not a curve",
                          "bad-idx (id 9002) left out: ir_curve 2 has no input point idx 77",
                          "bad-text (id 9003) left out: shift_bp 'abc'", "scenario too-big left out: ir_curve 2 shifted"}) {
    EXPECT_NE(run.err.find(why), std::string::npos) << why << "\n" << run.err;
  }
  base::Database results(scenario_results_path(db), base::Database::Mode::read_only);
  base::Statement ids = results.prepare("SELECT DISTINCT scenario_id FROM scenario_pnl WHERE set_name = 'mine'");
  std::vector<std::int64_t> stored;
  while (ids.step()) stored.push_back(ids.integer(0));
  EXPECT_EQ(stored, std::vector<std::int64_t>{9005});
  base::Database input(db, base::Database::Mode::read_only);
  base::Statement first_book = input.prepare("SELECT min(id) FROM outright_book");
  ASSERT_TRUE(first_book.step());
  base::Statement failed = results.prepare("SELECT count(*) FROM scenario_pnl WHERE book_id = ?");
  failed.bind(1, first_book.integer(0));
  base::Statement books = results.prepare("SELECT count(*) FROM scenario_pnl WHERE set_name = 'mine' AND book_id IS NOT NULL");
  ASSERT_TRUE(failed.step() && books.step());
  EXPECT_EQ(failed.integer(0), 0) << "a FAILED book has a P&L";
  EXPECT_GT(books.integer(0), 0);

  const test::CliResult unknown = test::run_cli("scenarios --set nosuch --db " + db);
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no scenario set 'nosuch'"), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("historical, ladder, mine"), std::string::npos) << unknown.err;
}

TEST(Scenarios, AShiftRowOfTheWrongTypeLeavesItsScenarioOutNamingTheRow) {
  test::TempDir dir;
  const std::string db = generated(dir, "tiny", 5);  // curves 2 and 3, input points idx 0 to 11
  {
    base::Database conn(db, base::Database::Mode::read_write);
    // The table as another program may have made it, with no primary key: a point can be given twice.
    conn.exec(
        "DROP TABLE scenario_shift;"
        "CREATE TABLE scenario_shift (scenario_id INTEGER, ir_curve_id INTEGER, idx INTEGER, shift_bp REAL);"
        "INSERT INTO scenario (id, name, set_name) VALUES (9101, 'idx-text', 'typed'), (9102, 'idx-blob', 'typed'),"
        " (9103, 'idx-real', 'typed'), (9104, 'curve-real', 'typed'), (9105, 'twice', 'typed'),"
        " (9106, 'shift-blob', 'typed'), (9107, 'shift-infinite', 'typed'), (9108, 'good', 'typed');"
        "INSERT INTO scenario_shift (rowid, scenario_id, ir_curve_id, idx, shift_bp) VALUES"
        " (11, 9101, 2, 'abc', 1), (12, 9102, 2, x'03', 1), (13, 9103, 2, 3.7, 1), (14, 9104, 2.5, 0, 1),"
        " (15, 9105, 2, 3, 1), (16, 9105, 2, 3, 2), (17, 9106, 2, 0, x'00'), (18, 9107, 2, 0, 1e999),"
        " (19, 9108, 2, 3, 1), (20, 9108, 3, 4, -2);");
  }
  const test::CliResult run = test::run_cli("scenarios --set typed --threads 2 --db " + db);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const char* why : {"idx-text (id 9101) left out: idx 'abc' is not a whole number (scenario_shift rowid 11)",
                          "idx-blob (id 9102) left out: idx (a blob) is not a whole number (scenario_shift rowid 12)",
                          "idx-real (id 9103) left out: idx 3.7 is not a whole number (scenario_shift rowid 13)",
                          "curve-real (id 9104) left out: ir_curve_id 2.5 is not an id (scenario_shift rowid 14)",
                          "twice (id 9105) left out: ir_curve 2 idx 3 is shifted twice (scenario_shift rowid 16)",
                          "shift-blob (id 9106) left out: shift_bp (a blob) is not a number (scenario_shift rowid 17)",
                          "shift-infinite (id 9107) left out: shift_bp", "(scenario_shift rowid 18)"}) {
    EXPECT_NE(run.err.find(why), std::string::npos) << why << "\n" << run.err;
  }
  base::Database results(scenario_results_path(db), base::Database::Mode::read_only);
  base::Statement ids = results.prepare("SELECT DISTINCT scenario_id FROM scenario_pnl WHERE set_name = 'typed'");
  std::vector<std::int64_t> stored;
  while (ids.step()) stored.push_back(ids.integer(0));
  EXPECT_EQ(stored, std::vector<std::int64_t>{9108});
}

TEST(Scenarios, VarNeedsAUsableScenarioAndSaysWhenThereAreFewerThanAHundred) {
  // Three days of one historical set: VaR 99% and ES 97.5% over 3 are the worst loss (MODEL.md:
  // j = ceil(0.03) = 1, m = ceil(0.075) = 1).
  const char* days =
      "INSERT INTO scenario_set VALUES ('three', 'historical');"
      "INSERT INTO scenario (id, name, set_name) VALUES (9201, 'three-1', 'three'), (9202, 'three-2', 'three'),"
      " (9203, 'three-3', 'three');"
      "INSERT INTO scenario_shift VALUES (9201, 2, 3, 10), (9202, 2, 3, -15), (9203, 3, 9, 20);";
  const char* spoil = "UPDATE scenario_shift SET ir_curve_id = 999 WHERE scenario_id BETWEEN 9201 AND 9203";
  {
    test::Live live("100", 10);
    live.db->exec(days);
    double worst = 0;
    for (const char* day : {"three-1", "three-2", "three-3"}) {
      const base::Json reply = live.run(std::string("scenario ") + day);
      ASSERT_EQ(reply["ok"], true) << reply.dump();
      worst = std::min(worst, reply["total"].get<double>());
    }
    ASSERT_LT(worst, 0);
    const base::Json var = live.run("var three");
    ASSERT_EQ(var["ok"], true) << var.dump();
    EXPECT_EQ(var["scenarios"], 3);
    EXPECT_DOUBLE_EQ(var["total"]["var_99"].get<double>(), -worst);
    EXPECT_DOUBLE_EQ(var["total"]["es_975"].get<double>(), -worst);
    EXPECT_NE(var.value("note", "").find("only 3 scenarios"), std::string::npos) << var.dump();
    EXPECT_FALSE(live.run("var").contains("note"));  // the 500 generated days

    live.db->exec(spoil);
    const base::Json none = live.run("var three");
    EXPECT_EQ(none["ok"], false) << none.dump();
    const std::string error = none.value("error", "");
    EXPECT_NE(error.find("scenario set 'three' has no usable scenario"), std::string::npos) << error;
    EXPECT_NE(error.find("all 3 of its scenarios were left out"), std::string::npos) << error;
  }
  test::TempDir dir;
  const std::string db = generated(dir, "tiny", 5);
  const std::string results_db = scenario_results_path(db);
  auto var_rows = [&] {
    base::Database results(results_db, base::Database::Mode::read_only);
    base::Statement st = results.prepare("SELECT count(*) FROM scenario_var WHERE set_name = 'three'");
    st.step();
    return st.integer(0);
  };
  base::Database(db, base::Database::Mode::read_write).exec(days);
  const test::CliResult few = test::run_cli("scenarios --set three --db " + db);
  ASSERT_EQ(few.exit_code, 0) << few.err;
  EXPECT_NE(few.err.find("only 3 scenarios: fewer than 100"), std::string::npos) << few.err;
  EXPECT_GT(var_rows(), 0);

  base::Database(db, base::Database::Mode::read_write).exec(spoil);
  const test::CliResult none = test::run_cli("scenarios --set three --db " + db);
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("scenario set 'three' has no usable scenario, so no VaR or ES: all 3 of its scenarios were left out"),
            std::string::npos)
      << none.err;
  EXPECT_EQ(none.out.find("VaR 99%"), std::string::npos) << none.out;
  EXPECT_EQ(var_rows(), 0) << "the last run's VaR outlived a set with no usable scenario";
}

TEST(Scenarios, TheRunningEngineAnswersScenarioAndVarFromItsStateWithoutChangingIt) {
  test::Live live("100", 10);
  ASSERT_EQ(live.run("amend-trade " + std::to_string(test::first_id(live.store(), Kind::outright_trade)) +
                     " quantity=12345")["ok"],
            true);
  const std::uint64_t digest = results_digest(live.store());
  const base::Json var = live.run("var");
  ASSERT_EQ(var["ok"], true) << var.dump();
  ASSERT_EQ(var["scenarios"], kHistoricalDays);
  EXPECT_EQ(results_digest(live.store()), digest) << "var changed the engine's state";
  // VaR and ES of the total recomputed here (MODEL.md) from each day's total, revalued from the engine's
  // state by one revaluer over the whole set; every 20th day, the `scenario` command (a copy of the market
  // of its own, revalued alone) replies the same total: a revaluer carries nothing from one day to the next.
  const ScenarioBase base(live.store());
  ScenarioRevaluer revaluer(base);
  const ScenarioSet days = read_scenario_set(*live.db, live.store(), "historical");
  ASSERT_EQ(days.scenarios.size(), static_cast<std::size_t>(kHistoricalDays));
  std::vector<double> totals;
  for (const Scenario& day : days.scenarios) {
    const ScenarioPnl pnl = revaluer.revalue(day);
    ASSERT_EQ(pnl.error, "") << day.name;
    totals.push_back(pnl.total);
    if (totals.size() % 20 != 1) continue;
    const base::Json reply = live.run("scenario " + day.name);
    ASSERT_EQ(reply["ok"], true) << reply.dump();
    EXPECT_EQ(reply["total"].get<double>(), pnl.total) << day.name;
  }
  std::sort(totals.begin(), totals.end());
  double tail = 0;
  for (std::size_t k = 0; k < 13; ++k) tail += totals[k];  // ceil(0.025 * 500) worst days
  EXPECT_DOUBLE_EQ(var["total"]["var_99"].get<double>(), -totals[4]);  // ceil(0.01 * 500) = 5th worst
  EXPECT_DOUBLE_EQ(var["total"]["es_975"].get<double>(), -tail / 13);
  EXPECT_EQ(var["books"].size(), live.store().outright_books.size() + live.store().repo_books.size());
  EXPECT_EQ(results_digest(live.store()), digest);

  // A parallel +10bp scenario is what bump-curve does to the books.
  const base::Json up = live.run("scenario parallel+10bp");
  ASSERT_EQ(up["ok"], true) << up.dump();
  std::map<std::int64_t, double> before;
  for (const base::Json& b : up["books"]) before[b["id"]] = live.run("book " + std::to_string(b["id"].get<std::int64_t>()))[b.contains("margin_change") ? "mtm_pnl" : "pv"];
  for (const char* curve : {"GBP-GILT", "EUR-BUND"}) ASSERT_EQ(live.run(std::string("bump-curve ") + curve + " 10")["ok"], true);
  for (const base::Json& b : up["books"]) {
    const base::Json now = live.run("book " + std::to_string(b["id"].get<std::int64_t>()));
    const double after = now[b.contains("margin_change") ? "mtm_pnl" : "pv"];
    const double was = before[b["id"]];
    EXPECT_NEAR(b["pnl"].get<double>(), after - was, 1e-9 * (std::abs(after) + std::abs(was)) + 1e-9) << b.dump();
  }
  // Asked again after the bump, var reflects the new state.
  const base::Json again = live.run("var");
  EXPECT_NE(again["total"]["var_99"], var["total"]["var_99"]);

  // The kept reply does not outlive a change to the set's rows, even one that leaves their count and
  // their sums as they were: day-001 becomes a 600bp twist of both curves' 6-month and 10-year points,
  // then the opposite twist (the same values on swapped points). One of the two is among the worst
  // days, the other is not.
  const auto twist = [&](double short_end, double long_end) {
    live.db->exec("UPDATE scenario_shift SET shift_bp = CASE idx WHEN 3 THEN " + std::to_string(short_end) +
                  " ELSE " + std::to_string(long_end) + " END WHERE idx IN (3, 9) AND scenario_id = "
                  "(SELECT id FROM scenario WHERE name = 'day-001')");
    return live.run("var");
  };
  const base::Json steepener = twist(-300, 300), flattener = twist(300, -300);
  EXPECT_NE(steepener["total"]["es_975"], flattener["total"]["es_975"]);
  EXPECT_TRUE(steepener["total"]["es_975"] != again["total"]["es_975"] ||
              flattener["total"]["es_975"] != again["total"]["es_975"]);

  for (const char* bad : {"scenario nosuch", "var ladder", "var nosuch"}) {
    const base::Json reply = live.run(bad);
    EXPECT_EQ(reply["ok"], false) << bad;
    EXPECT_FALSE(reply.value("error", "").empty()) << bad;
  }
}

TEST(Scenarios, GenerateAddsTheTwoSetsToAnExistingDatabaseOnceWhateverItHeld) {
  test::TempDir dir;
  const std::string db = generated(dir, "tiny", 5);
  {
    base::Database conn(db, base::Database::Mode::read_write);
    conn.exec("DROP TABLE scenario; DROP TABLE scenario_shift; DROP TABLE scenario_set;");  // an older database
  }
  const test::CliResult none = test::run_cli("scenarios --set historical --db " + db);
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("has no scenario tables"), std::string::npos) << none.err;
  for (int twice = 0; twice < 2; ++twice) {
    const test::CliResult added = test::run_cli("generate --scenarios " + db);
    ASSERT_EQ(added.exit_code, 0) << added.err;
  }
  base::Database conn(db, base::Database::Mode::read_only);
  base::Statement counts = conn.prepare(
      "SELECT (SELECT count(*) FROM scenario WHERE set_name = 'historical'), (SELECT count(*) FROM scenario WHERE "
      "set_name = 'ladder'), (SELECT count(*) FROM scenario_shift), (SELECT count(*) FROM ir_curve_input_rate)");
  ASSERT_TRUE(counts.step());
  EXPECT_EQ(counts.integer(0), kHistoricalDays);
  EXPECT_EQ(counts.integer(1), 20);
  EXPECT_EQ(counts.integer(2), (kHistoricalDays + 20) * counts.integer(3));  // every point of every curve
  EXPECT_EQ(test::run_cli("scenarios --db " + db).exit_code, 0);
}
