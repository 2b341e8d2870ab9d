// bench/run_benchmark.sh end to end on the tiny preset: the CSV it writes and
// the plots gnuplot draws from it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/test_support.h"

namespace {

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> fields_of(const std::string& row) {
  std::vector<std::string> fields;
  std::stringstream ss(row);
  for (std::string f; std::getline(ss, f, ',');) fields.push_back(f);
  return fields;
}

}  // namespace

TEST(Benchmark, WritesTheCsvTheTimelineTheReportAndValidPlots) {
  test::TempDir dir;
  const std::string db = dir.path("tiny.db"), out = dir.path("out");
  ASSERT_EQ(test::run_cli("generate --preset tiny --out " + db).exit_code, 0);
  const std::string cmd = "cd '" + test::source_dir() + "' && BOND_RISK_BIN='" + std::getenv("BOND_RISK_BIN") +
                          "' bench/run_benchmark.sh --db " + db + " --out " + out +
                          " --threads '0 2' --repeat 1 --flushes 3 --schedulers 'pthreads tbb' --wait block > " +
                          dir.path("log") + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << test::slurp(dir.path("log"));

  const std::vector<std::string> rows = lines_of(out + "/results.csv");
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0],
            "variant,scheduler,wait_policy,threads,run,flush_seconds,tier1_seconds,tier2_seconds,tier3_seconds,"
            "tier4_seconds,load_seconds,voluntary_cs,involuntary_cs,system_cs,peak_rss_kb,digest,startup_flush_seconds");
  // 10 single-threaded runs, then one run of each of the two series at 2 threads.
  ASSERT_EQ(rows.size(), 1u + 10u + 2u);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const std::vector<std::string> f = fields_of(rows[i]);
    ASSERT_EQ(f.size(), 17u) << rows[i];
    const std::string point = f[1] + "," + f[2] + "," + f[3];
    EXPECT_EQ(point, i <= 10 ? "-,-,0" : i == 11 ? "pthreads,block,2" : "tbb,-,2") << rows[i];
    EXPECT_GT(std::stod(f[5]), 0.0) << rows[i];         // flush seconds
    EXPECT_EQ(f[15], fields_of(rows[1])[15]) << rows[i];  // the same results digest
  }
  // A run's duration is the middle one of its three flushes; the first is the start-up flush.
  const std::vector<std::string> pthreads_run = fields_of(rows[11]);
  const std::string json = test::slurp(out + "/runs/custom-pthreads-block-2-1.json");
  const auto at = json.find("\"flush_repeat_seconds\": [");
  ASSERT_NE(at, std::string::npos) << json;
  std::vector<std::string> flushes = fields_of(json.substr(at + 25, json.find(']', at) - at - 25));
  ASSERT_EQ(flushes.size(), 3u) << json;
  for (std::string& s : flushes) s.erase(0, s.find_first_not_of(" \n"));
  EXPECT_EQ(std::stod(pthreads_run[16]), std::stod(flushes[0]));
  std::sort(flushes.begin(), flushes.end(), [](const std::string& a, const std::string& b) { return std::stod(a) < std::stod(b); });
  EXPECT_EQ(std::stod(pthreads_run[5]), std::stod(flushes[1]));

  EXPECT_GT(lines_of(out + "/cs_timeline.csv").size(), 1u);
  EXPECT_NE(test::slurp(out + "/host.txt").find("cores: "), std::string::npos);
  const std::string report = test::slurp(out + "/report.md");
  EXPECT_NE(report.find("## Single-threaded"), std::string::npos);
  EXPECT_NE(report.find("**Best:**"), std::string::npos);
  for (const char* png : {"duration_vs_threads", "duration_and_cs_vs_threads", "cs_per_second", "speedup"}) {
    const std::string bytes = test::slurp(out + "/" + png + ".png");
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << png;
    EXPECT_GT(bytes.size(), 5000u) << png;
    EXPECT_NE(bytes.find("IEND"), std::string::npos) << png;
  }
}

TEST(Benchmark, CompareFlagsARegressionOverTenPercent) {
  test::TempDir dir;
  auto summary = [&](const std::string& name, const char* st, const char* best) {
    const std::string d = dir.path(name);
    std::system(("mkdir -p " + d).c_str());
    std::ofstream(d + "/summary.csv") << "series,threads,runs,mean_seconds,stddev_seconds,min_seconds,max_seconds,"
                                         "process_cs_per_run,system_cs_per_run\n"
                                      << "O3/single-threaded,0,10," << st << ",0,0,0,0,0\n"
                                      << "O3/pthreads/block,2,3," << best << ",0,0,0,0,0\n";
    return d;
  };
  const std::string base = summary("old", "0.020000", "0.010000");
  const std::string same = summary("same", "0.021000", "0.010500");
  const std::string slow = summary("slow", "0.020000", "0.012000");
  const std::string src = test::source_dir();
  EXPECT_EQ(std::system(("cd " + src + " && bench/compare.sh " + base + " " + same + " >/dev/null").c_str()), 0);
  EXPECT_NE(std::system(("cd " + src + " && bench/compare.sh " + base + " " + slow + " >/dev/null").c_str()), 0);
}
