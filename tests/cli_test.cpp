// bin/bond_risk as a user runs it: commands, settings and every bad input.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "base/json.h"
#include "base/sqlite.h"
#include "tests/test_support.h"
#include "tests/web_support.h"

using test::run_cli;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A tiny generated database in a scratch directory.
struct TinyDb {
  test::TempDir dir;
  std::string path = dir.path("tiny.db");
  TinyDb() {
    const test::CliResult r = run_cli("generate --preset tiny --out " + path + " --book-size 3");
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
};

}  // namespace

TEST(Cli, HelpDescribesEveryCommandAndOption) {
  const test::CliResult top = run_cli("--help");
  EXPECT_EQ(top.exit_code, 0);
  for (const char* cmd : {"generate", "run", "show"}) EXPECT_TRUE(contains(top.out, cmd)) << cmd;
  const test::CliResult run = run_cli("run --help");
  EXPECT_EQ(run.exit_code, 0);
  for (const char* opt : {"--db", "--threads", "--batch", "--conf", "--json", "--grain", "--flushes", "NUM_THREADS", "APP_DB",
                          "BATCH_MODE", "TIMING_DEBUG"}) {
    EXPECT_TRUE(contains(run.out, opt)) << opt;
  }
  const test::CliResult gen = run_cli("generate --help");
  for (const char* opt : {"--preset", "--out", "--seed", "--book-size"}) EXPECT_TRUE(contains(gen.out, opt)) << opt;
  EXPECT_EQ(run_cli("show --help").exit_code, 0);
}

TEST(Cli, VersionPrintsTheVersionFileAndTheCommitBuiltFrom) {
  const test::CliResult r = test::run_cli("--version");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string version = test::slurp(test::source_dir() + "/VERSION");
  version.erase(version.find_last_not_of(" \n") + 1);
  // The commit: 12 hex digits from git, or "unknown" when built outside a checkout.
  EXPECT_TRUE(std::regex_match(r.out, std::regex("bond_risk " + version + R"( \(commit ([0-9a-f]{12}|unknown)\)\n)")))
      << r.out;
  EXPECT_NE(test::run_cli("--help").out.find("--version"), std::string::npos) << "--help names it";
}

