// bin/bond_risk_mpi under mpirun (OpenMPI, --oversubscribe: more ranks than
// this machine's cores): the scenario tables of 1, 2, 3 and 12 ranks, split by
// scenario and by book, are those of one `bond_risk scenarios` process, bit
// for bit; a failing job ends, saying which rank failed.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>
#include <vector>

#include "base/sqlite.h"
#include "bond_risk/db/scenario_sets.h"
#include "tests/test_support.h"

namespace {

struct MpiRun {
  int exit_code;
  std::string output;
};

// `mpirun -np RANKS bond_risk_mpi ARGS` (as root too, as OpenMPI documents), its output and exit code.
// Under AddressSanitizer the ranks do not report leaks at exit: OpenMPI's own
// allocations (thousands, in its dlopen'ed components) are never freed.
// ThreadSanitizer's suppressions (tests/tsan.supp) name OpenMPI's transport.
// An mpirun that outlives its ranks (seen once under ThreadSanitizer, after
// an MPI_Abort: both ranks exited, mpirun slept on and ignored SIGTERM) is
// killed 10 s after the timeout's SIGTERM, so that the suite never hangs.
MpiRun mpirun(int ranks, const std::string& args, const test::TempDir& dir, const std::string& options = "") {
  const char* bin = std::getenv("BOND_RISK_MPI_BIN");
  if (!bin) throw std::runtime_error("BOND_RISK_MPI_BIN is not set; run the tests with make test (with OpenMPI installed)");
  const std::string log = dir.path("mpirun.log");
  const std::string cmd = "ASAN_OPTIONS=detect_leaks=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                          "timeout -k 10 300 mpirun --oversubscribe " + options + " -np " + std::to_string(ranks) + " '" + bin + "' " + args +
                          " > '" + log + "' 2>&1 < /dev/null";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, test::slurp(log)};
}

// Rows of `table` in one scenario results database and not the other (either way), exact values compared.
long long differing_rows(const std::string& a, const std::string& b, const std::string& table) {
  base::Database db(a, base::Database::Mode::read_only);
  db.exec("ATTACH '" + b + "' AS other");
  base::Statement st = db.prepare("SELECT (SELECT count(*) FROM (SELECT * FROM main." + table + " EXCEPT SELECT * FROM other." +
                                  table + ")) + (SELECT count(*) FROM (SELECT * FROM other." + table +
                                  " EXCEPT SELECT * FROM main." + table + "))");
  st.step();
  return st.integer(0);
}

// The scenario results database beside an input database.
std::string results_of(const std::string& db) { return bond_risk::scenario_results_path(db); }

long long rows(const std::string& db_path, const std::string& table) {
  base::Database db(db_path, base::Database::Mode::read_only);
  base::Statement st = db.prepare("SELECT count(*) FROM " + table);
  st.step();
  return st.integer(0);
}

}  // namespace

TEST(Mpi, VersionPrintsTheVersionFileAndTheCommitBuiltFrom) {
  test::TempDir dir;
  const MpiRun r = mpirun(1, "--version", dir);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::string version = test::slurp(test::source_dir() + "/VERSION");
  version.erase(version.find_last_not_of(" \n") + 1);
  EXPECT_TRUE(std::regex_search(r.output, std::regex("bond_risk_mpi " + version + R"( \(commit ([0-9a-f]{12}|unknown)\)\n)")))
      << r.output;
  EXPECT_NE(mpirun(1, "--help", dir).output.find("--version"), std::string::npos) << "--help names it";
}

TEST(Mpi, ByScenarioAndByBookTheTablesOfAnyNumberOfRanksAreThoseOfOneProcess) {
  test::TempDir dir;
  const std::string one = dir.path("one.db");
  ASSERT_EQ(test::run_cli("generate --preset 100 --book-size 10 --out " + one).exit_code, 0);  // 10 books
  const test::CliResult single = test::run_cli("scenarios --db " + one + " --threads 2");
  ASSERT_EQ(single.exit_code, 0) << single.err;
  ASSERT_GT(rows(results_of(one), "scenario_pnl"), 0);
  ASSERT_GT(rows(results_of(one), "scenario_var"), 0);
  // By book, 3 ranks deal the 10 books unevenly, and 12 ranks leave two ranks with none.
  for (const std::string split : {"scenarios", "books"}) {
    for (int ranks : {1, 2, 3, 12}) {
      const std::string label = split + ", " + std::to_string(ranks) + " ranks";
      const std::string db = dir.path(split + std::to_string(ranks) + ".db");
      std::filesystem::copy_file(one, db);
      const MpiRun run = mpirun(ranks, "scenarios --db " + db + " --split " + split, dir);
      ASSERT_EQ(run.exit_code, 0) << label << "\n" << run.output;
      EXPECT_NE(run.output.find("rank  load s"), std::string::npos) << run.output;
      for (const char* table : {"scenario_pnl", "scenario_var"}) {
        EXPECT_EQ(rows(results_of(db), table), rows(results_of(one), table)) << label << ", " << table;
        EXPECT_EQ(differing_rows(results_of(one), results_of(db), table), 0) << label << ", " << table;
      }
    }
  }
}

