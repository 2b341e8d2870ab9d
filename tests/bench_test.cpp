// bench/run_benchmark.sh end to end on the tiny preset: the CSV it writes and
// the plots gnuplot draws from it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "base/percentile.h"
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
            "tier4_seconds,tier5_seconds,load_seconds,voluntary_cs,involuntary_cs,system_cs,peak_rss_kb,digest,startup_flush_seconds");
  // 10 single-threaded runs, then one run of each of the two series at 2 threads.
  ASSERT_EQ(rows.size(), 1u + 10u + 2u);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const std::vector<std::string> f = fields_of(rows[i]);
    ASSERT_EQ(f.size(), 18u) << rows[i];
    const std::string point = f[1] + "," + f[2] + "," + f[3];
    EXPECT_EQ(point, i <= 10 ? "-,-,0" : i == 11 ? "pthreads,block,2" : "tbb,-,2") << rows[i];
    EXPECT_GT(std::stod(f[5]), 0.0) << rows[i];         // flush seconds
    EXPECT_EQ(f[16], fields_of(rows[1])[16]) << rows[i];  // the same results digest
  }
  // A run's duration is the middle one of its three flushes; the first is the start-up flush.
  const std::vector<std::string> pthreads_run = fields_of(rows[11]);
  const std::string json = test::slurp(out + "/runs/custom-pthreads-block-2-1.json");
  const auto at = json.find("\"flush_repeat_seconds\": [");
  ASSERT_NE(at, std::string::npos) << json;
  std::vector<std::string> flushes = fields_of(json.substr(at + 25, json.find(']', at) - at - 25));
  ASSERT_EQ(flushes.size(), 3u) << json;
  for (std::string& s : flushes) s.erase(0, s.find_first_not_of(" \n"));
  EXPECT_EQ(std::stod(pthreads_run[17]), std::stod(flushes[0]));  // the start-up flush
  std::sort(flushes.begin(), flushes.end(), [](const std::string& a, const std::string& b) { return std::stod(a) < std::stod(b); });
  EXPECT_EQ(std::stod(pthreads_run[5]), std::stod(flushes[1]));

  EXPECT_GT(lines_of(out + "/cs_timeline.csv").size(), 1u);
  EXPECT_NE(test::slurp(out + "/host.txt").find("cores: "), std::string::npos);
  const std::string report = test::slurp(out + "/report.md");
  EXPECT_NE(report.find("## Single-threaded"), std::string::npos);
  // One run a point: no best, and the report says why (a best from single runs presented noise as a result).
  EXPECT_EQ(report.find("**Best:**"), std::string::npos) << report;
  EXPECT_NE(report.find("A smoke test, not a result"), std::string::npos) << report;
  EXPECT_NE(report.find("- (one run)"), std::string::npos) << "no standard deviation of one run";
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