TEST(Cli, BatchRunPrintsTiersAndWritesEveryResultRow) {
  TinyDb db;
  const test::CliResult r = run_cli("run --batch --threads 2 --db " + db.path + " --json " + db.dir.path("r.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "Tier 1 (calendar) ran 1 objects in ")) << r.out;
  EXPECT_TRUE(contains(r.out, "Tier 2 (ir_curve) ran 2 objects in "));  // the curves, which sum its coupon grids
  EXPECT_TRUE(contains(r.out, "Tier 3 (bond) ran 6 objects in "));
  EXPECT_TRUE(contains(r.out, "Tier 4 (outright_trade, repo_trade) ran 20 objects in "));
  EXPECT_TRUE(contains(r.out, "Tier 5 (outright_book, repo_book) ran 8 objects in "));
  EXPECT_TRUE(contains(r.out, "All tiers ran 37 objects in "));  // 1 + 2 + 6 + 20 + 8 books of 3 trades
  // The desk's risk in total, and what to do next.
  EXPECT_TRUE(contains(r.out, "Risk over the OK books: outright pv ")) << r.out;
  EXPECT_TRUE(contains(r.out, "Next: bond_risk show BOOK")) << r.out;
  std::ifstream json(db.dir.path("r.json"));
  const std::string text((std::istreambuf_iterator<char>(json)), std::istreambuf_iterator<char>());
  for (const char* key : {"\"threads\": 2", "\"load_seconds\"", "\"flush_seconds\"", "\"tiers\"",
                          "\"voluntary_context_switches\"", "\"peak_rss_kb\"", "\"objects\": 37"}) {
    EXPECT_TRUE(contains(text, key)) << key << " in " << text;
  }
  base::Database check(db.dir.path("tiny.results.db"), base::Database::Mode::read_only);
  for (const auto& [table, rows] : std::vector<std::pair<std::string, int>>{
           {"bond_result", 6}, {"outright_trade_result", 10}, {"repo_trade_result", 10}, {"outright_book_result", 4},
           {"repo_book_result", 4}}) {
    base::Statement st = check.prepare("SELECT count(*), sum(status = 'OK') FROM " + table);
    ASSERT_TRUE(st.step());
    EXPECT_EQ(st.integer(0), rows) << table;
    EXPECT_EQ(st.integer(1), rows) << table;
  }
  // The printed total is the stored books' sum.
  base::Statement pv = check.prepare("SELECT total(pv) FROM outright_book_result WHERE status = 'OK'");
  ASSERT_TRUE(pv.step());
  const double printed = std::stod(r.out.substr(r.out.find("outright pv ") + 12));
  EXPECT_NEAR(printed, pv.real(0), 0.005 + 1e-12 * std::abs(pv.real(0)));
  const test::CliResult show = run_cli("show --db " + db.path + " 4 OT_10");
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_TRUE(contains(show.out, "bond 4 (BOND_4): OK price=")) << show.out;
  EXPECT_TRUE(contains(show.out, "outright_trade")) << show.out;
  EXPECT_TRUE(contains(show.out, "pnl=")) << show.out;
  EXPECT_TRUE(contains(show.out, "results as of event 0")) << show.out;
}

TEST(Cli, ADatabaseFromTheSchemaAndTheSqliteShellRuns) {
  test::TempDir dir;
  const std::string db = dir.path("shell.db");
  const std::string sql =
      "INSERT INTO calendar VALUES (1, 'C', '2025-01-01');"
      "INSERT INTO ir_curve VALUES (2, 'K', 'GBP');"
      "INSERT INTO ir_curve_input_rate VALUES (2, 0, 0, 0.03), (2, 1, 7305, 0.03);"
      "INSERT INTO bond (id, name, calendar_id, ir_curve_id, start_date, maturity_date, coupons_per_year, coupon) VALUES (3, 'B', 1, 2, '2020-01-01', '2030-01-01', 2, 0.05);"
      "INSERT INTO outright_trade VALUES (4, 'T', 3, '2024-01-01', 99.5, 10, 'BUY');"
      "INSERT INTO outright_trade VALUES (5, 'BAD', 42, '2024-01-01', 99.5, 10, 'BUY');";
  const std::string cmd = "sqlite3 " + db + " < " + test::source_dir() + "/schema/bond_risk.sql && sqlite3 " + db +
                          " \"" + sql + "\"";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const test::CliResult r = run_cli("run --batch --threads 0 --db " + db);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const test::CliResult show = run_cli("show --db " + db + " T BAD 3");
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_TRUE(contains(show.out, "outright_trade 4 (T): OK")) << show.out;
  EXPECT_TRUE(contains(show.out, "outright_trade 5 (BAD): FAILED (unknown bond id 42)")) << show.out;
}

TEST(Cli, ShowNamesAnUnknownIdAndExitsNonZero) {
  TinyDb db;
  ASSERT_EQ(run_cli("run --batch --db " + db.path).exit_code, 0);
  const test::CliResult r = run_cli("show --db " + db.path + " 4 987654");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.out, "bond 4"));
  EXPECT_TRUE(contains(r.err, "no calendar, curve, bond, trade or book has the id or name '987654'")) << r.err;
}

TEST(Cli, ShowWithoutAResultsDatabaseSaysSoAndExitsNonZero) {
  TinyDb db;
  const test::CliResult r = run_cli("show --db " + db.path + " 4");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.out, "bond 4 (BOND_4): no results database")) << r.out;
  EXPECT_TRUE(contains(r.err, "there is no results database " + db.dir.path("tiny.results.db"))) << r.err;
  EXPECT_TRUE(contains(r.err, "run bond_risk run --batch --db " + db.path)) << r.err;
}

