// bin/bond_risk_mpi: `bond_risk scenarios` spread over MPI ranks.
//
//   mpirun -np N bin/bond_risk_mpi scenarios --db PATH [--set NAME] [--split scenarios|books]
//
// By scenario: every rank loads and flushes the whole graph, then revalues
// its block of each set's scenarios (rank r of N: scenarios [r n / N,
// (r + 1) n / N)). By book: the books of each kind, by id, are cut into N
// consecutive blocks (rank r: books [r n / N, (r + 1) n / N) of n); each
// rank loads only its books with their trades and bonds (and every curve
// and calendar), and revalues every scenario for them. Consecutive books
// are usually a desk's, trading the same bonds, so a rank holds about 1/N
// of the bonds as well as of the trades. Either way rank 0
// gathers every rank's share, puts it in scenario and book order, sums the
// totals in that order, and reports and writes the tables exactly as
// `bond_risk scenarios` does: a book's P&L is computed by the same code on
// the same inputs in the same order whichever rank runs it, so the results
// are the same bits for any N and both splits.
//
// Before any other collective, every rank reports to rank 0 what it read
// (digests of each set as resolved, the curves, the book ids and, by
// scenario, the trade ids and the base state) or why it could not read:
// a rank that failed, or read other inputs than rank 0, ends the job on
// every rank with a message naming it. A rank that fails later (no memory)
// prints its error with its rank and aborts the whole job; none waits
// forever for it.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <vector>

#include "base/cli_args.h"
#include "base/fnv1a.h"
#include "base/progress.h"
#include "bond_risk/cli/scenario_run.h"
#include "bond_risk/cli/settings.h"
#include "bond_risk/db/scenario_sets.h"
#include "bond_risk/live/live_model.h"
#include "bond_risk/model/store/layout.h"
#include "bond_risk/model/store/published_values.h"
#include "bond_risk/mpi/pnl_codec.h"
#include "bond_risk/mpi/world.h"
#include "engine/affinity.h"
#include "engine/scheduler.h"
#include "base/timing.h"

