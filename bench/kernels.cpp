// Microbenchmarks of the flush's per-type kernels (Google Benchmark): each
// type's batch calculation over all of its nodes, in index order, on a data
// set loaded as the engine loads it, each without and with key-rate ladders
// (a bond's also with quote analytics);
// the least the books' ladders can cost (book_rows_floor, by book and by
// bond); a flush of one
// curve by one worker and by two (flush_one_curve); the marking a
// move of one curve does before its recalculation, and the copy of its
// result rows after (copy_rows_one_curve, by the master alone and with 2
// workers); a whole load, from the database to a graph ready for its
// first flush (load_and_build); and a walk over memory after an idle
// spell, in 4 KiB pages and in huge pages (walk_after_idle).
// `make bench-kernels` runs them on the 440k set; by hand, pass Google
// Benchmark's flags after the database:
//   build/release/bench/kernels data/bond_risk_440k.db --benchmark_repetitions=5
#include <Eigen/Core>
#include <benchmark/benchmark.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "base/huge_pages.h"
#include "base/sqlite.h"
#include "bond_risk/db/loader.h"
#include "bond_risk/model/nodes/calculations.h"
#include "bond_risk/model/nodes/result_rows.h"
#include "engine/flush.h"
#include "engine/scheduler.h"

namespace {

using bond_risk::Kind;

// A loaded and fully flushed data set.
struct DataSet {
  bond_risk::Store store;
  engine::Graph graph;

  explicit DataSet(const std::string& path) {
    base::Database db(path, base::Database::Mode::read_only);
    store = bond_risk::load(db).store;
    bond_risk::build_graph(store, graph);
    const std::unique_ptr<engine::Scheduler> master = engine::make_scheduler(engine::SchedulerOptions{.threads = 0});
    engine::flush(graph, *master, 4096);
  }
};

void kernel(benchmark::State& state, DataSet& data, Kind kind, bool key_rates, bool quote_analytics) {
  data.store.with_key_rates = key_rates;
  data.store.with_quote_analytics = quote_analytics;
  std::vector<engine::NodeIndex> nodes(data.store.size(kind));
  std::iota(nodes.begin(), nodes.end(), engine::NodeIndex{0});
  const engine::Graph::BatchFn& calculate = data.graph.calculation(static_cast<engine::TypeId>(kind));
  // Books ask the graph for their changed inputs, which it answers during a
  // flush: hold one open, with every node to be calculated whole.
  data.graph.mark_all_dirty();
  data.graph.prepare_flush();
  for (auto _ : state) calculate(nodes);
  data.graph.finish_flush();
  for (engine::TypeId t = 0; t < data.graph.type_count(); ++t) data.graph.clear_dirty(t);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * nodes.size()));
}

// The least a flush's books can spend on their ladders from their members'
// bond ladders: per book a contiguous list of (bond, weight), one per
// member of either kind (a repo's margin row; not its mtm_pnl row), built
// before the clock starts, each member's 12-point bond ladder added two
// lanes at a time; no statuses, no trade structs, no curve checks.
void book_rows_floor(benchmark::State& state, DataSet& data, bool by_bond) {
  const bond_risk::Store& s = data.store;
  constexpr std::size_t kPoints = 12;
  if (s.key_rate_axis.stride != kPoints || s.bond_kr01.size() < s.bonds.size() * kPoints) {
    state.SkipWithError("needs ladders of 12 points (the generated curves')");
    return;
  }
  struct Position {
    engine::NodeIndex bond;
    double weight;
  };
  std::vector<std::vector<Position>> books;
  auto lay_out = [&books](const auto& of_kind, const auto& trades, auto weight) {
    for (const auto& book : of_kind) {
      std::vector<Position>& p = books.emplace_back();
      for (engine::NodeIndex m : book.members) p.push_back({trades[m].bond, weight(trades[m])});
    }
  };
  lay_out(s.outright_books, s.outright_trades,
          [](const bond_risk::OutrightTrade& t) { return static_cast<double>(t.quantity) * t.dir; });
  lay_out(s.repo_books, s.repo_trades, [](const bond_risk::RepoTrade& t) { return -static_cast<double>(t.notional); });
  using Row = Eigen::Array<double, kPoints, 1, Eigen::DontAlign>;
  std::vector<Row> ladders(books.size());
  std::size_t rows = 0;
  for (const auto& p : books) rows += p.size();
  if (!by_bond) {
    for (auto _ : state) {
      for (std::size_t k = 0; k < books.size(); ++k) {
        Row sum = Row::Zero();
        for (const Position& p : books[k]) sum += p.weight * Eigen::Map<const Row>(s.bond_ladder(p.bond).data());
        ladders[k] = sum;
      }
      benchmark::DoNotOptimize(ladders.data());
    }
  } else {  // the same positions by bond: the bonds' ladders read in order, each added to its books' (in cache)
    struct Holding {
      std::size_t book;
      double weight;
    };
    std::vector<std::size_t> first(s.bonds.size() + 1, 0);  // bond b's holdings at [first[b], first[b + 1])
    for (const auto& book : books) {
      for (const Position& p : book) ++first[p.bond + 1];
    }
    std::partial_sum(first.begin(), first.end(), first.begin());
    std::vector<Holding> held(rows);
    std::vector<std::size_t> next(first.begin(), first.end() - 1);
    for (std::size_t k = 0; k < books.size(); ++k) {
      for (const Position& p : books[k]) held[next[p.bond]++] = {k, p.weight};
    }
    for (auto _ : state) {
      for (Row& l : ladders) l.setZero();
      for (std::size_t b = 0; b < s.bonds.size(); ++b) {
        const Eigen::Map<const Row> row(s.bond_ladder(static_cast<engine::NodeIndex>(b)).data());
        for (std::size_t j = first[b]; j < first[b + 1]; ++j) ladders[held[j].book] += held[j].weight * row;
      }
      benchmark::DoNotOptimize(ladders.data());
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * rows));
}