TEST(Cli, MissingOrUnusableDatabasesGiveOneClearLine) {
  test::TempDir dir;
  const test::CliResult missing = run_cli("run --db " + dir.path("nope.db"));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(contains(missing.err, "database " + dir.path("nope.db") + " does not exist")) << missing.err;
  // Every command says it alike (show said SQLite's "unable to open database file").
  const test::CliResult show = run_cli("show --db " + dir.path("nope.db") + " 1");
  EXPECT_EQ(show.exit_code, 1);
  EXPECT_TRUE(contains(show.err, "database " + dir.path("nope.db") + " does not exist")) << show.err;
  // A usage error names the command once (it said "bond_risk: bond_risk show: ...").
  const test::CliResult option = run_cli("show --bogus");
  EXPECT_EQ(option.exit_code, 2);
  EXPECT_TRUE(contains(option.err, "bond_risk: show: unknown option --bogus (see bond_risk show --help)")) << option.err;

  std::ofstream(dir.path("text.db")) << "this is not a database, just some text that is long enough to be a header\n";
  const test::CliResult garbage = run_cli("run --db " + dir.path("text.db"));
  EXPECT_EQ(garbage.exit_code, 1);
  EXPECT_TRUE(contains(garbage.err, "not a usable SQLite database")) << garbage.err;

  test::make_db(dir.path("notable.db"), "DROP TABLE repo_book_trade;");
  const test::CliResult no_table = run_cli("run --db " + dir.path("notable.db"));
  EXPECT_EQ(no_table.exit_code, 1);
  EXPECT_TRUE(contains(no_table.err, "has no table repo_book_trade")) << no_table.err;

  test::make_db(dir.path("nocol.db"), "DROP TABLE bond; CREATE TABLE bond (id INTEGER PRIMARY KEY, name TEXT);");
  const test::CliResult no_column = run_cli("run --db " + dir.path("nocol.db"));
  EXPECT_EQ(no_column.exit_code, 1);
  EXPECT_TRUE(contains(no_column.err, "table bond has no column calendar_id")) << no_column.err;
}

TEST(Cli, BadFlagsAndSettingsAreNamed) {
  TinyDb db;
  struct Case {
    std::string args, env, message;
  };
  const std::vector<Case> cases = {
      {"run --db " + db.path + " --threads -1", "", "--threads is '-1'; it must be a whole number from 0 to 4096"},
      {"run --db " + db.path + " --threads abc", "", "--threads is 'abc'"},
      {"run --db " + db.path, "NUM_THREADS=-1", "NUM_THREADS (environment variable) is '-1'"},
      {"run --db " + db.path, "NUM_THREADS=abc", "NUM_THREADS (environment variable) is 'abc'"},
      {"run --db " + db.path + " --threads 4097", "", "from 0 to 4096"},
      {"run --db " + db.path + " --bogus", "", "unknown option --bogus"},
      {"run --db", "", "--db needs a value"},
      {"run --db " + db.path + " --grain 0", "", "--grain is '0'"},
      {"run --db " + db.path + " --flushes 0", "", "--flushes is '0'; it must be a whole number from 1 to 1000"},
      {"run --db " + db.path, "FLUSHES=many", "FLUSHES (environment variable) is 'many'"},
      {"run --db " + db.path, "BATCH_MODE=yes", "BATCH_MODE (environment variable) is 'yes'"},
      {"run --conf " + db.dir.path("missing.conf"), "", "cannot read conf file"},
      {"generate --preset 2M --out " + db.dir.path("x.db"), "", "unknown preset '2M' (presets: tiny, 100, 50k"},
      {"generate --preset tiny", "", "--preset and --out are required"},
      {"generate --preset tiny --out " + db.path, "", "already exists"},
      {"frobnicate", "", "unknown command 'frobnicate'"},
      {"run --db " + db.path + " --affinity 1000", "", "--affinity: CPU 1000 is not one this process may run on"},
      {"run --db " + db.path + " --affinity 0-x", "", "--affinity: 'x' in CPU list '0-x' is not a CPU number"},
      {"run --db " + db.path + " --master-cpu 1000", "", "--master-cpu: CPU 1000 is not one this process may run on"},
      {"run --db " + db.path + " --scheduler openmp", "", "--scheduler is 'openmp'; it must be pthreads or tbb"},
      {"run --db " + db.path + " --wait sleep", "", "--wait is 'sleep'; it must be block, busy or hybrid"},
  };
  for (const Case& c : cases) {
    const test::CliResult r = run_cli(c.args, c.env);
    EXPECT_EQ(r.exit_code, 2) << c.args << " " << c.env;
    EXPECT_TRUE(contains(r.err, c.message)) << c.args << " " << c.env << ": " << r.err;
  }
}

