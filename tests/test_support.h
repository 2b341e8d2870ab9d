// Helpers shared by the tests: scratch directories, small databases built
// from SQL, a loaded-and-flushed model, and running bin/bond_risk.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bond_risk/model/quotes/quote_analytics.h"
#include "bond_risk/model/store/store.h"
#include "engine/flush.h"
#include "engine/graph.h"
#include "engine/scheduler.h"

namespace test {

// Instrumented builds (make test SANITIZE=...) run many times slower and
// count shadow memory in their RSS: functional deadlines are scaled by
// kSlowdown, and bounds on RSS hold only where kSanitized is false.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
inline constexpr int kSlowdown = kSanitized ? 10 : 1;

// Polls `done` every 50 ms until it holds or `limit` passes; whether it held.
// The default limit, a minute, is scaled by kSlowdown: a wait that passes
// plain in seconds may take minutes under a sanitizer with the other shard.
bool eventually(const std::function<bool()>& done, std::chrono::seconds limit = std::chrono::seconds(60 * kSlowdown));

// A fresh directory under /tmp, removed with everything in it.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

 private:
  std::string dir_;
};

// Creates `path` with the schema and then runs `sql` (plain INSERTs).
void make_db(const std::string& path, const std::string& sql);

// A database's nodes loaded and fully flushed.
struct Model {
  bond_risk::Store store;
  engine::Graph graph;
  engine::FlushStats stats;

  const bond_risk::NodeState& state(std::int64_t id) const;
  bond_risk::Status status(std::int64_t id) const { return state(id).status; }
  std::string reason(std::int64_t id) const;
  template <class Table>
  const auto& node(std::int64_t id, const Table& table) const {
    return table.at(store.by_id.find(id)->index);
  }
};

std::unique_ptr<Model> calculate(const std::string& db_path, std::size_t threads = 0, std::size_t grain = 4096);
std::unique_ptr<Model> calculate(const std::string& db_path, const engine::SchedulerOptions& options,
                                 std::size_t grain);

// MODEL.md's coupon schedule, date by date: maturity, maturity - m months,
// ... while after `start` (m = 12 / coupons_per_year), latest first. The
// definition the coupon grids and coupon_count are checked against.
std::vector<bond_risk::Date> coupon_schedule(bond_risk::Date start, bond_risk::Date maturity, int coupons_per_year);

// A calendar's coupon grids laid out for `today` and summed on `curve`
// (built with build_curve), as a flush keeps them for its bonds.
struct SummedGrids {
  bond_risk::CouponGridDays days;
  bond_risk::CouponSumRows sums;
};
SummedGrids summed_grids(bond_risk::Date today, const bond_risk::CurveArrays& curve);

// One bond's price and pv01 as a flush takes them off its calendar's grids
// (`grids`, summed for the same `today` and `curve`; or laid out anew).
bond_risk::BondValue priced_on_grid(const SummedGrids& grids, bond_risk::Date start, bond_risk::Date maturity,
                                    int coupons_per_year, double coupon, bond_risk::Date today,
                                    const bond_risk::CurveArrays& curve);
bond_risk::BondValue priced_on_grid(bond_risk::Date start, bond_risk::Date maturity, int coupons_per_year,
                                    double coupon, bond_risk::Date today, const bond_risk::CurveArrays& curve);

// Its quote analytics as a flush takes them from a cold start, against
// clean market quote `quote` (NaN: none): model/quotes/quote_analytics.h.
bond_risk::BondFigures figures_on_grid(bond_risk::Date start, bond_risk::Date maturity, int coupons_per_year,
                                       double coupon, bond_risk::Date today, const bond_risk::CurveArrays& curve,
                                       double quote);

// Its key-rate ladder as a flush takes it, on a curve's points and the
// key-rate arrays built from them.
std::vector<double> ladder_on_grid(bond_risk::Date start, bond_risk::Date maturity, int coupons_per_year,
                                   double coupon, bond_risk::Date today,
                                   std::span<const bond_risk::CurvePoint> points,
                                   const bond_risk::KeyRateArrays& key_rates);

struct CliResult {
  int exit_code;
  std::string out, err;
};

// Runs bin/bond_risk (the build's, from $BOND_RISK_BIN) with `args` (shell
// words) in `cwd` (default: the source directory), with `env` prepended (e.g. "NUM_THREADS=3").
CliResult run_cli(const std::string& args, const std::string& env = "", const std::string& cwd = "");

// The CPUs of a Linux CPU list ("0-2,5"), ascending, read by the tests
// themselves (not by the engine's parser): of what a program printed, or of
// this process's Cpus_allowed_list in /proc/self/status (cpus_allowed()).
std::vector<int> cpu_list(std::string_view text);
std::vector<int> cpus_allowed();

// A program (argv[0] a path) running in its own process with `env`
// ("KEY=VALUE") added to its environment, stdout and stderr to `log`;
// killed with SIGKILL if still running on destruction.
class Process {
 public:
  Process(const std::vector<std::string>& argv, const std::string& log, const std::vector<std::string>& env = {});
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  // Waits for the process to end; its exit code, or -signal.
  int wait();
  // ... for at most `limit`: nullopt if it is still running then.
  std::optional<int> wait_for(std::chrono::seconds limit);
  void signal(int signal);
  int pid() const { return pid_; }

 private:
  int pid_ = -1;
};

// One command's reply on a fresh connection to the engine at `socket`, or
// "" if none came within `limit`.
std::string ask(const std::string& socket, const std::string& line, std::chrono::seconds limit);

// A `bond_risk run` serving `db` on `socket` with 2 workers (a Process).
class EngineProcess {
 public:
  EngineProcess(const std::string& db, const std::string& socket, const std::string& log);
  // Waits until the socket accepts connections (30 s at most).
  bool ready() const;
  int wait() { return process_.wait(); }
  std::optional<int> wait_for(std::chrono::seconds limit) { return process_.wait_for(limit); }
  void signal(int signal) { process_.signal(signal); }
  void kill9();

 private:
  std::string socket_;
  Process process_;
};

// The whole content of a file ("" if it cannot be read).
std::string slurp(const std::string& path);

// The rows `sql` returns from the database at `path`, each as its columns'
// text joined by "|" (for comparing tables whole).
std::vector<std::string> query_rows(const std::string& path, const std::string& sql);

// The source tree (from $BOND_RISK_SRC, set by make test).
std::string source_dir();

// A curve's daily arrays and key-rate arrays, built whole from valid points.
struct KeyRateCurve {
  bond_risk::CurveArrays curve;
  bond_risk::KeyRateArrays key_rates;
};
KeyRateCurve key_rate_curve(const std::vector<bond_risk::CurvePoint>& points);

// A calendar (id 1, today 2025-01-01) and two curves: 2 flat at 3% and 3 flat at 5%.
extern const char* const kBaseSql;

}  // namespace test