TEST(Benchmark, CompareResultsChecksStatusesRowsAndDifferencesRelativeToTheirTerms) {
  test::TempDir dir;
  // A bond_result table as `run --batch` writes it, with one bond's status, price, pv01 and yield (an older
  // binary's table: no yield column).
  auto results = [&](const std::string& name, const char* status, const char* price, const char* pv01,
                     bool second_bond = true, const char* yield = "0.0406713425961236") {
    const std::string path = dir.path(name);
    const bool with_yield = yield != nullptr;
    std::string sql = "CREATE TABLE bond_result (id INTEGER PRIMARY KEY, status TEXT NOT NULL, reason TEXT NOT NULL,"
                      " price REAL, pv01 REAL" + std::string(with_yield ? ", yield REAL" : "") + ");"
                      "INSERT INTO bond_result VALUES (1, '" + std::string(status) + "', '', " + price + ", " + pv01 +
                      (with_yield ? ", " + std::string(yield) : "") + ");";
    if (second_bond) sql += "INSERT INTO bond_result VALUES (2, 'OK', '', 99.5, -0.04" + std::string(with_yield ? ", 0.05" : "") + ");";
    EXPECT_EQ(std::system(("sqlite3 " + path + " \"" + sql + "\"").c_str()), 0);
    return path;
  };
  const std::string old_db = results("old.db", "OK", "101.689746670044", "-0.00111364541186987");
  auto compare = [&](const std::string& new_db) {
    const int rc = std::system(("cd " + test::source_dir() + " && bench/compare_results.sh " + old_db + " " + new_db +
                                " >/dev/null 2>&1").c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  };
  EXPECT_EQ(compare(results("same.db", "OK", "101.689746670044", "-0.00111364541186987")), 0);
  // pv01 of a bond 40 days from maturity: 1.3e-11 of itself, 1.4e-16 of its price (the terms it is the difference of).
  EXPECT_EQ(compare(results("pv01.db", "OK", "101.689746670044", "-0.00111364541188408")), 0);
  EXPECT_EQ(compare(results("price.db", "OK", "101.689746680044", "-0.00111364541186987")), 1);  // 1e-10 of the price
  EXPECT_EQ(compare(results("status.db", "STALE", "101.689746670044", "-0.00111364541186987")), 1);
  EXPECT_EQ(compare(results("fewer.db", "OK", "101.689746670044", "-0.00111364541186987", false)), 1);
  // A quote analytics column is compared too: a yield 1e-10 of itself apart fails; one table without it is skipped.
  EXPECT_EQ(compare(results("yield.db", "OK", "101.689746670044", "-0.00111364541186987", true, "0.0406713425920565")), 1);
  EXPECT_EQ(compare(results("older.db", "OK", "101.689746670044", "-0.00111364541186987", true, nullptr)), 0);
}

namespace {

// A CSV's rows (after its header) split into fields.
std::vector<std::vector<std::string>> rows_of(const std::string& path, const std::string& header) {
  const std::vector<std::string> lines = lines_of(path);
  EXPECT_FALSE(lines.empty()) << path;
  if (lines.empty()) return {};
  EXPECT_EQ(lines[0], header) << path;
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 1; i < lines.size(); ++i) rows.push_back(fields_of(lines[i]));
  return rows;
}

// Fields [first, last) of a row are latencies in rising order (percentiles, then max).
void expect_rising(const std::vector<std::string>& row, std::size_t first, std::size_t last) {
  ASSERT_GE(row.size(), last);
  for (std::size_t i = first; i + 1 < last; ++i) {
    EXPECT_LE(std::stod(row[i]), std::stod(row[i + 1])) << "field " << i << " of " << ::testing::PrintToString(row);
  }
  EXPECT_GT(std::stod(row[first]), 0.0);
}

}  // namespace