namespace bond_risk::mpi {

namespace {

base::CommandSpec spec() {
  std::vector<base::OptionSpec> options = scenarios_options();
  options.push_back({"split", "scenarios|books",
                     "scenarios (default): every rank loads the whole graph and revalues its share of the "
                     "scenarios; books: every rank loads only its share of the books and revalues every scenario"});
  return {"scenarios",
          "[--db PATH] [--set NAME] [--split scenarios|books] [--threads N] [--conf PATH]   (run with mpirun -np N)",
          "bond_risk scenarios over MPI ranks, split by scenario or by book; rank 0 gathers the P&L,\n"
          "computes VaR and ES and writes the tables of DB.scenarios.db, the same bits as one process writes.\n"
          "Without --threads (or NUM_THREADS) each rank takes its share of the cores it may run on, shared\n"
          "with the ranks that may run on them too, and pins its workers apart from theirs (CPU_AFFINITY).\n"
          "Prints each rank's load, revaluation and gather times, peak resident memory and worker CPUs.",
          std::move(options),
          "bond_risk_mpi"};
}

enum class Split { scenario, book };

// The rank's block of `n` things (scenarios, books of a kind): [r n / N, (r + 1) n / N).
std::pair<std::size_t, std::size_t> block(const World& world, std::size_t n) {
  const auto r = static_cast<std::size_t>(world.rank()), size = static_cast<std::size_t>(world.size());
  return {r * n / size, (r + 1) * n / size};
}

constexpr Kind kBookKinds[] = {Kind::outright_book, Kind::repo_book};

// Every book's id, of each kind of kBookKinds, by id.
std::vector<std::vector<std::int64_t>> book_ids(base::Database& db) {
  std::vector<std::vector<std::int64_t>> all;
  for (Kind kind : kBookKinds) {
    base::Statement st = db.prepare("SELECT id FROM " + std::string(kind_name(kind)) + " ORDER BY id");
    std::vector<std::int64_t>& ids = all.emplace_back();
    while (st.step()) ids.push_back(st.integer(0));
  }
  return all;
}

// The ids of rank r's books: of each kind, its block of `all` (book_ids).
std::vector<std::int64_t> books_of(const std::vector<std::vector<std::int64_t>>& all, const World& world) {
  std::vector<std::int64_t> mine;
  for (const std::vector<std::int64_t>& ids : all) {
    const auto [first, last] = block(world, ids.size());
    mine.insert(mine.end(), ids.begin() + static_cast<std::ptrdiff_t>(first), ids.begin() + static_cast<std::ptrdiff_t>(last));
  }
  return mine;
}

// Rank 0's whole set from every rank's share: by scenario, the ranks' blocks
// one after the other; by book, each kind's blocks in rank order (result
// order: outright books by id, then repo books), and each total summed
// again over every book in that order, as one process sums it.
std::vector<ScenarioPnl> assemble(Split split, const std::vector<RankShare>& shares, BookList& books) {
  std::vector<ScenarioPnl> pnl;
  if (split == Split::scenario) {
    for (const RankShare& share : shares) pnl.insert(pnl.end(), share.pnl.begin(), share.pnl.end());
    return pnl;
  }
  std::vector<std::pair<std::size_t, std::size_t>> order;  // (rank, place in its share), in result order
  for (Kind kind : {Kind::outright_book, Kind::repo_book}) {
    for (std::size_t r = 0; r < shares.size(); ++r) {
      const BookList& held = shares[r].books;
      for (std::size_t i = 0; i < held.size(); ++i) {
        if (held.kinds[i] != kind) continue;
        order.emplace_back(r, i);
        books.push_back(held.ids[i], held.kinds[i], held.publishes[i] != 0);
      }
    }
  }
  pnl.resize(shares.front().pnl.size());
  for (std::size_t k = 0; k < pnl.size(); ++k) {
    ScenarioPnl& p = pnl[k];
    for (const RankShare& share : shares) {
      if (p.error.empty()) p.error = share.pnl.at(k).error;
    }
    if (!p.error.empty()) continue;
    p.pnl.resize(order.size()), p.margin.resize(order.size());
    for (std::size_t j = 0; j < order.size(); ++j) {
      const ScenarioPnl& from = shares[order[j].first].pnl.at(k);
      p.pnl[j] = from.pnl.at(order[j].second), p.margin[j] = from.margin.at(order[j].second);
      p.total += p.pnl[j];
    }
  }
  return pnl;
}

// What one rank spent, its peak resident memory and where its workers ran.
struct RankTimes {
  double load = 0, revalue = 0, gather = 0;
  std::size_t scenarios = 0;
  long peak_rss_kb = 0;
  std::string worker_cpus = "-";  // the CPUs its workers are pinned to; "-": none pinned
};

std::string text(const RankTimes& t) {
  std::ostringstream out;
  out << t.load << " " << t.revalue << " " << t.gather << " " << t.scenarios << " " << t.peak_rss_kb << " " << t.worker_cpus;
  return out.str();
}

// What every rank must read alike, a line a part with its size and a hash
// (base/fnv1a.h): each set as resolved against the curves, the curves'
// points, every book's id and, by scenario (every rank loads the whole
// graph), every trade's id and the flushed base state (results_digest).
std::vector<std::string> input_digest(const Store& store, std::span<const ScenarioSet> sets,
                                      const std::vector<std::vector<std::int64_t>>& books, Split split) {
  std::vector<std::string> lines;
  for (const ScenarioSet& set : sets) {
    base::Fnv1a h;
    h.add(set.historical);
    std::size_t shifts = 0;
    for (const Scenario& scenario : set.scenarios) {
      h.add(scenario.id), h.add_text(scenario.name), h.add(scenario.shifts.size());
      for (const Shift& shift : scenario.shifts) {
        h.add(store.id(ref(Kind::ir_curve, shift.curve))), h.add(store.curves[shift.curve].point_idx[shift.point]);
        h.add(shift.bp);
      }
      shifts += scenario.shifts.size();
    }
    for (const std::string& problem : set.problems) h.add_text(problem);
    lines.push_back("set " + set.name + ": " + std::to_string(set.scenarios.size()) + " scenarios (" +
                    std::to_string(set.problems.size()) + " left out), " + std::to_string(shifts) + " shifts, #" +
                    base::hex(h.value()));
  }
  base::Fnv1a curves;
  std::size_t points = 0;
  for (NodeIndex c : in_id_order(store, Kind::ir_curve)) {
    const IrCurve& curve = store.curves[c];
    curves.add(store.id(ref(Kind::ir_curve, c))), curves.add(curve.points.size());
    for (std::size_t k = 0; k < curve.points.size(); ++k) {
      curves.add(curve.point_idx[k]), curves.add(curve.points[k].days_forward), curves.add(curve.points[k].value);
    }
    points += curve.points.size();
  }
  lines.push_back("curves: " + std::to_string(store.size(Kind::ir_curve)) + ", " + std::to_string(points) + " points, #" +
                  base::hex(curves.value()));
  base::Fnv1a book_hash;
  std::string counts;
  for (std::size_t k = 0; k < books.size(); ++k) {
    for (std::int64_t id : books[k]) book_hash.add(id);
    book_hash.add(books[k].size());
    counts += std::to_string(books[k].size()) + " " + std::string(kind_name(kBookKinds[k])) + ", ";
  }
  lines.push_back("books: " + counts + "#" + base::hex(book_hash.value()));
  if (split == Split::scenario) {
    base::Fnv1a trades;
    for (Kind kind : {Kind::outright_trade, Kind::repo_trade}) {
      for (NodeIndex t : in_id_order(store, kind)) trades.add(store.id(ref(kind, t)));
      trades.add(store.size(kind));
    }
    lines.push_back("trades: " + std::to_string(store.size(Kind::outright_trade)) + " outright_trade, " +
                    std::to_string(store.size(Kind::repo_trade)) + " repo_trade, #" + base::hex(trades.value()));
    lines.push_back("base state: #" + base::hex(results_digest(store)));
  }
  return lines;
}

// The part an input_digest line is of ("set historical", "curves"), and the
// line of `part` in `lines`, or "-".
std::string_view part_of(std::string_view line) { return line.substr(0, line.find(": ")); }
std::string line_of(const std::vector<std::string>& lines, std::string_view part) {
  const auto found = std::ranges::find_if(lines, [&](const std::string& line) { return part_of(line) == part; });
  return found == lines.end() ? "-" : *found;
}

// "rank 1 of 4", "ranks 1, 3 of 4", "every rank of 4".
std::string ranks_text(const std::vector<int>& ranks, int size) {
  const std::string of = " of " + std::to_string(size);
  if (static_cast<int>(ranks.size()) == size && size > 1) return std::string("every rank").append(of);
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t k = 0; k < ranks.size(); ++k) text.append(k ? ", " : "").append(std::to_string(ranks[k]));
  return text.append(of);
}

// Every rank's report of what it read ("ok" and its input_digest lines, or
// "usage" or "error" and why it could not read; a line each), checked on
// rank 0. Collective, before any other: a rank that failed cannot leave the
// others waiting. Rank 0 says which ranks failed or read other inputs than
// its own; every rank returns the job's exit code: 0 when every rank read
// the same, 2 when every failure is a usage error, 1 otherwise.
int check_ranks(const World& world, const std::string& report) {
  const std::vector<std::string> reports = world.gather(report);
  int code = 0;
  if (world.rank() == 0) {
    std::vector<std::pair<std::string, std::vector<int>>> failures;  // (why, its ranks), in rank order
    bool all_usage = true;
    std::vector<std::vector<std::string>> lines(reports.size());
    for (std::size_t r = 0; r < reports.size(); ++r) {
      std::istringstream in(reports[r]);
      std::string tag;
      std::getline(in, tag);
      if (tag == "ok") {
        for (std::string line; std::getline(in, line);) lines[r].push_back(line);
        continue;
      }
      all_usage = all_usage && tag == "usage";
      std::string why = reports[r].substr(tag.size() + 1);
      const auto same = std::ranges::find(failures, why, &std::pair<std::string, std::vector<int>>::first);
      (same != failures.end() ? same->second : failures.emplace_back(why, std::vector<int>{}).second)
          .push_back(static_cast<int>(r));
    }
    for (const auto& [why, ranks] : failures) std::cerr << "bond_risk_mpi: " << ranks_text(ranks, world.size()) << ": " << why << "\n";
    if (!failures.empty()) code = all_usage ? 2 : 1;
    for (std::size_t r = 1; failures.empty() && r < lines.size(); ++r) {
      if (lines[r] == lines[0]) continue;
      std::cerr << "bond_risk_mpi: " << ranks_text({static_cast<int>(r)}, world.size())
                << " read other inputs than rank 0; every rank must read the same database:\n";
      std::vector<std::string_view> parts;  // rank 0's, then those only rank r has
      for (const std::vector<std::string>* of : {&lines[0], &lines[r]}) {
        for (const std::string& line : *of) {
          if (std::ranges::find(parts, part_of(line)) == parts.end()) parts.push_back(part_of(line));
        }
      }
      for (std::string_view part : parts) {
        const std::string here = line_of(lines[0], part), there = line_of(lines[r], part);
        if (here != there) std::cerr << "  rank 0: " << here << "\n  rank " << r << ": " << there << "\n";
      }
      code = 1;
    }
  }
  return world.broadcast(code);
}

// What a rank reads before it revalues anything: its settings, the graph
// (its share of the books, by book), and every set to run resolved against it.
struct Job {
  Job(const World& world, const base::ParsedArgs& a) : settings(load_settings(a, [](const char* key) { return std::getenv(key); })) {
    if (!a.positional.empty()) throw base::UsageError("scenarios: unexpected argument '" + a.positional[0] + "'");
    if (!a.has("threads") && !std::getenv("NUM_THREADS")) {
      const std::size_t cores = engine::allowed_cpus().size() / static_cast<std::size_t>(world.cpu_peers());
      settings.scheduler.threads = cores > 1 ? cores : 0;  // one core: the master alone
    }
    // Ranks that may run on the same CPUs would each pin their worker i to the
    // same i-th of them: each starts its workers further along the list.
    std::vector<int>& cpus = settings.scheduler.cpus;
    if (!cpus.empty()) {
      const std::size_t first = static_cast<std::size_t>(world.cpu_peer_rank()) * settings.scheduler.threads % cpus.size();
      std::ranges::rotate(cpus, cpus.begin() + static_cast<std::ptrdiff_t>(first));
    }
    const std::string split_name = a.get("split", "scenarios");
    if (split_name != "scenarios" && split_name != "books") {
      throw base::UsageError("--split must be scenarios or books, not '" + split_name + "'");
    }
    split = split_name == "books" ? Split::book : Split::scenario;
    const std::vector<std::string> names = sets_to_run(a, db);
    const base::Stopwatch load_watch;
    const std::vector<std::vector<std::int64_t>> books = book_ids(db);
    const std::vector<std::int64_t> my_books = split == Split::book ? books_of(books, world) : std::vector<std::int64_t>{};
    // (One rank's share is every book: a whole load, without the share's id sets.)
    model = scenario_model(db, settings, split == Split::book && world.size() > 1 ? &my_books : nullptr, world.rank() == 0);
    load_seconds = load_watch.seconds();
    for (const std::string& name : names) {
      sets.push_back(base::usage_checked([&] { return read_scenario_set(db, model->store(), name); }));
    }
    digest = input_digest(model->store(), sets, books, split);
  }