// The master's copy of a curve move's result rows: every node downstream
// of curve 0 put into a ResultRows (as ResultPublisher::add does, in index
// order per kind), cleared between iterations with its space kept; by the
// master alone, or with `workers` more threads sharing the copy.
void copy_rows(benchmark::State& state, DataSet& data, std::size_t workers) {
  const std::unique_ptr<engine::Scheduler> pool = engine::make_scheduler(engine::SchedulerOptions{.threads = workers});
  const engine::NodeRef curve{static_cast<engine::TypeId>(Kind::ir_curve), 0};
  std::array<std::vector<engine::NodeIndex>, bond_risk::kKindCount> moved;  // what its move recalculates, by kind
  data.graph.mark_dirty(curve);
  for (engine::TypeId t = 0; t < data.graph.type_count(); ++t) {
    const auto dirty = data.graph.dirty(t);  // in index order, as the flush lists them
    moved[t].assign(dirty.begin(), dirty.end());
  }
  data.graph.prepare_flush();
  data.graph.finish_flush();
  for (engine::TypeId t = 0; t < data.graph.type_count(); ++t) data.graph.clear_dirty(t);
  std::size_t rows = 0;
  for (std::size_t k = static_cast<std::size_t>(Kind::bond); k < bond_risk::kKindCount; ++k) rows += moved[k].size();
  state.counters["rows"] = static_cast<double>(rows);
  bond_risk::ResultRows out;
  for (auto _ : state) {
    out.clear();
    for (std::size_t k = static_cast<std::size_t>(Kind::bond); k < bond_risk::kKindCount; ++k) {
      out.put(data.store, data.graph, static_cast<Kind>(k), moved[k], pool.get());
    }
    benchmark::DoNotOptimize(out.size());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * rows));
}

// A flush of curve 0 alone, everything on (its daily and key-rate arrays,
// its grids' sums and moments), on a graph of that one node, by `workers`
// threads: the steps of a split node (engine/graph.h, Split) shared among them.
void flush_one_curve(benchmark::State& state, DataSet& data, std::size_t workers) {
  data.store.with_key_rates = true;
  data.store.with_quote_analytics = true;
  const auto curves = static_cast<engine::TypeId>(Kind::ir_curve);
  engine::Graph one;
  one.add_type("ir_curve", 1, data.graph.calculation(curves),
               {.cost = data.graph.cost(curves), .split = data.graph.split(curves)});
  one.add_nodes(0, 1);
  const std::unique_ptr<engine::Scheduler> pool = engine::make_scheduler(engine::SchedulerOptions{.threads = workers});
  for (auto _ : state) {
    one.mark_dirty({0, 0});
    engine::flush(one, *pool, 4096);
  }
}

// Marking alone: a change of curve 0's input rates marks what is downstream
// of it (the walk an incremental bump-curve does before its recalculation).
void mark_curve(benchmark::State& state, DataSet& data) {
  const engine::NodeRef curve{static_cast<engine::TypeId>(Kind::ir_curve), 0};
  for (auto _ : state) {
    data.graph.mark_dirty(curve);
    state.PauseTiming();
    data.graph.prepare_flush();
    data.graph.finish_flush();
    for (engine::TypeId t = 0; t < data.graph.type_count(); ++t) data.graph.clear_dirty(t);
    state.ResumeTiming();
  }
  state.counters["nodes"] = static_cast<double>(data.graph.subscribers(curve).size());
}