// bench/run_events.sh end to end on the tiny preset, with small sizes: every
// CSV, the report and the plots; then bench/compare.sh on event directories.
TEST(Benchmark, EventRunWritesEveryTableThePlotsAndTheReport) {
  test::TempDir dir;
  const std::string db = dir.path("tiny.db"), out = dir.path("events");
  ASSERT_EQ(test::run_cli("generate --preset tiny --out " + db).exit_code, 0);
  const std::string cmd = "cd '" + test::source_dir() + "' && BOND_RISK_BIN='" + std::getenv("BOND_RISK_BIN") +
                          "' bench/run_events.sh --db " + db + " --out " + out +
                          " --rates '200 400' --seconds 0.3 --bursts '1 10' --burst-commands 20 --slow 50"
                          " --slow-events 3 --trades 400 --step 200 --count 300 --repeats 2"
                          " --tick-rate 100 --tick-bonds 5 --window 64 > " +
                          dir.path("log") + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << test::slurp(dir.path("log"));

  // Offered rates: the two asked for, then doubled while the engine kept up; the last one it did not.
  const auto rates = rows_of(out + "/rates.csv", "label,offered_per_s,achieved_per_s,kept_up,commands,p50_us,p90_us,"
                                                 "p99_us,p99.9_us,p99.99_us,max_us");
  ASSERT_GE(rates.size(), 2u);
  EXPECT_EQ(rates[0][1], "200");
  EXPECT_EQ(rates[1][1], "400");
  for (std::size_t i = 2; i < rates.size(); ++i) {
    EXPECT_EQ(rates[i - 1][3], "1") << "a rate was doubled after one the engine did not keep up with";
    EXPECT_EQ(std::stol(rates[i][1]), 2 * std::stol(rates[i - 1][1]));
  }
  EXPECT_EQ(rates.back()[3], "0") << "the doubling stops where the engine falls behind";
  for (const auto& r : rates) expect_rising(r, 5, 11);

  // Bursts and the slow rate, per wait policy: amendments, bookings and their removals.
  const auto patterns = rows_of(out + "/patterns.csv", "label,pattern,command,commands,p50_us,p75_us,p90_us,p99_us,"
                                                       "p99.9_us,p99.99_us,worst1_us,worst2_us,worst3_us");
  ASSERT_EQ(patterns.size(), 2u * (2 * 3 + 1));
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    const auto& p = patterns[i];
    EXPECT_EQ(p[0], i < 7 ? "block" : "busy");
    const std::size_t k = i % 7;
    EXPECT_EQ(p[1], k < 3 ? "burst 1" : k < 6 ? "burst 10" : "50/s");
    const char* commands[] = {"amendment", "booking", "removal"};
    EXPECT_EQ(p[2], k == 6 ? "amendment" : commands[k % 3]);
    EXPECT_EQ(p[3], k < 6 ? "20" : "3");  // 20 bursts of 1 and 2 of 10 (--burst-commands 20); 3 slow events
    expect_rising(p, 4, 10);
  }

  // Memory: a row before booking and after each step; the engine numbered one event per booking.
  const auto memory = rows_of(out + "/memory.csv",
                              "label,trades_booked,vm_peak_kb,vm_rss_kb,db_bytes,wal_bytes,last_event,step_seconds");
  ASSERT_EQ(memory.size(), 3u);
  for (std::size_t i = 0; i < memory.size(); ++i) {
    EXPECT_EQ(std::stol(memory[i][1]), 200 * static_cast<long>(i));
    EXPECT_GT(std::stol(memory[i][3]), 1000) << "VmRSS in kB";
    EXPECT_GE(std::stol(memory[i][2]), std::stol(memory[i][3])) << "VmPeak is at least VmRSS";
    if (i > 0) {
      EXPECT_EQ(std::stol(memory[i][6]) - std::stol(memory[i - 1][6]), 200);
    }
  }

  // Round trips: at the highest offered rate the engine kept up with, its p99 under 10 ms (1000/s if
  // none), at most 50,000/s.
  const auto trips = rows_of(out + "/roundtrip.csv",
                             "label,repeat,offered_per_s,achieved_per_s,commands,min_us,median_us,average_us,p50_us,"
                             "p75_us,p90_us,p99_us,p99.9_us,p99.99_us,max_us");
  ASSERT_EQ(trips.size(), 2u);
  double best = 0;
  for (const auto& r : rates) {
    if (r[3] == "1" && std::stod(r[7]) < 10000) best = std::max(best, std::stod(r[1]));
  }
  for (const auto& t : trips) {
    EXPECT_EQ(std::stod(t[2]), best == 0 ? 1000 : std::min(best, 50000.0));  // at most --max-rate, 50000
    EXPECT_EQ(t[4], "300");
    EXPECT_LE(std::stod(t[5]), std::stod(t[8]));  // min <= p50 <= max, min <= average <= max
    EXPECT_LE(std::stod(t[5]), std::stod(t[7]));
    EXPECT_LE(std::stod(t[7]), std::stod(t[14]));
  }
  EXPECT_FALSE(rows_of(out + "/roundtrip_histogram.csv", "label,repeat,upper_us,count").empty());

  // Capacity: six workloads per synchronous setting, the engine's phases within the client's wall time.
  const auto capacity = rows_of(out + "/capacity.csv",
                                "label,workload,commands,seconds,per_s,batches_per_1000,parse_us,apply_us,recalculate_us,recalculate_rest_us,"
                                "pnl_explain_us,limit_checks_us,limit_alerts_us,read_us,commit_us,reply_us,publish_us,engine_us,"
                                "wall_us");
  ASSERT_EQ(capacity.size(), 18u);
  for (std::size_t i = 0; i < capacity.size(); ++i) {
    const auto& c = capacity[i];
    const char* settings[] = {"FULL", "NORMAL", "OFF"};
    EXPECT_EQ(c[0], settings[i / 6]);
    EXPECT_GT(std::stod(c[2]), 0) << c[1];
    const double engine_us = std::stod(c[c.size() - 2]), wall_us = std::stod(c.back());  // the last two columns
    EXPECT_LE(engine_us, wall_us * 1.01) << c[1] << ": the engine's phases fit in the client's wall time";
  }
  EXPECT_EQ(std::stod(capacity[5][5]), 1000) << "one at a time: a batch per command";

  // Quote ticks: one row at the offered rate, 0.3 s of 5-bond ticks.
  const auto quotes = rows_of(out + "/quotes.csv",
                              "label,offered_per_s,achieved_per_s,kept_up,ticks,bonds_per_tick,p50_us,p90_us,p99_us,"
                              "p99.9_us,max_us");
  ASSERT_EQ(quotes.size(), 1u);
  EXPECT_EQ(quotes[0][1], "100");
  EXPECT_EQ(quotes[0][4], "30");
  EXPECT_EQ(quotes[0][5], "5");
  expect_rising(quotes[0], 6, 11);

  const std::string report = test::slurp(out + "/report.md");
  for (const char* section : {"## 1. Latency at offered rates", "**Highest offered rate kept up with p99 under 1 ms:**",
                              "## 2. Bursts", "## 3. Memory", "**Bytes per booked trade:**", "## 4. Round trips",
                              "## 5. Capacity", "| cores | ", "## 6. Quote ticks"}) {
    EXPECT_NE(report.find(section), std::string::npos) << section;
  }
  for (const char* png : {"rates", "memory", "roundtrip_histogram", "capacity"}) {
    const std::string bytes = test::slurp(out + "/" + png + ".png");
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << png;
    EXPECT_GT(bytes.size(), 5000u) << png;
  }

  // compare.sh: a run against itself passes; a p99 20% worse in every repeat is a regression; round
  // trips at another rate cannot be compared.
  const std::string src = test::source_dir();
  const std::string worse = dir.path("worse");
  std::system(("mkdir -p " + worse).c_str());
  // worse/roundtrip.csv: the run's, with one column multiplied by `factor` in every repeat.
  const auto doctored = [&](std::size_t column, double factor) {
    std::ofstream w(worse + "/roundtrip.csv");
    const std::vector<std::string> lines = lines_of(out + "/roundtrip.csv");
    w << lines[0] << "\n";
    for (std::size_t i = 1; i < lines.size(); ++i) {
      std::vector<std::string> f = fields_of(lines[i]);
      f[column] = std::to_string(std::stod(f[column]) * factor);
      for (std::size_t k = 0; k < f.size(); ++k) w << (k ? "," : "") << f[k];
      w << "\n";
    }
  };
  const auto compare = [&](const std::string& a, const std::string& b) {
    return WEXITSTATUS(std::system(("cd " + src + " && bench/compare.sh " + a + " " + b + " >/dev/null 2>&1").c_str()));
  };
  EXPECT_EQ(compare(out, out), 0);
  doctored(11, 1.2);  // p99
  EXPECT_EQ(compare(out, worse), 1);
  doctored(2, 2);  // the offered rate
  EXPECT_EQ(compare(out, worse), 2);
}