TEST(Cli, ThreadsTheSystemCannotStartAreAnErrorNotAHang) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer's shadow memory does not fit under the ulimit -v this test sets";
#endif
  // 600 MB of address space holds the model but not 4096 stacks of 1 MiB; the
  // limit on processes cannot be used, as root ignores it.
  TinyDb db;
  const std::string err = db.dir.path("err");
  const std::string cmd = "cd '" + test::source_dir() + "' && ulimit -v 600000 && timeout 120 '" +
                          std::getenv("BOND_RISK_BIN") + "' run --batch --db " + db.path +
                          " --threads 4096 >/dev/null 2>'" + err + "'";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  const std::string message = test::slurp(err);
  EXPECT_TRUE(contains(message, "could not start worker thread ")) << message;
  EXPECT_TRUE(contains(message, " of 4096 (")) << message;
  EXPECT_TRUE(contains(message, "lower NUM_THREADS")) << message;
}

TEST(Cli, BadConfValuesNameTheFileAndLine) {
  TinyDb db;
  std::ofstream(db.dir.path("bad.conf")) << "# comment\nAPP_DB=" << db.path << "\nNUM_THREADS=-1\n";
  const test::CliResult r = run_cli("run --conf " + db.dir.path("bad.conf"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "NUM_THREADS in " + db.dir.path("bad.conf") + " line 3 is '-1'")) << r.err;
  std::ofstream(db.dir.path("unknown.conf")) << "THREADS=2\n";
  const test::CliResult u = run_cli("run --conf " + db.dir.path("unknown.conf"));
  EXPECT_EQ(u.exit_code, 2);
  EXPECT_TRUE(contains(u.err, "unknown setting THREADS")) << u.err;
}

TEST(Cli, SettingsTakeFlagsOverEnvironmentOverConfOverDefaults) {
  TinyDb db;
  std::ofstream(db.dir.path("c.conf")) << "APP_DB=" << db.path << "\nNUM_THREADS=3\nGRAIN=5\n";
  const std::string conf = " --conf " + db.dir.path("c.conf");
  // CPU_AFFINITY defaults to all: worker i on the i-th CPU this process may run on.
  const std::string three = run_cli("run --batch" + conf).out;
  const std::string prefix = "Threads: 3 workers, scheduler pthreads, wait block, CPUs ";
  const std::size_t at = three.find(prefix);
  ASSERT_NE(at, std::string::npos) << three;
  const std::string listed = three.substr(at + prefix.size(), three.find(", grain 5.", at) - at - prefix.size());
  std::vector<int> first_three = test::cpus_allowed();
  first_three.resize(std::min<std::size_t>(3, first_three.size()));
  EXPECT_EQ(test::cpu_list(listed), first_three) << three;
  EXPECT_TRUE(contains(run_cli("run --batch" + conf, "NUM_THREADS=1 CPU_AFFINITY=").out,
                       "Threads: 1 workers, scheduler pthreads, wait block, grain 5."));
  EXPECT_TRUE(contains(run_cli("run --batch --threads 0" + conf, "NUM_THREADS=1").out, "Threads: 0 (single-threaded"));
  EXPECT_TRUE(contains(run_cli("run --batch --affinity all" + conf, "CPU_AFFINITY=").out, ", CPUs "));
  EXPECT_TRUE(contains(run_cli("run --batch --scheduler tbb" + conf).out, "scheduler tbb, grain 5."));
  // BATCH_MODE=1 from the environment writes results like --batch does.
  EXPECT_EQ(run_cli("run" + conf, "BATCH_MODE=1").exit_code, 0);
  EXPECT_EQ(run_cli("show --db " + db.path + " 4").exit_code, 0);
  EXPECT_FALSE(contains(run_cli("show --db " + db.path + " 4").out, "no results stored"));
}

