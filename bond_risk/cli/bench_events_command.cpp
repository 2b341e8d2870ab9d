// bond_risk bench-events: latency percentiles of events on a running engine,
// in process and end to end through the socket, and sustained rates with
// group commit (see event_series.h for where each clock starts and stops).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <functional>

#include "base/cli_args.h"
#include "base/gnuplot.h"
#include "base/json.h"
#include "base/percentile.h"
#include "bond_risk/cli/commands.h"
#include "bond_risk/lab/event_series.h"
#include "bond_risk/cli/settings.h"
#include "bond_risk/lab/workloads.h"
#include "bond_risk/synth/limit_generator.h"
#include "bond_risk/db/database_rows.h"
#include "bond_risk/db/loader.h"
#include "bond_risk/db/schema.h"
#include "bond_risk/model/limits/risk_limits.h"
#include "bond_risk/protocol/command.h"
#include "bond_risk/protocol/messages.h"

namespace bond_risk {

namespace {

const base::CommandSpec kSpec = {
    "bench-events",
    "[--db PATH] [--threads N] [--events N] [--bumps N] [--ticks N] [--out DIR]",
    "Measures, on a copy of the database. In process (apply + recalculate + the P&L explain's bookkeeping\n"
    "+ the limits' checks; no input row, event log or commit): outright-trade\n"
    "amendments, 1bp bumps of one curve, date rolls (each also timed without the marking apply does),\n"
    "and full flushes as the yardstick. End to end through\n"
    "the socket (from writing the line to reading its reply, which leaves after the durable commit):\n"
    "amendments, bumps, date rolls and whole-curve ticks one at a time (bumps and rolls also each sent to\n"
    "a quiet engine: once the last one's results are written and a pause has passed); ticks paced at 200 a second\n"
    "and as fast as they are taken; pipelined amendments (group commit). Alerts: 100 books' day_pnl limits,\n"
    "each crossed by a 1bp bump and cured by the bump back, from each bump's reply to a second connection\n"
    "watching the limits having read its 100th alert.\n"
    "Writes DIR/latency.csv (series, percentile, microseconds), DIR/summary.txt and, with gnuplot,\n"
    "DIR/latency.png.",
    {
        {"db", "PATH", "database (APP_DB; default data/bond_risk_440k.db)"},
        {"threads", "N", "worker threads (NUM_THREADS)"},
        {"events", "N", "amendments per series (default 20000)"},
        {"bumps", "N", "bumps, date rolls and single whole-curve ticks per series (default 40)"},
        {"ticks", "N", "whole-curve ticks in each pipelined series (default 1000)"},
        {"alert-bumps", "N", "bumps in the alerts series (default 50; 0: none)"},
        {"pause", "MS", "milliseconds a quiet engine rests before each bump and roll (default 50)"},
        {"limits-per-book", "N", "replace the copy's risk limits with a generated set of N per book (default: keep them)"},
        {"out", "DIR", "output directory (default bench/out/events)"},
        kConfOption,
    },
};

// Alternating +1bp and -1bp bumps of a curve; date rolls a day forward and back.
std::vector<Change> bumps(const std::string& curve, std::size_t n) {
  std::vector<Change> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(BumpCurve{curve, i % 2 ? -1.0 : 1.0});
  return out;
}
std::vector<Change> rolls(Date today, std::size_t n) {
  std::vector<Change> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(RollDate{today + (i % 2 ? 0 : 1), std::nullopt});
  return out;
}

std::vector<Change> draw(std::size_t n, const std::function<Change()>& next) {
  std::vector<Change> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(next());
  return out;
}

std::vector<std::string> lines_of(const std::vector<Change>& changes) {
  std::vector<std::string> out;
  for (const Change& c : changes) out.push_back(format_command(c));
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

void write_report(const std::string& out, const std::vector<Series>& series, const std::vector<std::string>& notes) {
  std::ofstream csv(out + "/latency.csv");
  std::ofstream summary(out + "/summary.txt");
  csv << "series,percentile,micros\n";
  const double points[] = {0, 50, 75, 90, 99, 99.9, 99.99, 100};
  const char* names[] = {"min", "p50", "p75", "p90", "p99", "p99.9", "p99.99", "max"};
  char line[256];
  std::snprintf(line, sizeof line, "%-34s %7s %9s %9s %9s %9s %9s %9s %9s %9s\n", "microseconds", "n", "min", "p50",
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
    std::snprintf(line, sizeof line, "%-34s %7zu", s.name.c_str(), s.micros.size());
    summary << line << row << "\n";
  }
  for (const std::string& note : notes) summary << note << "\n";
  summary.close();
  csv.close();
  std::cout << std::ifstream(out + "/summary.txt").rdbuf();
  std::string names_list;
  for (const Series& s : series) names_list += (names_list.empty() ? "" : " ") + s.name;
  std::ifstream source("bench/latency.gp");
  std::ostringstream script;
  script << source.rdbuf();
  try {
    if (!source) throw std::runtime_error("cannot read bench/latency.gp (run from the source tree)");
    base::run_gnuplot(script.str(), {names_list}, out);
    std::cout << "Plot: " << out << "/latency.png\n";
  } catch (const std::exception& e) {
    std::cout << "No plot: " << e.what() << "\n";
  }
}

double median_of(const Series& s) { return base::percentile(s.micros, 50); }

constexpr std::size_t kAlertBooks = 100;

// Up to `count` outright books whose trades hold bonds on `curve`.
std::vector<std::string> books_on(const Store& s, const std::string& curve, std::size_t count) {
  const NodeIndex c = s.names.at(curve).index;
  std::vector<std::string> out;
  for (NodeIndex b = 0; b < s.outright_books.size() && out.size() < count; ++b) {
    const std::vector<NodeIndex>& members = s.outright_books[b].members;
    if (!members.empty() && s.bonds[s.outright_trades[members.front()].bond].curve == c) {
      out.push_back(s.name_of(ref(Kind::outright_book, b)));
    }
  }
  return out;
}

// A new day, and a day_pnl limit on each book within half its pv01 either
// side: a 1bp bump of their curve breaches each, the bump back cures it.
Series alerts_series(EngineClient& client, const std::string& socket, const std::vector<std::string>& books,
                     const std::vector<Change>& bumps) {
  client.ask(format_command(Change{StartDay{}}));
  for (const std::string& book : books) {
    const double pv01 = base::Json::parse(client.ask(format_command(ShowBook{book}))).at(protocol::member::pv01).get<double>();
    client.ask(format_command(Change{SetLimit{book, std::string(limit_measure_name(LimitMeasure::day_pnl)), std::nullopt, std::nullopt, -std::abs(pv01) / 2, std::abs(pv01) / 2}}));
  }
  return client.alert_deliveries("alerts_" + std::to_string(books.size()) + "_after_ack", socket, lines_of(bumps),
                                 books.size());
}

// The engine's own time per event over what `send` sends, from its stats'
// time_us before and after (the clock inside the engine, around each phase):
// apply, recalculate, the P&L explain's bookkeeping and the limits' checks
// (also as shares of the first two), and the writing of alerts.
Series phases_per_event(EngineClient& client, const std::string& what, const std::function<Series()>& send,
                        std::vector<std::string>& notes) {
  const std::string stats(command_info(CommandId::stats).name);
  auto time_us = [&] { return base::Json::parse(client.ask(stats)).at(protocol::member::time_us); };
  const base::Json before = time_us();
  Series series = send();
  const base::Json after = time_us();
  auto per_event = [&](const char* phase) {
    return (after.at(phase).get<double>() - before.at(phase).get<double>()) / static_cast<double>(series.micros.size());
  };
  const double apply = per_event("apply"), recalculate = per_event("recalculate"), explain = per_event("pnl_explain");
  const double checks = per_event("limit_checks"), alerts = per_event("limit_alerts");
  char note[400];
  std::snprintf(note, sizeof note,
                "engine time per %s, in process (mean): apply %.1f us, recalculate %.1f us, explain %.2f us "
                "(%.1f%% of apply + recalculate), limit checks %.2f us (%.1f%%), writing alerts %.2f us",
                what.c_str(), apply, recalculate, explain, 100 * explain / (apply + recalculate), checks,
                100 * checks / (apply + recalculate), alerts);
  notes.push_back(note);
  return series;
}

}  // namespace

int bench_events_command(std::span<char* const> args) {
  const std::optional<Invocation> invoked = invocation(kSpec, args);
  if (!invoked) return 0;
  const base::ParsedArgs& a = invoked->args;
  const Settings& settings = invoked->settings;
  const auto events = static_cast<std::size_t>(base::parse_integer(a.get("events", "20000"), 1, 10'000'000, "--events"));
  const auto n = static_cast<std::size_t>(base::parse_integer(a.get("bumps", "40"), 1, 100'000, "--bumps"));
  const auto tick_count = static_cast<std::size_t>(base::parse_integer(a.get("ticks", "1000"), 1, 1'000'000, "--ticks"));
  const std::string out = a.get("out", "bench/out/events");
  std::filesystem::create_directories(out);
  const std::string copy = out + "/bench-events.db", socket = out + "/bench-events.sock";
  std::filesystem::copy_file(settings.db, copy, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::remove(out + "/bench-events.results.db");
  if (a.has("limits-per-book")) {
    add_limit_set(copy, 1, static_cast<std::size_t>(base::parse_integer(a.get("limits-per-book", ""), 0, 1000, "--limits-per-book")));
  }
  const auto alert_bumps =
      static_cast<std::size_t>(base::parse_integer(a.get("alert-bumps", "50"), 0, 100'000, "--alert-bumps"));
  const std::chrono::milliseconds pause(base::parse_integer(a.get("pause", "50"), 0, 60'000, "--pause"));

  std::vector<Series> series;
  std::vector<std::string> notes;
  std::vector<Change> amend_a, amend_b, bump, roll, tick;
  std::string bumped;                     // the curve the bumps move
  std::vector<std::string> alert_books;  // outright books on it
  {
    base::Database input(copy, base::Database::Mode::read_only);  // for the changes' look-ups
    const DatabaseRows stored(input);
    Store store = load(input).store;
    store.with_key_rates = settings.key_rates;  // KEY_RATES, as the engine it starts below reads it too
    store.with_quote_analytics = settings.quote_analytics;
    LiveModel model(std::move(store), settings.scheduler, settings.grain);
    model.flush_all();
    // The explain's rows and the alerts go to a database in memory: no
    // file's writing runs under the in-process clocks (which leave it out).
    base::Database bookkeeping_db(":memory:", base::Database::Mode::read_write);
    bookkeeping_db.exec(kSchemaSql);
    Workload a_draw(model.store(), 1), b_draw(model.store(), 2);
    const std::string first_curve = a_draw.first_curve();
    bumped = first_curve, alert_books = books_on(model.store(), first_curve, kAlertBooks);
    amend_a = draw(events, [&] { return a_draw.amendment(); }), amend_b = draw(events, [&] { return b_draw.amendment(); });
    bump = bumps(first_curve, n), roll = rolls(a_draw.today(), n);
    tick = draw(std::max(n, tick_count), [&] { return a_draw.tick(); });
    const InProcess amend = in_process("amend", model, stored, bookkeeping_db, amend_a);
    const Series flushes = full_flushes(model, n);
    const InProcess bumped_in = in_process("bump", model, stored, bookkeeping_db, bump);
    const InProcess rolled = in_process("roll", model, stored, bookkeeping_db, roll);
    const double flush = median_of(flushes);
    notes.push_back("nodes recalculated per 1bp bump of " + first_curve + ": " + std::to_string(bumped_in.nodes));
    char ratio[240];
    std::snprintf(ratio, sizeof ratio,
                  "in process, medians: bump / full flush %.2f (its recalculation alone %.2f), roll / full flush %.2f "
                  "(recalculation alone %.2f)",
                  median_of(bumped_in.events) / flush, median_of(bumped_in.recalculation) / flush,
                  median_of(rolled.events) / flush, median_of(rolled.recalculation) / flush);
    notes.push_back(ratio);
    for (const InProcess* p : {&amend, &bumped_in, &rolled}) {
      std::snprintf(ratio, sizeof ratio,
                    "in process, medians over the same events: %s explain %.2f us, limit checks %.2f us, of %.1f us "
                    "(%.1f%% and %.1f%%)",
                    p->events.name.c_str(), median_of(p->explain), median_of(p->limit_checks), median_of(p->events),
                    100 * median_of(p->explain) / median_of(p->events), 100 * median_of(p->limit_checks) / median_of(p->events));
      notes.push_back(ratio);
    }
    series.push_back(amend.events);
    series.push_back(flushes);
    for (const InProcess* p : {&bumped_in, &rolled}) series.push_back(p->events);
    for (const InProcess* p : {&bumped_in, &rolled}) series.push_back(p->recalculation);
    for (const InProcess* p : {&amend, &bumped_in, &rolled}) {
      series.push_back(p->explain);
      series.push_back(p->limit_checks);
    }
  }
  {
    const Child engine(copy, socket, settings.scheduler.threads);
    EngineClient client(socket);
    auto timed = [&](const char* name, const char* what, const std::vector<Change>& changes) {
      series.push_back(phases_per_event(client, what, [&] { return client.round_trips(name, lines_of(changes)); }, notes));
    };
    timed("amend_end_to_end", "amendment", amend_b);
    timed("bump_end_to_end", "1bp bump", bump);
    timed("roll_end_to_end", "date roll", roll);
    series.push_back(client.quiet_round_trips("bump_quiet_end_to_end", lines_of(bump), pause));
    series.push_back(client.quiet_round_trips("roll_quiet_end_to_end", lines_of(roll), pause));
    const std::vector<std::string> tick_lines = lines_of(tick);
    series.push_back(client.round_trips("set_curve_end_to_end", {tick_lines.begin(), tick_lines.begin() + n}));
    OpenLoop paced = client.open_loop("ticks_200_per_s_end_to_end", tick_lines, 200);
    series.push_back(std::move(paced.series));
    notes.push_back("whole-curve ticks due at 200 a second (latency from each one's due time): " +
                    std::to_string(static_cast<long>(paced.replies_per_second)) + " acknowledged a second");
    OpenLoop flat = client.open_loop("ticks_flat_out_end_to_end", tick_lines, 0);
    series.push_back(std::move(flat.series));
    notes.push_back("whole-curve ticks as fast as taken: " + std::to_string(static_cast<long>(flat.replies_per_second)) +
                    " acknowledged a second (each reply carries the values of its tick)");
    const double rate = client.open_loop("amend_pipelined", lines_of(amend_b), 0).replies_per_second;
    notes.push_back("sustained durable amendments with group commit: " + std::to_string(static_cast<long>(rate)) +
                    " per second");
    if (alert_bumps > 0) series.push_back(alerts_series(client, socket, alert_books, bumps(bumped, alert_bumps)));
  }
  write_report(out, series, notes);
  std::filesystem::remove(copy);
  return 0;
}

}  // namespace bond_risk