TEST(Percentiles, AreTheNearestRanksOfEveryPointAskedInAnyOrder) {
  // Hand-checked: rank floor(p / 100 x n) of the sorted samples 1..5, the last for 100.
  const std::vector<double> five{5, 1, 4, 2, 3};
  const std::vector<double> points{90, 0, 50, 20, 100, 50};
  EXPECT_EQ(base::percentiles(five, points), (std::vector<double>{5, 1, 3, 2, 5, 3}));
  EXPECT_EQ(base::percentile(five, 99.9), 5);
  EXPECT_TRUE(base::percentiles({}, points) == std::vector<double>(points.size(), 0.0));
  // A long window with repeated values: the same as indexing a sorted copy.
  std::vector<double> samples;
  for (int i = 0; i < 65536; ++i) samples.push_back(static_cast<double>((i * 7919) % 1000));
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const std::vector<double> asked{99.9, 0, 50, 90, 99, 100, 99.99};
  const std::vector<double> got = base::percentiles(samples, asked);
  for (std::size_t i = 0; i < asked.size(); ++i) {
    const auto rank = static_cast<std::size_t>(asked[i] / 100 * static_cast<double>(sorted.size()));
    EXPECT_EQ(got[i], sorted[std::min(sorted.size() - 1, rank)]) << asked[i];
  }
}
