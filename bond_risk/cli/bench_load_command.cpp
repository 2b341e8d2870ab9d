// bond_risk bench-load: one experiment of the event benchmark against an
// engine already serving (bench/run_events.sh starts the engines and runs
// them all). Every latency runs from when a command was due to when its
// reply was read, through the socket, the durable commit included.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <algorithm>
#include <map>
#include <random>
#include <thread>

#include "base/cli_args.h"
#include "base/json.h"
#include "base/percentile.h"
#include "bond_risk/cli/commands.h"
#include "bond_risk/lab/event_series.h"
#include "bond_risk/lab/workloads.h"
#include "bond_risk/db/loader.h"
#include "bond_risk/protocol/command.h"
#include "bond_risk/protocol/messages.h"
#include "bond_risk/protocol/stats_reply.h"

namespace bond_risk {

namespace member = protocol::member;

namespace {

const base::CommandSpec kSpec = {
    "bench-load",
    "EXPERIMENT --socket PATH --db PATH --out DIR [--label TEXT] [options]",
    "Runs one experiment against the engine serving --db on --socket and appends its rows to\n"
    "DIR/EXPERIMENT.csv (microseconds; latency from each command's due time to its reply):\n"
    "  rates      amendments open loop at each offered rate for --seconds, then doubling the rate\n"
    "             until the engine no longer keeps up (achieved < 95% of offered)\n"
    "  patterns   bursts of amendments, then of bookings, then removals of what was booked, all sent\n"
    "             at once (--bursts); amendments at slow rates (--slow, --slow-events each)\n"
    "  memory     --trades bookings, VmPeak and VmRSS of the engine and the database size every --step\n"
    "  roundtrip  --count amendments at --rate, --repeats times; and each repeat's histogram\n"
    "  capacity   commands per second of each workload mix for --seconds, and where the engine's time\n"
    "             goes per command (its stats before and after)\n"
    "  quotes     ticks of market quotes, --tick-bonds quoted bonds each, open loop at --tick-rate ticks a\n"
    "             second for --seconds\n"
    "  day        a desk's day after a new P&L day begins: a date roll, 50 curve moves of 1-5bp, 2,000\n"
    "             amendments, 200 bookings and 100 removals in a seeded order, each sent alone; then the\n"
    "             explain of the total (DIR/day-explain.json) and of the book that moved most, with its 5\n"
    "             largest events (DIR/day-book.json; its name in DIR/day-book.txt)\n"
    "The commands are drawn from the database by a seeded generator: two runs send the same lines.",
    {
        {"socket", "PATH", "the serving engine's socket"},
        {"db", "PATH", "the database it serves (read for ids, names and its size)"},
        {"out", "DIR", "where EXPERIMENT.csv is appended to"},
        {"label", "TEXT", "the first column of every row (the engine's wait policy or synchronous setting)"},
        {"rates", "LIST", "rates: offered rates per second (default \"1000 5000 10000 20000 50000\")"},
        {"seconds", "S", "rates, capacity and quotes: seconds per point (default 5)"},
        {"window", "N", "capacity: commands in flight at most (default 4096); after --seconds the replies are awaited"},
        {"bursts", "LIST", "patterns: burst sizes (default \"1 10 100 1000 10000 100000\")"},
        {"burst-commands", "N", "patterns: bursts of a size repeat until about N commands, at most 200 times (default 1000)"},
        {"slow", "LIST", "patterns: slow rates per second (default \"1 2 10\")"},
        {"slow-events", "N", "patterns: events per slow rate (default 60)"},
        {"trades", "N", "memory: trades to book (default 2000000)"},
        {"step", "N", "memory: trades between two samples (default 100000)"},
        {"count", "N", "roundtrip: amendments per repeat (default 1000000)"},
        {"rate", "R", "roundtrip: offered rate per second (default 50000)"},
        {"repeats", "N", "roundtrip: repeats (default 5)"},
        {"tick-rate", "R", "quotes: quote ticks offered per second (default 1000)"},
        {"tick-bonds", "N", "quotes: bonds per tick (default 100)"},
        {"seed", "N", "the command generator's seed (default 1)"},
    },
};

constexpr double kPoints[] = {0, 50, 75, 90, 99, 99.9, 99.99, 100};  // min ... max

// Appends rows to DIR/NAME.csv, writing `header` first into a new file.
class Csv {
 public:
  Csv(const std::string& dir, const std::string& name, const std::string& header) {
    std::filesystem::create_directories(dir);
    const std::string path = dir + "/" + name + ".csv";
    const bool fresh = !std::filesystem::exists(path) || std::filesystem::file_size(path) == 0;
    out_.open(path, std::ios::app);
    if (!out_) throw std::runtime_error("cannot write " + path);
    if (fresh) out_ << header << "\n";
  }
  template <typename... T>
  void row(const T&... fields) {
    std::size_t i = 0;
    ((out_ << (i++ ? "," : "") << fields), ...);
    out_ << "\n" << std::flush;
  }

