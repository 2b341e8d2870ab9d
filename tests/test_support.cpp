#include "tests/test_support.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "bond_risk/model/nodes/calculations.h"
#include "bond_risk/model/pricing/coupon_grid.h"
#include "bond_risk/db/loader.h"
#include "bond_risk/db/result_writer.h"
#include "bond_risk/model/store/published_values.h"
#include "bond_risk/model/store/reason.h"
#include "base/unix_socket.h"
#include "bond_risk/db/schema.h"
#include "base/sqlite.h"
#include "engine/scheduler.h"

namespace test {

bool eventually(const std::function<bool()>& done, std::chrono::seconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

Process::Process(const std::vector<std::string>& argv, const std::string& log, const std::vector<std::string>& env) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    freopen(log.c_str(), "w", stdout);
    freopen(log.c_str(), "a", stderr);
    for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
    execv(args[0], args.data());
    _exit(127);
  }
}

Process::~Process() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

int Process::wait() {
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

std::optional<int> Process::wait_for(std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

void Process::signal(int signal) {
  if (pid_ > 0) kill(pid_, signal);
}

std::string ask(const std::string& socket, const std::string& line, std::chrono::seconds limit) {
  base::UniqueFd fd = base::connect_unix(socket);
  timeval timeout{static_cast<time_t>(limit.count()), 0};
  setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  base::write_all(fd.get(), line + "\n");
  base::LineReader reader(fd.get());
  try {
    return reader.read_line().value_or("");
  } catch (const std::runtime_error&) {
    return "";  // timed out
  }
}

EngineProcess::EngineProcess(const std::string& db, const std::string& socket, const std::string& log)
    : socket_(socket),
      process_({std::getenv("BOND_RISK_BIN"), "run", "--db", db, "--socket", socket, "--threads", "2"}, log) {}

bool EngineProcess::ready() const {
  for (int i = 0; i < 600; ++i) {
    try {
      base::connect_unix(socket_);
      return true;
    } catch (const std::runtime_error&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  return false;
}

void EngineProcess::kill9() { process_.signal(SIGKILL); }

const char* const kBaseSql = R"SQL(
INSERT INTO calendar VALUES (1, 'LONDON', '2025-01-01');
INSERT INTO ir_curve VALUES (2, 'FLAT3', 'GBP'), (3, 'FLAT5', 'EUR');
INSERT INTO ir_curve_input_rate VALUES (2, 0, 0, 0.03), (2, 1, 7305, 0.03), (3, 0, 0, 0.05), (3, 1, 7305, 0.05);
)SQL";

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "bond_risk_test.XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
}

TempDir::~TempDir() { std::filesystem::remove_all(dir_); }

void make_db(const std::string& path, const std::string& sql) {
  base::Database db(path, base::Database::Mode::create);
  db.exec(bond_risk::kSchemaSql);
  db.exec(sql);
}

const bond_risk::NodeState& Model::state(std::int64_t id) const {
  const bond_risk::NodeRef* node = store.by_id.find(id);
  if (!node) throw std::out_of_range("no node with id " + std::to_string(id));
  return store.state(*node);
}

std::string Model::reason(std::int64_t id) const {
  return bond_risk::reason(store, graph, *store.by_id.find(id));
}

std::unique_ptr<Model> calculate(const std::string& db_path, std::size_t threads, std::size_t grain) {
  return calculate(db_path, engine::SchedulerOptions{.threads = threads}, grain);
}

std::unique_ptr<Model> calculate(const std::string& db_path, const engine::SchedulerOptions& options,
                                 std::size_t grain) {
  auto model = std::make_unique<Model>();
  base::Database db(db_path, base::Database::Mode::read_only);
  model->store = bond_risk::load(db).store;
  bond_risk::build_graph(model->store, model->graph);
  const std::unique_ptr<engine::Scheduler> scheduler = engine::make_scheduler(options);
  model->graph.mark_all_dirty();
  model->stats = engine::flush(model->graph, *scheduler, grain);
  return model;
}

std::string source_dir() {
  const char* src = std::getenv("BOND_RISK_SRC");
  return src ? src : ".";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CliResult run_cli(const std::string& args, const std::string& env, const std::string& cwd) {
  const char* bin = std::getenv("BOND_RISK_BIN");
  if (!bin) throw std::runtime_error("BOND_RISK_BIN is not set; run the tests with make test");
  TempDir dir;
  const std::string out = dir.path("out"), err = dir.path("err");
  // A command that should have ended but serves forever fails the test instead of hanging it.
  const std::string cmd = "cd '" + (cwd.empty() ? source_dir() : cwd) + "' && env -u NUM_THREADS -u APP_DB -u BATCH_MODE -u GRAIN " +
                          "-u CPU_AFFINITY -u MASTER_CPU " + env +
                          " timeout 120 '" + bin + "' " + args + " >'" + out + "' 2>'" + err + "' </dev/null";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

std::vector<int> cpu_list(std::string_view text) {
  std::vector<int> cpus;
  std::istringstream in{std::string(text)};
  for (std::string part; std::getline(in, part, ',');) {
    const std::size_t dash = part.find('-');
    const int first = std::stoi(part.substr(0, dash));
    const int last = dash == std::string::npos ? first : std::stoi(part.substr(dash + 1));
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  std::ranges::sort(cpus);
  return cpus;
}

std::vector<int> cpus_allowed() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("Cpus_allowed_list:")) return cpu_list(line.substr(line.find_first_not_of(" \t", 18)));
  }
  throw std::runtime_error("no Cpus_allowed_list in /proc/self/status");
}

std::vector<bond_risk::Date> coupon_schedule(bond_risk::Date start, bond_risk::Date maturity, int coupons_per_year) {
  const int months = 12 / coupons_per_year;
  std::vector<bond_risk::Date> dates;
  for (int k = 0;; ++k) {
    const bond_risk::Date d = bond_risk::add_months(maturity, -k * months);
    if (d <= start) break;
    dates.push_back(d);
  }
  return dates;
}

SummedGrids summed_grids(bond_risk::Date today, const bond_risk::CurveArrays& curve) {
  SummedGrids out;
  bond_risk::lay_out_coupon_grids(today, bond_risk::kNumForwardDays, out.days);
  bond_risk::sum_coupon_grids(out.days, curve, true, out.sums);
  return out;
}

bond_risk::BondValue priced_on_grid(const SummedGrids& grids, bond_risk::Date start, bond_risk::Date maturity,
                                    int coupons_per_year, double coupon, bond_risk::Date today,
                                    const bond_risk::CurveArrays& curve) {
  using namespace bond_risk;
  const std::uint32_t coupons = coupon_count(start, maturity, coupons_per_year);
  return value_bond(coupon_sums(grids.days, grids.sums, grid_place(maturity, coupons_per_year), coupons), maturity,
                    coupon, coupons_per_year, today, curve);
}

bond_risk::BondValue priced_on_grid(bond_risk::Date start, bond_risk::Date maturity, int coupons_per_year,
                                    double coupon, bond_risk::Date today, const bond_risk::CurveArrays& curve) {
  return priced_on_grid(summed_grids(today, curve), start, maturity, coupons_per_year, coupon, today, curve);
}

bond_risk::BondFigures figures_on_grid(bond_risk::Date start, bond_risk::Date maturity, int coupons_per_year,
                                       double coupon, bond_risk::Date today, const bond_risk::CurveArrays& curve,
                                       double quote) {
  using namespace bond_risk;
  const SummedGrids grids = summed_grids(today, curve);
  const BondValue value = priced_on_grid(grids, start, maturity, coupons_per_year, coupon, today, curve);
  const RemainingFlows flows = remaining_flows(grids.days, today, grid_place(maturity, coupons_per_year),
                                               coupon_count(start, maturity, coupons_per_year), maturity,
                                               coupons_per_year, coupon);
  MomentRows moments;
  sum_grid_moments(grids.days, curve, moments);
  return bond_figures(flows, value.price, quote, curve, moments);
}

std::vector<double> ladder_on_grid(bond_risk::Date start, bond_risk::Date maturity, int coupons_per_year,
                                   double coupon, bond_risk::Date today,
                                   std::span<const bond_risk::CurvePoint> points,
                                   const bond_risk::KeyRateArrays& key_rates) {
  using namespace bond_risk;
  CouponGridDays grids;
  lay_out_coupon_grids(today, kNumForwardDays, grids);
  GridKeyRates sums;
  sum_grid_key_rates(grids, points, key_rates, sums);
  std::vector<double> ladder(points.size());
  bond_key_rates(grids, sums, points.size(), grid_place(maturity, coupons_per_year),
                 coupon_count(start, maturity, coupons_per_year), 100.0 * coupon / coupons_per_year, maturity - today,
                 key_rates, ladder);
  return ladder;
}

std::vector<std::string> query_rows(const std::string& path, const std::string& sql) {
  base::Database conn(path, base::Database::Mode::read_only);
  std::vector<std::string> out;
  for (base::Statement st = conn.prepare(sql); st.step();) {
    std::string row;
    for (int c = 0; c < st.column_count(); ++c) row += st.value_text(c) + "|";
    out.push_back(std::move(row));
  }
  return out;
}

KeyRateCurve key_rate_curve(const std::vector<bond_risk::CurvePoint>& points) {
  KeyRateCurve out;
  bond_risk::build_curve(points, out.curve);
  bond_risk::build_key_rates(points, out.curve, out.key_rates);
  return out;
}

}  // namespace test