// A walk over 320 MB, a cache line in each 64 bytes, after the process sat
// idle for `idle_ms` (not timed): in 4 KiB pages (std::vector) and in huge
// pages (base::HugeVector). How much a page's size costs a walk on this
// host, and how much more after an idle spell: the engine meets each
// event of a quiet desk that way.
template <class Vector>
void walk_after_idle(benchmark::State& state, int idle_ms) {
  Vector v(40'000'000, 1);
  std::uint64_t sum = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::this_thread::sleep_for(std::chrono::milliseconds(idle_ms));
    state.ResumeTiming();
    for (std::size_t i = 0; i < v.size(); i += 8) sum += v[i]++;
  }
  benchmark::DoNotOptimize(sum);
}

// What `run` times as "Loaded ... in": the database read into the store
// (two readers for the trade and membership tables when there are two CPUs)
// and the graph built, ready to flush.
void load_and_build(benchmark::State& state, const std::string& path) {
  for (auto _ : state) {
    base::Database db(path, base::Database::Mode::read_only);
    bond_risk::Store store = bond_risk::load(db).store;
    engine::Graph graph;
    bond_risk::build_graph(store, graph);
    benchmark::DoNotOptimize(graph.type_count());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: %s DB [Google Benchmark flags]\n", argv[0]);
    return 2;
  }
  DataSet data(argv[1]);
  for (Kind kind : {Kind::ir_curve, Kind::bond, Kind::outright_trade, Kind::repo_trade, Kind::outright_book,
                    Kind::repo_book}) {
    for (bool key_rates : {false, true}) {
      for (bool quote_analytics : {false, true}) {
        if (quote_analytics && (kind != Kind::bond || key_rates)) continue;  // only a bond's kernel computes them
        const std::string name = std::string(bond_risk::kind_name(kind)) + (key_rates ? "+key_rates" : "") +
                                 (quote_analytics ? "+quote_analytics" : "");
        benchmark::RegisterBenchmark(name.c_str(), [&data, kind, key_rates, quote_analytics](benchmark::State& state) {
          kernel(state, data, kind, key_rates, quote_analytics);
        })->Unit(benchmark::kMicrosecond);
      }
    }
  }
  for (const bool by_bond : {false, true}) {
    benchmark::RegisterBenchmark(by_bond ? "book_rows_floor/by_bond" : "book_rows_floor",
                                 [&data, by_bond](benchmark::State& state) { book_rows_floor(state, data, by_bond); })
        ->Unit(benchmark::kMicrosecond);
  }
  for (const std::size_t workers : {0, 2}) {
    const std::string name = "copy_rows_one_curve/workers:" + std::to_string(workers);
    benchmark::RegisterBenchmark(name.c_str(), [&data, workers](benchmark::State& state) { copy_rows(state, data, workers); })
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
  }
  for (const std::size_t workers : {1, 2}) {
    const std::string name = "flush_one_curve/workers:" + std::to_string(workers);
    benchmark::RegisterBenchmark(name.c_str(), [&data, workers](benchmark::State& state) { flush_one_curve(state, data, workers); })
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
  }
  benchmark::RegisterBenchmark("mark_one_curve", [&data](benchmark::State& state) { mark_curve(state, data); })
      ->Unit(benchmark::kMicrosecond);
  for (const int idle_ms : {50, 1000}) {
    const std::string idle = "/idle_ms:" + std::to_string(idle_ms);
    benchmark::RegisterBenchmark(("walk_after_idle/4k_pages" + idle).c_str(), [idle_ms](benchmark::State& state) {
      walk_after_idle<std::vector<std::uint64_t>>(state, idle_ms);
    })->Unit(benchmark::kMillisecond)->Iterations(5);
    benchmark::RegisterBenchmark(("walk_after_idle/huge_pages" + idle).c_str(), [idle_ms](benchmark::State& state) {
      walk_after_idle<base::HugeVector<std::uint64_t>>(state, idle_ms);
    })->Unit(benchmark::kMillisecond)->Iterations(5);
  }
  const std::string path = argv[1];
  benchmark::RegisterBenchmark("load_and_build", [&path](benchmark::State& state) { load_and_build(state, path); })
      ->Unit(benchmark::kMillisecond);
  argv[1] = argv[0];  // Google Benchmark's flags follow the database
  int rest = argc - 1;
  benchmark::Initialize(&rest, argv + 1);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
