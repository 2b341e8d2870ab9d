// bond_risk bench-events: latency percentiles of events on a running engine,
// in process and end to end through the socket, and sustained durable
// events per second with group commit.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <thread>

#include "base/cli_args.h"
#include "bond_risk/cli/commands.h"
#include "base/percentile.h"
#include "bond_risk/live/command.h"
#include "bond_risk/live/live_model.h"
#include "bond_risk/live/replies.h"
#include "bond_risk/db/loader.h"
#include "bond_risk/cli/settings.h"
#include "base/unix_socket.h"
#include "engine/timing.h"

namespace bond_risk {

namespace {

const base::CommandSpec kSpec = {
    "bench-events",
    "[--db PATH] [--threads N] [--events N] [--bumps N] [--out DIR]",
    "Measures, on a copy of the database: (a) single outright-trade amendments in process (apply +\n"
    "recalculate + results ready) and end to end through the socket (including the durable commit), (b)\n"
    "1bp curve bumps in process, and (c) sustained durable amendments per second with group commit.\n"
    "Writes DIR/latency.csv (series, percentile, microseconds), DIR/summary.txt and, with gnuplot,\n"
    "DIR/latency.png.",
    {
        {"db", "PATH", "database (APP_DB; default data/bond_risk_440k.db)"},
        {"threads", "N", "worker threads (NUM_THREADS)"},
        {"events", "N", "amendments per series (default 20000)"},
        {"bumps", "N", "curve bumps (default 40)"},
        {"out", "DIR", "output directory (default bench/out/events)"},
        {"conf", "PATH", "conf file of KEY=VALUE lines (default " + std::string(kDefaultConf) + ")"},
    },
};

struct Series {
  std::string name;
  std::vector<double> micros;
};

// `n` random amendments of outright trades' quantities.
std::vector<Change> amendments(const Store& s, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto& ids = s.ids[static_cast<std::size_t>(Kind::outright_trade)];
  std::vector<Change> out;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string trade = std::to_string(ids[rng() % ids.size()]);
    const auto quantity = static_cast<std::int64_t>(1 + rng() % 5000);
    out.push_back(AmendTrade{trade, {{"quantity", quantity}}});
  }
  return out;
}

// A `bond_risk run` child process serving `db` on `socket`; killed on destruction.
class Child {
 public:
  Child(const std::string& db, const std::string& socket, std::size_t threads) {
    pid_ = fork();
    if (pid_ == 0) {
      freopen("/dev/null", "w", stdout);
      const std::string t = std::to_string(threads);
      execl("/proc/self/exe", "bond_risk", "run", "--db", db.c_str(), "--socket", socket.c_str(), "--threads", t.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~Child() {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }

 private:
  pid_t pid_;
};

std::string read_line(int fd, std::string& pending) {
  char buf[4096];
  for (;;) {
    if (const auto nl = pending.find('\n'); nl != std::string::npos) {
      std::string line = pending.substr(0, nl);
      pending.erase(0, nl + 1);
      return line;
    }
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) throw std::runtime_error("the engine closed the connection");
    pending.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace

int bench_events_command(std::span<char* const> args) {
  const std::optional<base::ParsedArgs> parsed = base::parse_command(kSpec, args);
  if (!parsed) return 0;
  const base::ParsedArgs& a = *parsed;
  const Settings settings = load_settings(a, [](const char* key) { return std::getenv(key); });
  const auto events = static_cast<std::size_t>(base::parse_integer(a.get("events", "20000"), 1, 10'000'000, "--events"));
  const auto bumps = static_cast<std::size_t>(base::parse_integer(a.get("bumps", "40"), 1, 100'000, "--bumps"));
  const std::string out = a.get("out", "bench/out/events");
  std::filesystem::create_directories(out);
  const std::string copy = out + "/bench-events.db", socket = out + "/bench-events.sock";
  std::filesystem::copy_file(settings.db, copy, std::filesystem::copy_options::overwrite_existing);

  std::vector<Series> series;
  std::size_t nodes_per_bump = 0;
  {
    base::Database db(copy, base::Database::Mode::read_only);
    LiveModel model(load(db).store, settings.scheduler, settings.grain);
    model.flush_all();
    Series amend{"amend in process", {}}, bump{"1bp bump in process", {}};
    for (const Change& amendment : amendments(model.store(), events, 1)) {
      const engine::Stopwatch w;
      model.apply(amendment, nullptr);
      model.recalculate();
      amend.micros.push_back(w.seconds() * 1e6);
    }
    for (std::size_t i = 0; i < bumps; ++i) {
      const engine::Stopwatch w;
      model.apply(BumpCurve{"GBP-GILT", i % 2 ? -1.0 : 1.0}, nullptr);
      const LiveModel::Recalculation r = model.recalculate();
      bump.micros.push_back(w.seconds() * 1e6);
      nodes_per_bump = 0;
      for (std::size_t n : r.nodes) nodes_per_bump += n;
    }
    series.push_back(std::move(amend));
    series.push_back(std::move(bump));
  }

  double sustained = 0;
  {
    const Child engine(copy, socket, settings.scheduler.threads);
    base::UniqueFd fd;
    for (int tries = 0;; ++tries) {
      try {
        fd = base::connect_unix(socket);
        break;
      } catch (const std::runtime_error&) {
        if (tries > 1200) throw;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
    std::string pending;
    Series e2e{"amend end to end", {}};
    base::Database db(copy, base::Database::Mode::read_only);
    std::vector<std::string> lines;
    for (const Change& amendment : amendments(load(db).store, events, 2)) lines.push_back(format_command(amendment));
    for (const std::string& line : lines) {
      const engine::Stopwatch w;
      base::write_all(fd.get(), line + "\n");
      if (!is_ok_line(read_line(fd.get(), pending))) throw std::runtime_error("refused: " + line);
      e2e.micros.push_back(w.seconds() * 1e6);
    }
    series.push_back(std::move(e2e));
    // Pipelined: the engine commits whatever has arrived together.
    const engine::Stopwatch w;
    std::jthread writer([&] {
      for (const std::string& line : lines) base::write_all(fd.get(), line + "\n");
    });
    for (std::size_t i = 0; i < lines.size(); ++i) read_line(fd.get(), pending);
    sustained = lines.size() / w.seconds();
  }

  std::ofstream csv(out + "/latency.csv");
  std::ofstream summary(out + "/summary.txt");
  csv << "series,percentile,micros\n";
  const double points[] = {0, 50, 75, 90, 99, 99.9, 99.99, 100};
  const char* names[] = {"min", "p50", "p75", "p90", "p99", "p99.9", "p99.99", "max"};
  char line[256];
  std::snprintf(line, sizeof line, "%-22s %8s %9s %9s %9s %9s %9s %9s %9s %9s\n", "microseconds", "n", "min", "p50",
                "p75", "p90", "p99", "p99.9", "p99.99", "max");
  summary << line;
  for (const Series& s : series) {
    std::string row;
    for (int k = 0; k < 8; ++k) {
      const double v = base::percentile(s.micros, points[k]);
      csv << s.name << "," << names[k] << "," << v << "\n";
      std::snprintf(line, sizeof line, " %9.1f", v);
      row += line;
    }
    std::snprintf(line, sizeof line, "%-22s %8zu", s.name.c_str(), s.micros.size());
    summary << line << row << "\n";
  }
  summary << "nodes recalculated per 1bp bump: " << nodes_per_bump << "\n";
  summary << "sustained durable amendments with group commit: " << static_cast<long>(sustained) << " per second\n";
  summary.close();
  csv.close();
  std::cout << std::ifstream(out + "/summary.txt").rdbuf();
  const std::string plot = "gnuplot -e \"dir='" + out + "'\" bench/latency.gp 2>/dev/null";
  if (std::system(plot.c_str()) == 0) std::cout << "Plot: " << out << "/latency.png\n";
  std::filesystem::remove(copy);
  return 0;
}

}  // namespace bond_risk
