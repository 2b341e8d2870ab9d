#include "bond_risk/cli/settings.h"

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "engine/affinity.h"

namespace bond_risk {

namespace {

struct SettingSpec {
  const char* key;
  const char* flag;  // "" when only conf and environment set it
  const char* help;
  void (*apply)(Settings&, std::string_view value, const std::string& what);
};

bool parse_bool(std::string_view v, const std::string& what) { return base::parse_integer(v, 0, 1, what) == 1; }

const std::vector<SettingSpec>& specs() {
  static const std::vector<SettingSpec> list = {
      {"APP_DB", "db", "database to load",
       [](Settings& s, std::string_view v, const std::string& what) {
         if (v.empty()) throw base::UsageError(what + " is empty; give a database path");
         s.db = v;
       }},
      {"NUM_THREADS", "threads", "worker threads 0..4096; 0 = the master calculates alone (default: online CPUs)",
       [](Settings& s, std::string_view v, const std::string& what) {
         s.scheduler.threads = static_cast<std::size_t>(base::parse_integer(v, 0, engine::kMaxThreads, what));
       }},
      {"SCHEDULER", "scheduler", "pthreads (master/worker pool) or tbb (oneTBB task arena)",
       [](Settings& s, std::string_view v, const std::string& what) {
         if (v == "pthreads") {
           s.scheduler.kind = engine::SchedulerKind::pthreads;
         } else if (v == "tbb") {
           s.scheduler.kind = engine::SchedulerKind::tbb;
         } else {
           throw base::UsageError(what + " is '" + std::string(v) + "'; it must be pthreads or tbb");
         }
       }},
      {"WAIT_POLICY", "wait", "pthreads idle workers: block (park; between a flush's tiers as hybrid), busy (spin) or hybrid (spin SPIN_US, then park)",
       [](Settings& s, std::string_view v, const std::string& what) {
         if (v == "block") {
           s.scheduler.wait = engine::WaitPolicy::block;
         } else if (v == "busy") {
           s.scheduler.wait = engine::WaitPolicy::busy;
         } else if (v == "hybrid") {
           s.scheduler.wait = engine::WaitPolicy::hybrid;
         } else {
           throw base::UsageError(what + " is '" + std::string(v) + "'; it must be block, busy or hybrid");
         }
       }},
      {"SPIN_US", "spin-us", "microseconds to spin before parking: hybrid, and block between a flush's tiers",
       [](Settings& s, std::string_view v, const std::string& what) {
         s.scheduler.spin = std::chrono::microseconds(base::parse_integer(v, 0, 10'000'000, what));
       }},
      {"CPU_AFFINITY", "affinity",
       "pthreads: pin worker i to the i-th CPU of a list like 0,1 or 0-15; all = every CPU this process may use "
       "(default); empty = no pinning",
       [](Settings& s, std::string_view v, const std::string& what) {
         s.scheduler.cpus = base::usage_checked([&] {
           std::vector<int> cpus = v.empty()    ? std::vector<int>{}
                                   : v == "all" ? engine::allowed_cpus()
                                                : engine::parse_cpu_list(v, what);
           engine::check_cpus_allowed(cpus, what);
           return cpus;
         });
       }},
      {"MASTER_CPU", "master-cpu", "pthreads: pin the master thread to this CPU (empty: no pinning)",
       [](Settings& s, std::string_view v, const std::string& what) {
         if (v.empty()) {
           s.scheduler.master_cpu.reset();
           return;
         }
         const int cpu = static_cast<int>(base::parse_integer(v, 0, CPU_SETSIZE - 1, what));
         base::usage_checked([&] { engine::check_cpus_allowed({cpu}, what); });
         s.scheduler.master_cpu = cpu;
       }},
      {"CONTROL_SOCKET", "socket", "Unix socket of the running engine (default: the database path + .sock)",
       [](Settings& s, std::string_view v, const std::string&) { s.socket = v; }},
      {"BATCH_MODE", "", "1 = write results to the database and exit (same as --batch)",
       [](Settings& s, std::string_view v, const std::string& what) { s.batch = parse_bool(v, what); }},
      {"TIMING_DEBUG", "", "1 = print per-tier chunks, workers and barrier wait (default 1)",
       [](Settings& s, std::string_view v, const std::string& what) { s.timing_debug = parse_bool(v, what); }},
      {"GRAIN", "grain", "work per chunk, in outright-trade units; a tier with less is calculated by the master",
       [](Settings& s, std::string_view v, const std::string& what) {
         s.grain = static_cast<std::size_t>(base::parse_integer(v, 1, 1'000'000'000, what));
       }},
      {"KEY_RATES", "key-rates", "1 = flushes compute key-rate ladders for bonds and books (default), 0 = not",
       [](Settings& s, std::string_view v, const std::string& what) { s.key_rates = parse_bool(v, what); }},
      {"QUOTE_ANALYTICS", "quote-analytics",
       "1 = flushes compute bonds' yields, durations, convexity, z-spreads and cs01 (default), 0 = not: they are null",
       [](Settings& s, std::string_view v, const std::string& what) { s.quote_analytics = parse_bool(v, what); }},
      {"SYNCHRONOUS", "synchronous",
       "serving: FULL = an acknowledged change survives a power loss (default); NORMAL = it survives the engine's "
       "crash, a power loss may take the last ones back; OFF = no fsync, a power loss may also corrupt the database",
       [](Settings& s, std::string_view v, const std::string& what) {
         const std::optional<Synchronous> parsed = parse_synchronous(v);
         if (!parsed) throw base::UsageError(what + " must be FULL, NORMAL or OFF, not '" + std::string(v) + "'");
         s.synchronous = *parsed;
       }},
      {"FLUSHES", "flushes",
       "full flushes at start-up, 1..1000: the start-up flush and its repeats, timed each (benchmarks take their "
       "median, away from a noisy moment)",
       [](Settings& s, std::string_view v, const std::string& what) {
         s.flushes = static_cast<std::size_t>(base::parse_integer(v, 1, 1000, what));
       }},
  };
  return list;
}

const SettingSpec* find_key(std::string_view key) {
  for (const SettingSpec& s : specs()) {
    if (key == s.key) return &s;
  }
  return nullptr;
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

void apply_conf_file(Settings& settings, const std::string& path) {
  if (std::filesystem::is_directory(path)) throw base::UsageError("conf file " + path + " is a directory; give a file");
  std::ifstream in(path);
  if (!in) throw base::UsageError("cannot read conf file " + path + " (give an existing file with --conf)");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string_view text = trim(line);
    if (text.empty() || text.front() == '#') continue;
    const std::string where = path + " line " + std::to_string(number);
    const auto eq = text.find('=');
    if (eq == std::string_view::npos) throw base::UsageError(where + ": expected KEY=VALUE, got '" + std::string(text) + "'");
    const std::string_view key = text.substr(0, eq);
    std::string_view value = text.substr(eq + 1);
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    const SettingSpec* spec = find_key(key);
    if (!spec) throw base::UsageError(where + ": unknown setting " + std::string(key) + " (see bond_risk run --help)");
    spec->apply(settings, value, std::string(key) + " in " + where);
  }
}

}  // namespace

Settings load_settings(const base::ParsedArgs& flags, const EnvLookup& env) {
  Settings settings;
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  settings.scheduler.threads = cpus > 0 ? static_cast<std::size_t>(cpus) : 1;
  // Workers pinned: two unpinned workers flushed the 440k set in 1.4 or
  // 2.5 ms, as the kernel placed them; pinned, in 1.3-1.4 (docs/benchmarks.md).
  settings.scheduler.cpus = engine::allowed_cpus();

  if (flags.has("conf")) {
    apply_conf_file(settings, flags.get("conf", ""));
  } else if (access(kDefaultConf, F_OK) == 0) {
    apply_conf_file(settings, kDefaultConf);
  }
  for (const SettingSpec& spec : specs()) {
    if (const char* value = env(spec.key)) {
      spec.apply(settings, value, std::string(spec.key) + " (environment variable)");
    }
  }
  for (const SettingSpec& spec : specs()) {
    if (*spec.flag && flags.has(spec.flag)) {
      spec.apply(settings, flags.get(spec.flag, ""), "--" + std::string(spec.flag));
    }
  }
  if (flags.has("batch")) settings.batch = true;
  // --db names the engine: its socket, unless --socket names one too (an
  // environment's or conf file's CONTROL_SOCKET must not redirect it).
  if (flags.has("db") && !flags.has("socket")) settings.socket.clear();
  return settings;
}

std::optional<Invocation> invocation(const base::CommandSpec& spec, std::span<char* const> argv) {
  std::optional<base::ParsedArgs> parsed = base::parse_command(spec, argv);
  if (!parsed) return std::nullopt;
  Settings settings = load_settings(*parsed, [](const char* key) { return std::getenv(key); });
  return Invocation{std::move(*parsed), std::move(settings)};
}

std::string control_socket(const Settings& settings) {
  return settings.socket.empty() ? settings.db + ".sock" : settings.socket;
}

std::string settings_help() {
  std::string text;
  for (const SettingSpec& s : specs()) {
    std::string key = "  " + std::string(s.key);
    key.resize(24, ' ');
    text += key + s.help + "\n";
  }
  return text;
}

}  // namespace bond_risk