TEST(Cli, ABatchRunThatFailsLeavesThePreviousResultsWhole) {
  TinyDb db;
  ASSERT_EQ(run_cli("run --batch --db " + db.path).exit_code, 0);
  // A trigger that rejects the last result row makes the write fail midway.
  {
    base::Database raw(db.dir.path("tiny.results.db"), base::Database::Mode::read_write);
    raw.exec("CREATE TRIGGER no_books BEFORE INSERT ON repo_book_result BEGIN SELECT RAISE(ABORT, 'refused'); END");
  }
  const test::CliResult r = run_cli("run --batch --db " + db.path);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "refused")) << r.err;
  base::Database check(db.dir.path("tiny.results.db"), base::Database::Mode::read_only);
  base::Statement st = check.prepare("SELECT (SELECT count(*) FROM bond_result), (SELECT count(*) FROM repo_book_result)");
  ASSERT_TRUE(st.step());
  EXPECT_EQ(st.integer(0), 6);
  EXPECT_EQ(st.integer(1), 4);
}

TEST(Cli, GenerateRefusesMoreDesksThanACurveHasBondsAndNeverLeavesItsTemporaryFile) {
  test::TempDir dir;
  auto files = [&] {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path(""))) names.push_back(entry.path().filename());
    std::ranges::sort(names);
    return names;
  };
  // tiny: 6 bonds on 2 curves, 3 a curve; a desk needs one of its own (it died of SIGFPE, leaving x.db.XXXXXX).
  const test::CliResult many = run_cli("generate --preset tiny --desks 4 --out " + dir.path("x.db"));
  EXPECT_EQ(many.exit_code, 2) << many.err;
  EXPECT_TRUE(contains(many.err, "--desks")) << many.err;
  EXPECT_TRUE(contains(many.err, "is '4'; it must be a whole number from 1 to 3")) << many.err;
  EXPECT_EQ(files(), std::vector<std::string>{});
  // A write that fails midway (files limited to 64 blocks) removes the temporary file too.
  const test::CliResult full =
      run_cli("generate --preset 100 --out " + dir.path("x.db"), "sh -c 'trap \"\" XFSZ; ulimit -f 64; exec \"$0\" \"$@\"'");
  EXPECT_EQ(full.exit_code, 1) << full.err;
  EXPECT_EQ(files(), std::vector<std::string>{});
  const test::CliResult three = run_cli("generate --preset tiny --desks 3 --out " + dir.path("x.db"));
  EXPECT_EQ(three.exit_code, 0) << three.err;
  EXPECT_EQ(files(), std::vector<std::string>{"x.db"});
}

