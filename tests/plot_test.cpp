// `plot` draws names and paths that come from data and flags: none of them
// may run as gnuplot code, however it is spelled.
#include <gtest/gtest.h>

#include <filesystem>

#include "base/sqlite.h"
#include "bond_risk/synth/generator.h"
#include "tests/test_support.h"

using namespace bond_risk;

namespace {

// Spliced into a gnuplot script, this ends the string it is in (quoted
// either way) and runs a shell command making the file $PLOT_MARKER names.
const std::string kHostile = "x'\nsystem \"touch $PLOT_MARKER\"\n'\"\nsystem \"touch $PLOT_MARKER\"\n\"";

}  // namespace

TEST(Plot, NamesFromDataAndFlagsNeverRunAsGnuplotCode) {
  test::TempDir dir;
  const std::string db = dir.path("plot.db"), marker = dir.path("PWNED"), env = "PLOT_MARKER=" + marker;
  generate(find_preset("100"), {.seed = 5, .book_size = 10}, db);
  {
    base::Database conn(db, base::Database::Mode::read_write);
    for (const char* sql : {"UPDATE outright_book SET name = ? || id", "UPDATE ir_curve SET name = ? || id",
                            "UPDATE scenario_set SET name = ? || name"}) {
      base::Statement rename = conn.prepare(sql);
      rename.bind(1, kHostile);
      rename.step();
    }
    conn.exec("UPDATE scenario SET set_name = (SELECT name FROM scenario_set WHERE name LIKE '%historical')"
              " WHERE set_name = 'historical'");
  }
  ASSERT_EQ(test::run_cli("run --batch --threads 2 --db " + db).exit_code, 0);
  base::Database conn(db, base::Database::Mode::read_only);
  base::Statement book = conn.prepare("SELECT min(id) FROM outright_book");
  ASSERT_TRUE(book.step());
  const std::string book_id = std::to_string(book.integer(0));
  // Shell words for run_cli: the hostile text inside single quotes.
  const std::string word = "'x'\"'\"'\nsystem \"touch $PLOT_MARKER\"\n'\"'\"''";

  // The output path is a flag: a newline and quotes in it are part of the file's name.
  const test::CliResult ladder = test::run_cli("plot ladder " + book_id + " --db " + db + " --out " + dir.path("") + word, env);
  EXPECT_EQ(ladder.exit_code, 0) << ladder.err;
  EXPECT_EQ(test::slurp(dir.path("x'\nsystem \"touch $PLOT_MARKER\"\n'")).substr(0, 4), "\x89PNG");
  EXPECT_FALSE(std::filesystem::exists(marker)) << "a name ran as gnuplot code";

  const std::string set = "'" + kHostile.substr(0, kHostile.find('\'')) + "'\"'\"'" + "\nsystem \"touch $PLOT_MARKER\"\n" +
                          "'\"'\"'\"\nsystem \"touch $PLOT_MARKER\"\n\"historical'";
  const test::CliResult scenarios = test::run_cli("scenarios --db " + db + " --set " + set, env);
  ASSERT_EQ(scenarios.exit_code, 0) << scenarios.err;
  const test::CliResult pnl = test::run_cli("plot pnl --db " + db + " --set " + set + " " + book_id + " --out " + dir.path("pnl.png"), env);
  EXPECT_EQ(pnl.exit_code, 0) << pnl.err;
  EXPECT_EQ(test::slurp(dir.path("pnl.png")).substr(0, 4), "\x89PNG");
  EXPECT_FALSE(std::filesystem::exists(marker)) << "a name ran as gnuplot code";
}

// gnuplot opens a file name that starts with '|' or '<' as a pipe through a
// shell: an output path, the data file beside it, or a book's name in the
// default output must each be written as a plain file of that name.
TEST(Plot, PathsAndNamesThatGnuplotWouldOpenAsPipesAreFiles) {
  test::TempDir dir;
  const std::string db = dir.path("plot.db"), marker = dir.path("PWNED"), env = "PLOT_MARKER=" + marker;
  generate(find_preset("100"), {.seed = 5, .book_size = 10}, db);
  {
    base::Database conn(db, base::Database::Mode::read_write);
    conn.exec("UPDATE outright_book SET name = '<touch $PLOT_MARKER>X' WHERE id = (SELECT min(id) FROM outright_book)");
  }
  ASSERT_EQ(test::run_cli("run --batch --threads 2 --db " + db).exit_code, 0);
  for (const std::string& out : {std::string("|touch $PLOT_MARKER"), std::string("<touch $PLOT_MARKER>X.png")}) {
    const test::CliResult r =
        test::run_cli("plot ladder '<touch $PLOT_MARKER>X' --db " + db + " --out '" + out + "'", env, dir.path(""));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(test::slurp(dir.path(out)).substr(0, 4), "\x89PNG") << out;
    EXPECT_TRUE(std::filesystem::exists(dir.path(out + ".dat"))) << out;
    EXPECT_FALSE(std::filesystem::exists(marker)) << "gnuplot ran a shell command for " << out;
  }
  // The default output is named after the book.
  const test::CliResult named = test::run_cli("plot ladder '<touch $PLOT_MARKER>X' --db " + db, env, dir.path(""));
  EXPECT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(test::slurp(dir.path("<touch $PLOT_MARKER>X-ladder.png")).substr(0, 4), "\x89PNG");
  EXPECT_FALSE(std::filesystem::exists(marker)) << "gnuplot ran a shell command";
}