 private:
  std::ofstream out_;
};

// Microseconds to a tenth, as every latency of the CSVs is written.
std::string tenths(double micros) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", micros);
  return buf;
}

// Every percentile of kPoints of `s` (one sort).
std::vector<double> quantiles(const Series& s) { return base::percentiles(s.micros, kPoints); }

// "p50,p75,..." of the quantiles q[first..last).
std::string joined(const std::vector<double>& q, std::size_t first, std::size_t last) {
  std::string out;
  for (std::size_t i = first; i < last; ++i) {
    if (i != first) out += ',';
    out += tenths(q[i]);
  }
  return out;
}

struct Context {
  EngineClient& client;
  Workload& workload;
  const base::ParsedArgs& args;
  std::string out, label, db;

  std::string get(const char* name, const char* fallback) const { return args.get(name, fallback); }
  long long integer(const char* name, const char* fallback, long long max) const {
    return base::parse_integer(get(name, fallback), 1, max, std::string("--") + name);
  }
  std::vector<long long> list(const char* name, const char* fallback) const {
    return base::parse_integers(get(name, fallback), 1, 100'000'000, std::string("--") + name);
  }
  double seconds() const { return base::parse_number(get("seconds", "5"), 0.01, 3600, "--seconds"); }
  base::Json stats() const { return base::Json::parse(client.ask(format_command(Stats{}))); }
  // Waits until the result tables reflect the last event, so that the
  // result writer's backlog of one step is not charged to the next. Throws
  // after a minute.
  void wait_for_results() const {
    base::Json s;
    for (int i = 0; i < 6000; ++i) {
      s = stats();
      if (s.at(member::results_as_of) == s.at(member::event)) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    throw std::runtime_error("the engine's result writer did not catch up within a minute (results as of event " +
                             s.at(member::results_as_of).dump() + ", event " + s.at(member::event).dump() +
                             (s.contains(member::results_error) ? ", its last error: " + s.at(member::results_error).dump() : "") +
                             ")");
  }
};

std::vector<std::string> amendments(Workload& w, std::size_t n) { return lines(n, [&] { return w.amendment(); }); }

void rates(Context& c) {
  Csv csv(c.out, "rates",
          "label,offered_per_s,achieved_per_s,kept_up,commands,p50_us,p90_us,p99_us,p99.9_us,p99.99_us,max_us");
  c.client.open_loop("warm-up", amendments(c.workload, 2000), 0);
  std::vector<long long> offered = c.list("rates", "1000 5000 10000 20000 50000");
  for (std::size_t i = 0; i < offered.size(); ++i) {
    const double rate = static_cast<double>(offered[i]);
    const auto n = static_cast<std::size_t>(std::max(1.0, rate * c.seconds()));
    std::cout << "offered " << offered[i] << "/s for " << c.seconds() << " s ..." << std::endl;
    c.wait_for_results();
    const OpenLoop r = c.client.open_loop("amendments", amendments(c.workload, n), rate);
    const std::vector<double> q = base::percentiles(r.series.micros, std::vector<double>{50, 90, 99, 99.9, 99.99, 100});
    const bool kept_up = r.replies_per_second >= 0.95 * rate;  // the engine answered at (nearly) the offered rate
    csv.row(c.label, offered[i], static_cast<long>(r.replies_per_second), kept_up ? 1 : 0, n, tenths(q[0]), tenths(q[1]),
            tenths(q[2]), tenths(q[3]), tenths(q[4]), tenths(q[5]));
    std::cout << "offered " << offered[i] << "/s: achieved " << static_cast<long>(r.replies_per_second) << "/s, p50 "
              << q[0] << " us, p99 " << q[2] << " us" << std::endl;
    if (i + 1 == offered.size() && kept_up && offered[i] < 10'000'000) offered.push_back(offered[i] * 2);
  }
}

void quotes(Context& c) {
  Csv csv(c.out, "quotes", "label,offered_per_s,achieved_per_s,kept_up,ticks,bonds_per_tick,p50_us,p90_us,p99_us,p99.9_us,max_us");
  const double rate = base::parse_number(c.get("tick-rate", "1000"), 1, 1e6, "--tick-rate");
  const auto bonds = static_cast<std::size_t>(c.integer("tick-bonds", "100", 100'000));
  const auto tick = [&] { return c.workload.quote_tick(bonds); };
  c.client.open_loop("warm-up", lines(200, tick), 0);
  const auto n = static_cast<std::size_t>(std::max(1.0, rate * c.seconds()));
  std::cout << "quote ticks of " << bonds << " bonds at " << rate << "/s for " << c.seconds() << " s ..." << std::endl;
  c.wait_for_results();
  const OpenLoop r = c.client.open_loop("quotes", lines(n, tick), rate);
  const std::vector<double> q = base::percentiles(r.series.micros, std::vector<double>{50, 90, 99, 99.9, 100});
  const bool kept_up = r.replies_per_second >= 0.95 * rate;
  csv.row(c.label, rate, static_cast<long>(r.replies_per_second), kept_up ? 1 : 0, n, bonds, tenths(q[0]), tenths(q[1]),
          tenths(q[2]), tenths(q[3]), tenths(q[4]));
  std::cout << "achieved " << static_cast<long>(r.replies_per_second) << "/s, p50 " << q[0] << " us, p99 " << q[2]
            << " us" << std::endl;
}

void day(Context& c) {
  Csv csv(c.out, "day", "label,events,p50_us,p99_us,total_day_pnl,total_residual,book,book_day_pnl");
  std::vector<std::string> events;
  events.push_back(format_command(Change{RollDate{c.workload.today() + 1, std::nullopt}}));
  auto add = [&](std::size_t n, Change (Workload::*next)()) {
    for (std::size_t i = 0; i < n; ++i) events.push_back(format_command((c.workload.*next)()));
  };
  add(50, &Workload::bump);
  add(2000, &Workload::amendment);
  add(200, &Workload::booking);
  add(100, &Workload::removal);
  std::mt19937_64 order(static_cast<std::uint64_t>(c.integer("seed", "1", 1'000'000'000)));
  std::shuffle(events.begin(), events.end(), order);
  c.client.round_trips("start", {format_command(Change{StartDay{}})});
  std::cout << "a desk's day of " << events.size() << " events, each sent alone ..." << std::endl;
  const Series s = c.client.round_trips("day", events);
  const base::Json total = base::Json::parse(c.client.ask(format_command(Explain{})));
  std::ofstream(c.out + "/day-explain.json") << total.dump(1) << "\n";
  // The book that moved most, its explain and its largest events.
  const base::Json* largest = nullptr;
  for (const base::Json& b : total.at(member::books)) {
    if (!largest || std::abs(b.at(member::day_pnl).get<double>()) > std::abs(largest->at(member::day_pnl).get<double>())) largest = &b;
  }
  if (!largest) throw std::runtime_error("the explain lists no book");
  const std::string book = largest->at(member::name).get<std::string>();
  base::Json detail = base::Json::parse(c.client.ask(format_command(Explain{book})));
  detail["largest_events"] = base::Json::parse(c.client.ask(format_command(ExplainEvents{book, 5})))[member::events];
  std::ofstream(c.out + "/day-book.json") << detail.dump(1) << "\n";
  std::ofstream(c.out + "/day-book.txt") << book << "\n";
  const std::vector<double> q = base::percentiles(s.micros, std::vector<double>{50, 99});
  csv.row(c.label, events.size(), tenths(q[0]), tenths(q[1]), total.at(member::total).at(member::day_pnl).get<double>(),
          total.at(member::total).at(member::residual).get<double>(), book, largest->at(member::day_pnl).get<double>());
  std::cout << "total day_pnl " << total.at(member::total).at(member::day_pnl) << "; the largest book " << book << ": "
            << largest->at(member::day_pnl) << " (DIR/day-explain.json, DIR/day-book.json)" << std::endl;
}

void patterns(Context& c) {
  Csv csv(c.out, "patterns",
          "label,pattern,command,commands,p50_us,p75_us,p90_us,p99_us,p99.9_us,p99.99_us,worst1_us,worst2_us,worst3_us");
  const auto write = [&](const std::string& pattern, const char* command, Series s) {
    const std::string q = joined(quantiles(s), 1, 7);
    const std::size_t n = s.micros.size();
    std::ranges::sort(s.micros, std::greater<>());
    s.micros.resize(std::max<std::size_t>(n, 3), std::nan(""));  // fewer than three: the missing worst are NaN
    csv.row(c.label, pattern, command, n, q, tenths(s.micros[0]), tenths(s.micros[1]), tenths(s.micros[2]));
    std::cout << pattern << " " << command << ": " << q << " us (p50 .. p99.99), worst " << tenths(s.micros[0]) << " us" << std::endl;
  };
  const auto burst = [&](std::vector<std::string> batch, Series& into, std::vector<std::string>* replies) {
    OpenLoop r = c.client.open_loop("burst", batch, INFINITY, replies != nullptr);
    into.micros.insert(into.micros.end(), r.series.micros.begin(), r.series.micros.end());
    if (replies) std::ranges::move(r.replies, std::back_inserter(*replies));
    c.wait_for_results();
  };
  const auto per_size = static_cast<std::size_t>(c.integer("burst-commands", "1000", 100'000'000));
  for (const long long size : c.list("bursts", "1 10 100 1000 10000 100000")) {
    const auto n = static_cast<std::size_t>(size);
    const std::size_t repeats = std::clamp<std::size_t>(per_size / n, 1, 200);  // about --burst-commands latencies per size
    Series amend{"amendment", {}}, book{"booking", {}}, remove{"removal", {}};
    for (std::size_t k = 0; k < repeats; ++k) burst(amendments(c.workload, n), amend, nullptr);
    for (std::size_t k = 0; k < repeats; ++k) {
      std::vector<std::string> booked;
      burst(lines(n, [&] { return c.workload.booking(); }), book, &booked);
      std::vector<std::string> removals;
      for (const std::string& reply : booked) {
        removals.push_back(format_command(RemoveTrade{base::Json::parse(reply).at(member::id).dump()}));
      }
      burst(removals, remove, nullptr);
    }
    const std::string pattern = "burst " + std::to_string(size);
    write(pattern, "amendment", std::move(amend));
    write(pattern, "booking", std::move(book));
    write(pattern, "removal", std::move(remove));
  }
  const auto events = static_cast<std::size_t>(c.integer("slow-events", "60", 1'000'000));
  for (const long long rate : c.list("slow", "1 2 10")) {
    write(std::to_string(rate) + "/s", "amendment",
          c.client.open_loop("slow", amendments(c.workload, events), static_cast<double>(rate)).series);
  }
}

std::uintmax_t size_or_zero(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t n = std::filesystem::file_size(path, ec);
  return ec ? 0 : n;
}

void memory(Context& c) {
  Csv csv(c.out, "memory", "label,trades_booked,vm_peak_kb,vm_rss_kb,db_bytes,wal_bytes,last_event,step_seconds");
  const auto trades = static_cast<std::size_t>(c.integer("trades", "2000000", 100'000'000));
  const auto step = static_cast<std::size_t>(c.integer("step", "100000", 100'000'000));
  double seconds = 0;
  for (std::size_t booked = 0;; booked += step) {
    c.wait_for_results();  // rows waiting for the result writer are not the trades' memory
    const base::Json s = c.stats();
    const base::Json& memory = s.at(member::memory_kb);
    csv.row(c.label, booked, memory.at(member::vm_peak), memory.at(member::vm_rss), size_or_zero(c.db),
            size_or_zero(c.db + "-wal"), s.at(member::event), seconds);
    std::cout << "booked " << booked << ": VmRSS " << memory.at(member::vm_rss) << " kB" << std::endl;
    if (booked + step > trades) break;
    const OpenLoop r = c.client.open_loop("bookings", lines(step, [&] { return c.workload.booking(); }), 0);
    seconds = static_cast<double>(step) / r.replies_per_second;
  }
}

void roundtrip(Context& c) {
  Csv csv(c.out, "roundtrip",
          "label,repeat,offered_per_s,achieved_per_s,commands,min_us,median_us,average_us,p50_us,p75_us,p90_us,p99_us,"
          "p99.9_us,p99.99_us,max_us");
  Csv histogram(c.out, "roundtrip_histogram", "label,repeat,upper_us,count");
  const auto count = static_cast<std::size_t>(c.integer("count", "1000000", 100'000'000));
  const double rate = base::parse_number(c.get("rate", "50000"), 1, 1e7, "--rate");
  const auto repeats = c.integer("repeats", "5", 1000);
  for (long long k = 1; k <= repeats; ++k) {
    std::cout << "repeat " << k << " of " << repeats << ": " << count << " amendments at " << rate << "/s (about "
              << static_cast<long>(static_cast<double>(count) / rate) << " s)" << std::endl;
    const OpenLoop r = c.client.open_loop("amendments", amendments(c.workload, count), rate);
    const std::vector<double>& us = r.series.micros;
    const std::vector<double> q = quantiles(r.series);  // min, p50, p75, p90, p99, p99.9, p99.99, max
    double sum = 0;
    for (double v : us) sum += v;
    csv.row(c.label, k, rate, static_cast<long>(r.replies_per_second), us.size(), joined(q, 0, 1),
            tenths(base::median(us)), tenths(sum / static_cast<double>(us.size())), joined(q, 1, 8));
    std::map<int, std::size_t> buckets;  // 10 per decade: bucket b holds (10^((b-1)/10), 10^(b/10)] us
    for (double v : us) ++buckets[static_cast<int>(std::ceil(10 * std::log10(std::max(v, 1.0))))];
    for (const auto& [b, n] : buckets) histogram.row(c.label, k, std::pow(10.0, b / 10.0), n);
    std::cout << "repeat " << k << ": " << static_cast<long>(r.replies_per_second) << "/s, p50 " << q[1] << " us, p99 "
              << q[4] << " us" << std::endl;
  }
}

void capacity(Context& c) {
  const double seconds = c.seconds();  // bad sizes refused before the CSV is touched
  const auto window = static_cast<std::size_t>(c.integer("window", "4096", 1'000'000));
  std::string header = "label,workload,commands,seconds,per_s,batches_per_1000";
  for (std::string_view phase : kPhaseNames) header += "," + std::string(phase) + "_us";
  header += ",engine_us,wall_us";
  Csv csv(c.out, "capacity", header);
  const std::pair<const char*, std::function<std::string()>> mixes[] = {
      {"amendments", [&] { return format_command(c.workload.amendment()); }},
      {"reads_90_amendments_10",
       [&, i = std::size_t{0}]() mutable {
         return format_command(++i % 10 ? c.workload.read() : Command(c.workload.amendment()));
       }},
      {"bookings", [&] { return format_command(c.workload.booking()); }},
      {"curve_ticks", [&] { return format_command(c.workload.tick()); }},
      {"desk_day", [&] { return c.workload.desk_line(); }},
  };
  const auto measure = [&](const char* name, const std::function<double()>& run) {
    c.wait_for_results();  // the result writer's backlog of the last mix is not this one's
    const base::Json before = c.stats();
    const double per_s = run();
    const base::Json after = c.stats();
    // The commands the mix sent: every command counted since `before`, less the stats line that asked for it.
    // (The phases include the two stats lines' own microseconds, against thousands of commands.)
    std::size_t commands = 0;
    for (const auto& [command, n] : after.at(member::commands).items()) {
      commands += n.get<std::size_t>() - before.at(member::commands).at(command).get<std::size_t>();
    }
    commands -= 1;
    const auto delta = [&](const std::string& key) {
      return after.at(member::time_us).at(key).get<double>() - before.at(member::time_us).at(key).get<double>();
    };
    std::string phases;
    double engine = 0;
    char buf[32];
    for (std::string_view phase : kPhaseNames) {
      const double us = delta(std::string(phase)) / static_cast<double>(commands);
      engine += us;
      std::snprintf(buf, sizeof buf, "%s%.2f", phases.empty() ? "" : ",", us);
      phases += buf;
    }
    const double wall = static_cast<double>(commands) / per_s;
    // Batches: less the closing stats line's own.
    csv.row(c.label, name, commands, wall, static_cast<long>(per_s), 1000 * (delta(protocol::member::batches) - 1) / static_cast<double>(commands),
            phases, engine, 1e6 / per_s);
    std::cout << c.label << " " << name << ": " << static_cast<long>(per_s) << " commands/s" << std::endl;
  };
  for (const auto& mix : mixes) measure(mix.first, [&] { return c.client.flat_out(mix.second, seconds, window); });
  measure("amendments_one_at_a_time", [&] {
    const auto n = static_cast<std::size_t>(std::max(10.0, 200 * seconds));
    const Series s = c.client.round_trips("one", amendments(c.workload, n));
    double total = 0;
    for (double v : s.micros) total += v;
    return 1e6 * static_cast<double>(n) / total;
  });
}

}  // namespace

int bench_load_command(std::span<char* const> args) {
  const std::optional<base::ParsedArgs> parsed = base::parse_command(kSpec, args);
  if (!parsed) return 0;
  const base::ParsedArgs& a = *parsed;
  if (a.positional.size() != 1) {
    throw base::UsageError("bench-load takes one experiment: rates, patterns, memory, roundtrip, capacity, quotes or day");
  }
  for (const char* needed : {"socket", "db", "out"}) {
    if (!a.has(needed)) throw base::UsageError(std::string("bench-load needs --") + needed);
  }
  const std::map<std::string, void (*)(Context&)> experiments = {
      {"rates", rates},         {"patterns", patterns}, {"memory", memory},
      {"roundtrip", roundtrip}, {"capacity", capacity}, {"quotes", quotes}, {"day", day}};
  const auto experiment = experiments.find(a.positional[0]);
  if (experiment == experiments.end()) {
    throw base::UsageError("unknown experiment '" + a.positional[0] +
                           "' (rates, patterns, memory, roundtrip, capacity, quotes or day)");
  }
  const std::string db = a.get("db", "");
  // The engine first: it switches a fresh copy of the database to WAL as it
  // starts, which SQLite refuses at once (no busy wait) while a load here
  // holds the copy's write lock for its snapshot.
  EngineClient client(a.get("socket", ""));
  Workload workload = [&] {
    base::Database database(db, base::Database::Mode::read_only);
    return Workload(load(database).store, static_cast<std::uint64_t>(base::parse_integer(a.get("seed", "1"), 0, 1'000'000'000, "--seed")));
  }();
  Context context{client, workload, a, a.get("out", ""), a.get("label", "-"), db};
  experiment->second(context);
  return 0;
}

}  // namespace bond_risk