TEST(Layers, TheCheckRefusesAnIncludeTheMatrixDoesNotAllowAndAcceptsTheTree) {
  const std::string script = test::source_dir() + "/scripts/check-layers.sh";
  EXPECT_EQ(std::system((script + " > /dev/null").c_str()), 0) << "the source tree breaks its layers";
  test::TempDir dir;
  std::filesystem::create_directories(dir.path("bond_risk/db"));
  std::filesystem::create_directories(dir.path("bond_risk/live"));
  std::filesystem::create_directories(dir.path("engine"));
  std::ofstream(dir.path("bond_risk/live/server.h")) << "#pragma once\n";
  std::ofstream(dir.path("engine/graph.h")) << "#pragma once\n";
  std::ofstream(dir.path("bond_risk/db/loader.cpp")) << "#include \"engine/graph.h\"\n#include <vector>\n";
  const std::string check = script + " " + dir.path("");
  // The check refuses the tree and names `refusal`.
  auto expect_refused = [&](const std::string& why, const std::string& refusal) {
    EXPECT_NE(std::system((check + " > " + dir.path("out") + " 2>&1").c_str()), 0) << why;
    EXPECT_NE(test::slurp(dir.path("out")).find(refusal), std::string::npos) << test::slurp(dir.path("out"));
  };
  EXPECT_EQ(std::system((check + " > /dev/null 2>&1").c_str()), 0) << "a lower layer is allowed";
  std::ofstream(dir.path("bond_risk/db/loader.cpp"), std::ios::app) << "#include \"bond_risk/live/server.h\"\n";
  expect_refused("db may not include live", "bond_risk/db/loader.cpp (db) includes bond_risk/live/server.h (live)");
  // engine/ sits on base/: it may use base's clocks, base may not use the engine.
  std::ofstream(dir.path("bond_risk/db/loader.cpp")) << "#include \"engine/graph.h\"\n";
  std::filesystem::create_directories(dir.path("base"));
  std::ofstream(dir.path("base/timing.h")) << "#pragma once\n";
  std::ofstream(dir.path("engine/graph.h")) << "#pragma once\n#include \"base/timing.h\"\n";
  EXPECT_EQ(std::system((check + " > /dev/null 2>&1").c_str()), 0) << "engine may include base";
  std::ofstream(dir.path("base/timing.h"), std::ios::app) << "#include \"engine/graph.h\"\n";
  expect_refused("base may not include engine", "base/timing.h (base) includes engine/graph.h (engine)");
  std::ofstream(dir.path("base/timing.h")) << "#pragma once\n";
  // Below its own, a layer uses only those its row of the matrix names: the gateway talks to the engine as a
  // client (the protocol), never to the engine's insides.
  std::filesystem::create_directories(dir.path("bond_risk/web"));
  std::filesystem::create_directories(dir.path("bond_risk/protocol"));
  std::ofstream(dir.path("bond_risk/protocol/messages.h")) << "#pragma once\n";
  std::ofstream(dir.path("bond_risk/web/feed.cpp")) << "#include \"bond_risk/protocol/messages.h\"\n#include \"base/timing.h\"\n";
  EXPECT_EQ(std::system((check + " > /dev/null 2>&1").c_str()), 0) << "web may include protocol and base";
  std::ofstream(dir.path("bond_risk/web/feed.cpp"), std::ios::app) << "#include \"bond_risk/live/server.h\"\n";
  expect_refused("web may not include live, a layer below it",
                 "bond_risk/web/feed.cpp (web) includes bond_risk/live/server.h (live)");
}

// `make web` in a terminal prints the desk page's URL at once, not when it
// ends (make's line sync held a running command's output until Ctrl-C).
// Run under `script` (a pseudo-terminal), on a tiny database, with the
// built binary (-o: make remakes neither).
TEST(Cli, MakeWebPrintsTheUrlAtOnceInATerminal) {
  TinyDb db;
  const std::string bin = std::getenv("BOND_RISK_BIN");
  const int port = test::free_port();
  const std::string make = "make --no-print-directory -C '" + test::source_dir() + "' web BIN='" + bin + "' DATA_440K='" +
                           db.path + "' -o '" + bin + "' -o '" + db.path + "'";
  const std::string log = db.dir.path("web.log");
  // Not the outer make's jobs and level (make test runs this test): a make of its own, as a user's.
  test::Process web({"/usr/bin/env", "-u", "MAKEFLAGS", "-u", "MFLAGS", "-u", "MAKELEVEL", "/usr/bin/setsid",
                     "/usr/bin/script", "-qefc", make, "/dev/null"},
                    log,
                    {"WEB_LISTEN=127.0.0.1:" + std::to_string(port)});
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  const bool shown = test::eventually([&] { return contains(test::slurp(log), url); }, std::chrono::seconds(10));
  kill(-web.pid(), SIGTERM);  // the session: make, the script, the engine and the gateway
  web.wait_for(std::chrono::seconds(20));
  EXPECT_TRUE(shown) << "no URL within 10 s; the output was:\n" << test::slurp(log);
}