  Settings settings;
  base::Database db{settings.db, base::Database::Mode::read_only};
  Split split = Split::scenario;
  std::unique_ptr<LiveModel> model;
  double load_seconds = 0;
  std::vector<ScenarioSet> sets;
  std::vector<std::string> digest;  // input_digest
};

int scenarios(const World& world, std::span<char* const> args) {
  const bool root = world.rank() == 0;
  const base::CommandSpec command = spec();
  // The same arguments on every rank: each finds the same mistake in them.
  const base::ParsedArgs a = base::parse_args(command, args);
  if (a.help) {
    if (root) std::cout << base::help_text(command);
    return 0;
  }
  std::optional<Job> job;
  std::string report = "ok";
  try {
    job.emplace(world, a);
    for (const std::string& line : job->digest) report += "\n" + line;
  } catch (const base::UsageError& e) {
    report = std::string("usage\n") + e.what();
  } catch (const std::exception& e) {
    report = std::string("error\n") + e.what();
  }
  if (const int code = check_ranks(world, report); code != 0) return code;
  const Settings& settings = job->settings;
  const Split split = job->split;
  const std::unique_ptr<LiveModel>& model = job->model;
  const ScenarioBase base(model->store());
  RankTimes times;
  times.load = job->load_seconds;
  if (root) {
    std::cout << "Loaded " << model->store().size() << " objects from " << settings.db << " on rank 0 of " << world.size()
              << (split == Split::book ? " (its share of the books)" : " (every rank: the whole graph)") << " in "
              << times.load << " seconds; " << settings.scheduler.threads << " worker threads a rank.\n";
  }

  std::unique_ptr<base::Database> results;
  if (root) results = open_scenario_results(settings.db);
  for (const ScenarioSet& set : job->sets) {
    const std::string& name = set.name;
    if (root) {
      for (const std::string& p : set.problems) std::cerr << "bond_risk: warning: set " << name << ": " << p << "\n";
    }
    world.barrier();  // every rank starts the set together: the wall time is the job's
    const base::Stopwatch set_watch;
    const auto [first, last] = split == Split::book ? std::pair<std::size_t, std::size_t>{0, set.scenarios.size()}
                                                     : block(world, set.scenarios.size());
    RankShare mine;
    if (split == Split::book) mine.books = base.book_list();
    {
      std::optional<base::ProgressBar> progress;
      if (root) progress.emplace("Scenarios " + name + " (rank 0's share)", last - first);
      mine.pnl = revalue_all(base, std::span(set.scenarios).subspan(first, last - first), model->scheduler(),
                             [&](std::size_t done) { if (progress) progress->update(done); });
    }
    times.revalue += set_watch.seconds();
    times.scenarios += last - first;
    const base::Stopwatch gather_watch;
    const std::vector<std::string> gathered = world.gather(encode(mine));
    times.gather += gather_watch.seconds();
    if (!root) continue;
    std::vector<RankShare> shares;
    for (const std::string& bytes : gathered) shares.push_back(decode(bytes));
    BookList books = split == Split::scenario ? base.book_list() : BookList{};
    const std::vector<ScenarioPnl> pnl = assemble(split, shares, books);
    if (pnl.size() != set.scenarios.size()) {
      throw std::runtime_error("the ranks returned " + std::to_string(pnl.size()) + " results for " +
                               std::to_string(set.scenarios.size()) + " scenarios");
    }
    report_set(*results, name, set, books, pnl, set_watch.seconds());
  }

  times.peak_rss_kb = base::ProcessCounters::now().peak_rss_kb;
  if (const std::vector<int> pinned = engine::pinned_worker_cpus(settings.scheduler); !pinned.empty()) {
    times.worker_cpus = engine::format_cpu_list(pinned);
  }
  const std::vector<std::string> all = world.gather(text(times));
  if (root) {
    std::cout << "rank  load s  revalue s  gather s  scenarios  peak RSS MB  worker CPUs\n";
    for (std::size_t r = 0; r < all.size(); ++r) {
      std::istringstream in(all[r]);
      RankTimes t;
      in >> t.load >> t.revalue >> t.gather >> t.scenarios >> t.peak_rss_kb >> t.worker_cpus;
      std::printf("%4zu %7.3f %10.3f %9.3f %10zu %12.1f  %s\n", r, t.load, t.revalue, t.gather, t.scenarios,
                  t.peak_rss_kb / 1024.0, t.worker_cpus.c_str());
    }
  }
  return 0;
}

constexpr const char* kUsage = R"(usage: mpirun -np N bond_risk_mpi scenarios [OPTIONS]

bond_risk's batch risk over MPI ranks (OpenMPI).

commands:
  scenarios  revalue every book under a scenario set, each rank its share of the scenarios

Run 'bond_risk_mpi scenarios --help' for its options; 'bond_risk_mpi --version' for the
version and the git commit this binary was built from.
)";