TEST(Mpi, AJobWhoseRanksFailEndsSayingWhichRank) {
  test::TempDir dir;
  const std::string bad = dir.path("bad.db");
  std::FILE* f = std::fopen(bad.c_str(), "w");
  std::fputs("not a database\n", f);
  std::fclose(f);
  const MpiRun run = mpirun(2, "scenarios --db " + bad, dir);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.output.find("rank "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("bad.db"), std::string::npos) << run.output;
}

TEST(Mpi, RanksThatReadDifferentInputsEndTheJobSayingWhichRank) {
  test::TempDir dir;
  const std::string db = dir.path("r0.db"), other = dir.path("r1.db");
  ASSERT_EQ(test::run_cli("generate --preset 100 --book-size 10 --out " + db).exit_code, 0);
  // Rank 0 reads `db`, rank 1 `other` (mpirun's MPMD form: one program and its arguments per rank).
  const std::string bin = std::getenv("BOND_RISK_MPI_BIN");
  auto with_rank1_reading = [&](const std::string& sql) {
    std::filesystem::remove(other);
    std::filesystem::copy_file(db, other);
    base::Database(other, base::Database::Mode::read_write).exec(sql);
    return mpirun(1, "scenarios --set historical --db " + db + " : -np 1 '" + bin + "' scenarios --set historical --db " + other,
                  dir);
  };
  // Rank 1's database has no such set: the job ends at once (it hung, rank 0 waiting for rank 1).
  const MpiRun missing = with_rank1_reading("DELETE FROM scenario WHERE set_name = 'historical'");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("rank 1 of 2: no scenario set 'historical'"), std::string::npos) << missing.output;
  // Rank 1 reads other shifts, or one scenario fewer: the job ends before it writes a row (it wrote
  // rank 1's half of the P&L from the other inputs and exited 0).
  const MpiRun shifted = with_rank1_reading("UPDATE scenario_shift SET shift_bp = shift_bp + 1 WHERE scenario_id = "
                                            "(SELECT max(id) FROM scenario WHERE set_name = 'historical')");
  EXPECT_EQ(shifted.exit_code, 1) << shifted.output;
  EXPECT_NE(shifted.output.find("rank 1 of 2 read other inputs than rank 0"), std::string::npos) << shifted.output;
  EXPECT_NE(shifted.output.find("rank 1: set historical: 500 scenarios"), std::string::npos) << shifted.output;
  const MpiRun fewer = with_rank1_reading("DELETE FROM scenario WHERE name = 'day-500'");
  EXPECT_EQ(fewer.exit_code, 1) << fewer.output;
  EXPECT_NE(fewer.output.find("rank 1: set historical: 499 scenarios"), std::string::npos) << fewer.output;
  EXPECT_FALSE(std::filesystem::exists(results_of(db))) << "a job whose ranks disagree wrote results";
  // The same database on both: the check passes.
  const MpiRun same = with_rank1_reading("SELECT 1");
  EXPECT_EQ(same.exit_code, 0) << same.output;
}

TEST(Mpi, ASetWithNoUsableScenarioEndsTheJobWithoutVar) {
  test::TempDir dir;
  const std::string db = dir.path("v.db");
  ASSERT_EQ(test::run_cli("generate --preset tiny --out " + db).exit_code, 0);
  base::Database(db, base::Database::Mode::read_write).exec("UPDATE scenario_shift SET ir_curve_id = ir_curve_id + 1000");
  const MpiRun run = mpirun(2, "scenarios --set historical --db " + db, dir);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.output.find("scenario set 'historical' has no usable scenario, so no VaR or ES: all 500 of its "
                            "scenarios were left out"),
            std::string::npos)
      << run.output;
  EXPECT_EQ(run.output.find("VaR 99%"), std::string::npos) << run.output;
  EXPECT_EQ(rows(results_of(db), "scenario_var"), 0);
}

TEST(Mpi, RanksOnOneMachineThatMayUseTheSameCpusPinTheirWorkersToDifferentOnes) {
  test::TempDir dir;
  const std::string db = dir.path("m.db");
  ASSERT_EQ(test::run_cli("generate --preset 100 --book-size 10 --out " + db).exit_code, 0);
  // Unbound, both ranks may run on every CPU; each pins its one worker (CPU_AFFINITY=all): rank 0 on the
  // first CPU this process may use, rank 1 on the second (the first again if there is one).
  const MpiRun run = mpirun(2, "scenarios --db " + db + " --threads 1", dir, "--bind-to none");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::size_t header = run.output.find("worker CPUs\n");
  ASSERT_NE(header, std::string::npos) << run.output;
  std::istringstream rows(run.output.substr(header + 12));
  const std::vector<int> allowed = test::cpus_allowed();
  for (std::size_t rank = 0; rank < 2; ++rank) {
    std::string row;
    ASSERT_TRUE(std::getline(rows, row)) << run.output;
    EXPECT_EQ(test::cpu_list(row.substr(row.rfind(' ') + 1)), std::vector<int>{allowed[rank % allowed.size()]})
        << "rank " << rank << "\n" << run.output;
  }
}