// Live commands change the demo data for good; scripts/reset-data.sh (`make
// reset-data`) gives back the set as generated: the same results digest.
TEST(Cli, ResetDataGivesBackTheGeneratedSetAndItsDigest) {
  test::TempDir dir;
  const std::string db = dir.path("demo.db");
  ASSERT_EQ(run_cli("generate --preset tiny --out " + db).exit_code, 0);
  const auto digest = [&] {
    const test::CliResult r = run_cli("run --batch --db " + db);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out.substr(r.out.find("Results digest:"), 34);
  };
  const std::string generated = digest();
  base::Database(db, base::Database::Mode::read_write).exec("UPDATE outright_trade SET quantity = quantity + 5");
  ASSERT_NE(digest(), generated);
  const std::string reset = "cd '" + test::source_dir() + "' && scripts/reset-data.sh '" + std::getenv("BOND_RISK_BIN") +
                            "' '" + db + "' tiny > /dev/null 2>&1";
  ASSERT_EQ(std::system(reset.c_str()), 0);
  EXPECT_EQ(digest(), generated);
}

// A misspelt scenario set is answered at once, naming the sets there are:
// `scenarios` before it loads and flushes the database, `plot pnl` instead
// of advising a `scenarios` run that would fail the same way.
TEST(Cli, AMisspeltScenarioSetIsAnsweredFirstNamingTheSetsThereAre) {
  TinyDb db;
  const test::CliResult scenarios = run_cli("scenarios --db " + db.path + " --set histrical");
  EXPECT_EQ(scenarios.exit_code, 2) << scenarios.err;
  EXPECT_TRUE(contains(scenarios.err, "no scenario set 'histrical'")) << scenarios.err;
  EXPECT_TRUE(contains(scenarios.err, "historical, ladder")) << scenarios.err;
  EXPECT_FALSE(contains(scenarios.out, "Loaded")) << "it loaded the database first: " << scenarios.out;
  const test::CliResult plot = run_cli("plot pnl --set histrical --db " + db.path);
  EXPECT_EQ(plot.exit_code, 2) << plot.err;
  EXPECT_TRUE(contains(plot.err, "historical, ladder")) << plot.err;
  EXPECT_FALSE(contains(plot.err, "scenarios --set histrical")) << plot.err;
}

// `send` prints indented JSON for a person (--pretty; the default on a
// terminal) and one line per reply into a pipe (--raw; the default there).
TEST(Cli, SendPrintsIndentedJsonForAPersonAndLinesForAPipe) {
  TinyDb db;
  const std::string sock = db.dir.path("e.sock");
  test::EngineProcess engine(db.path, sock, db.dir.path("engine.log"));
  ASSERT_TRUE(engine.ready());
  const test::CliResult pretty = run_cli("send --socket " + sock + " --pretty get 1");
  EXPECT_EQ(pretty.exit_code, 0) << pretty.err;
  EXPECT_GT(std::count(pretty.out.begin(), pretty.out.end(), '\n'), 3) << pretty.out;
  EXPECT_TRUE(contains(pretty.out, "\n  \"ok\": true")) << pretty.out;
  const test::CliResult raw = run_cli("send --socket " + sock + " get 1");
  EXPECT_EQ(std::count(raw.out.begin(), raw.out.end(), '\n'), 1) << raw.out;
  EXPECT_EQ(base::Json::parse(raw.out)["ok"], true);
  EXPECT_EQ(run_cli("send --socket " + sock + " --raw --pretty get 1").exit_code, 2);
  EXPECT_EQ(run_cli("send --socket " + sock + " shutdown").exit_code, 0);
}