#if !defined(BOND_RISK_VERSION) || !defined(BOND_RISK_COMMIT)
#error "build bond_risk_mpi with make: it defines BOND_RISK_VERSION and BOND_RISK_COMMIT"
#endif

}  // namespace

}  // namespace bond_risk::mpi

int main(int argc, char** argv) {
  bond_risk::mpi::World world(&argc, &argv);
  const std::span<char* const> all(argv, static_cast<std::size_t>(argc));
  try {
    if (all.size() >= 2 && std::string_view(all[1]) == "--version") {
      if (world.rank() == 0) std::cout << "bond_risk_mpi " << BOND_RISK_VERSION << " (commit " << BOND_RISK_COMMIT << ")\n";
      return 0;
    }
    if (all.size() < 2 || std::string_view(all[1]) != "scenarios") {
      const bool help = all.size() >= 2 && (std::string_view(all[1]) == "--help" || std::string_view(all[1]) == "-h");
      if (world.rank() == 0) (help ? std::cout : std::cerr) << bond_risk::mpi::kUsage;
      return help ? 0 : 2;
    }
    return bond_risk::mpi::scenarios(world, all.subspan(2));
  } catch (const base::UsageError& e) {
    if (world.rank() == 0) std::cerr << "bond_risk_mpi: " << e.what() << "\n";
    return 2;  // every rank found the same mistake
  } catch (const std::exception& e) {
    world.abort(std::string("error: ") + e.what());
  }
}
