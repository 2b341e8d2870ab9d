// The generic engine on a toy graph: sources (tier 1) feed sums (tier 2)
// which feed one total (tier 3).
#include <gtest/gtest.h>

#include <sched.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/affinity.h"
#include "engine/bitmap.h"
#include "engine/edge_arena.h"
#include "engine/flush.h"
#include "engine/graph.h"
#include "engine/scheduler.h"
#include "base/timing.h"
#include "engine/worker_pool.h"

using engine::NodeIndex;
using engine::NodeRef;

namespace {

struct Toy {
  static constexpr engine::TypeId kSource = 0, kSum = 1, kTotal = 2;
  std::vector<double> source{1, 2, 3, 4, 5, 6};
  std::vector<double> sum = std::vector<double>(3, 0.0);  // sum i = source 2i + source 2i+1
  double total = 0;
  std::vector<std::atomic<int>> calls = std::vector<std::atomic<int>>(10);  // per node: 6 sources, 3 sums, total
  engine::Graph graph;

  Toy() {
    graph.add_type("source", 1, [this](std::span<const NodeIndex> n) {
      for (NodeIndex i : n) ++calls[i];
    });
    graph.add_type("sum", 2, [this](std::span<const NodeIndex> n) {
      for (NodeIndex i : n) {
        ++calls[6 + i];
        sum[i] = source[2 * i] + source[2 * i + 1];
      }
    });
    graph.add_type("total", 3, [this](std::span<const NodeIndex> n) {
      for (NodeIndex i : n) {
        ++calls[9 + i];
        total = sum[0] + sum[1] + sum[2];
      }
    });
    graph.add_nodes(kSource, 6);
    graph.add_nodes(kSum, 3);
    graph.add_nodes(kTotal, 1);
    for (NodeIndex i = 0; i < 6; ++i) graph.subscribe({kSum, i / 2}, {kSource, i});
    for (NodeIndex i = 0; i < 3; ++i) graph.subscribe({kTotal, 0}, {kSum, i});
  }

  std::vector<int> call_counts() {
    std::vector<int> out;
    for (auto& c : calls) out.push_back(c.exchange(0));
    return out;
  }
};

// Every scheduler and wait policy, at `threads` workers.
std::vector<engine::SchedulerOptions> all_schedulers(std::size_t threads) {
  using engine::WaitPolicy;
  std::vector<engine::SchedulerOptions> out;
  for (WaitPolicy wait : {WaitPolicy::block, WaitPolicy::busy, WaitPolicy::hybrid}) {
    out.push_back({.kind = engine::SchedulerKind::pthreads, .threads = threads, .wait = wait});
  }
  out.push_back({.kind = engine::SchedulerKind::tbb, .threads = threads});
  return out;
}

std::string describe(const engine::SchedulerOptions& o) {
  return engine::to_string(o.kind) + "/" + engine::to_string(o.wait) + " x" + std::to_string(o.threads);
}

std::vector<NodeIndex> sorted(std::span<const NodeIndex> s) {
  std::vector<NodeIndex> v(s.begin(), s.end());
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST(Graph, NewNodesAreDirtyAndAFlushCleansThem) {
  Toy toy;
  EXPECT_EQ(toy.graph.dirty_count(), 10u);
  engine::WorkerPool pool(engine::SchedulerOptions{});
  const engine::FlushStats stats = engine::flush(toy.graph, pool, 4);
  EXPECT_EQ(toy.graph.dirty_count(), 0u);
  EXPECT_EQ(stats.nodes, 10u);
  ASSERT_EQ(stats.tiers.size(), 3u);
  EXPECT_EQ(stats.tiers[0].nodes, 6u);
  EXPECT_EQ(stats.tiers[0].chunks, 2u);  // 6 nodes at grain 4
  EXPECT_EQ(toy.total, 21.0);
}

TEST(Graph, MarkingANodeDirtyMarksExactlyWhatIsDownstream) {
  Toy toy;
  engine::WorkerPool pool(engine::SchedulerOptions{});
  engine::flush(toy.graph, pool, 100);
  toy.call_counts();
  toy.graph.mark_dirty({Toy::kSource, 3});
  EXPECT_EQ(sorted(toy.graph.dirty(Toy::kSource)), std::vector<NodeIndex>{3});
  EXPECT_EQ(sorted(toy.graph.dirty(Toy::kSum)), std::vector<NodeIndex>{1});
  EXPECT_EQ(sorted(toy.graph.dirty(Toy::kTotal)), std::vector<NodeIndex>{0});
  toy.source[3] = 40;
  const engine::FlushStats stats = engine::flush(toy.graph, pool, 100);
  EXPECT_EQ(stats.nodes, 3u);
  EXPECT_EQ(toy.call_counts(), (std::vector<int>{0, 0, 0, 1, 0, 0, 0, 1, 0, 1}));
  EXPECT_EQ(toy.total, 57.0);
}

// A bond feeding outright trades and repos, and a book over the outrights:
// a mark through the outrights reaches them and the book but not the
// repos, until a full mark reaches the bond; an incremental reach is refused.
TEST(Graph, AMarkThroughOneSubscriberTypeLeavesTheOthersUntilAFullMarkReachesTheNode) {
  constexpr engine::TypeId kBond = 0, kOutright = 1, kRepo = 2, kBook = 3;
  std::vector<int> calls(7, 0);  // 2 bonds, 2 outrights, 2 repos, the book
  engine::Graph graph;
  const auto counting = [&](std::size_t first) {
    return [&calls, first](std::span<const NodeIndex> nodes) {
      for (NodeIndex i : nodes) ++calls[first + i];
    };
  };
  graph.add_type("bond", 1, counting(0));
  graph.add_type("outright", 2, counting(2));
  graph.add_type("repo", 2, counting(4));
  graph.add_type("book", 3, counting(6));
  graph.add_nodes(kBond, 2);
  graph.add_nodes(kOutright, 2);
  graph.add_nodes(kRepo, 2);
  graph.add_nodes(kBook, 1);
  for (NodeIndex i = 0; i < 2; ++i) {
    graph.subscribe({kOutright, i}, {kBond, i});
    graph.subscribe({kRepo, i}, {kBond, i});
    graph.subscribe({kBook, 0}, {kOutright, i});
  }
  engine::WorkerPool pool(engine::SchedulerOptions{.threads = 2});
  engine::flush(graph, pool, 1);
  std::ranges::fill(calls, 0);

  const NodeRef bond{kBond, 1};
  graph.mark_dirty_through({&bond, 1}, kOutright);
  EXPECT_TRUE(graph.dirty(kBond).empty()) << "a held node is not listed until the flush";
  EXPECT_EQ(sorted(graph.dirty(kOutright)), std::vector<NodeIndex>{1});
  EXPECT_TRUE(graph.dirty(kRepo).empty());
  EXPECT_EQ(sorted(graph.dirty(kBook)), std::vector<NodeIndex>{0});
  graph.check();
  engine::flush(graph, pool, 1);
  EXPECT_EQ(calls, (std::vector<int>{0, 1, 0, 1, 0, 0, 1}));
  graph.check();

  std::ranges::fill(calls, 0);
  graph.mark_dirty_through({&bond, 1}, kOutright);
  graph.mark_dirty(bond);  // a full mark after it reaches the repo too, and calculates each node once
  EXPECT_EQ(sorted(graph.dirty(kRepo)), std::vector<NodeIndex>{1});
  graph.check();
  engine::flush(graph, pool, 1);
  EXPECT_EQ(calls, (std::vector<int>{0, 1, 0, 1, 0, 1, 1}));

  std::ranges::fill(calls, 0);
  graph.mark_dirty(bond);  // dirty already: a mark through adds nothing, and takes nothing away
  graph.mark_dirty_through({&bond, 1}, kOutright);
  engine::flush(graph, pool, 1);
  EXPECT_EQ(calls, (std::vector<int>{0, 1, 0, 1, 0, 1, 1}));

  engine::Graph sums;
  sums.add_type("member", 1, [](std::span<const NodeIndex>) {});
  sums.add_type("sum", 2, [](std::span<const NodeIndex>) {}, {.incremental = true});
  sums.add_nodes(0, 1);
  const NodeRef member{0, 0};
  EXPECT_THROW(sums.mark_dirty_through({&member, 1}, 1), std::logic_error);
}

TEST(Graph, MarkingTwiceCalculatesOnce) {
  Toy toy;
  engine::WorkerPool pool(engine::SchedulerOptions{.threads = 2});
  engine::flush(toy.graph, pool, 1);
  toy.call_counts();
  toy.graph.mark_dirty({Toy::kSource, 0});
  toy.graph.mark_dirty({Toy::kSource, 1});
  toy.graph.mark_dirty({Toy::kSum, 0});
  engine::flush(toy.graph, pool, 1);
  EXPECT_EQ(toy.call_counts(), (std::vector<int>{1, 1, 0, 0, 0, 0, 1, 0, 0, 1}));
}

TEST(Graph, SubscriptionsMustPointToALowerTier) {
  Toy toy;
  EXPECT_THROW(toy.graph.subscribe({Toy::kSource, 0}, {Toy::kSum, 0}), std::logic_error);
  EXPECT_THROW(toy.graph.subscribe({Toy::kSum, 0}, {Toy::kSum, 1}), std::logic_error);
  EXPECT_THROW(toy.graph.add_type("bad", 0, {}), std::logic_error);
}

TEST(Graph, EdgesAreKeptInBothDirectionsAndCanBeRemoved) {
  Toy toy;
  EXPECT_EQ(toy.graph.subscribers({Toy::kSource, 5}).size(), 1u);
  EXPECT_EQ(toy.graph.publishers({Toy::kTotal, 0}).size(), 3u);
  toy.graph.unsubscribe({Toy::kSum, 2}, {Toy::kSource, 5});
  EXPECT_TRUE(toy.graph.subscribers({Toy::kSource, 5}).empty());
  EXPECT_EQ(toy.graph.publishers({Toy::kSum, 2}).size(), 1u);
  engine::WorkerPool pool(engine::SchedulerOptions{});
  engine::flush(toy.graph, pool, 10);
  toy.graph.mark_dirty({Toy::kSource, 5});
  EXPECT_TRUE(toy.graph.dirty(Toy::kSum).empty());
}

TEST(Graph, EveryNodeIsCalculatedOnceWhateverTheSchedulerAndGrain) {
  for (std::size_t threads : {0, 1, 2, 7, 64}) {
    for (const engine::SchedulerOptions& options : all_schedulers(threads)) {
      const auto scheduler = engine::make_scheduler(options);
      for (std::size_t grain : {1, 2, 3, 1000}) {
        Toy toy;
        engine::flush(toy.graph, *scheduler, grain);
        EXPECT_EQ(toy.call_counts(), std::vector<int>(10, 1)) << describe(options) << ", grain " << grain;
        EXPECT_EQ(toy.total, 21.0);
      }
    }
  }
}

TEST(Flush, ATierWithLessThanOneGrainOfWorkStaysOnTheMaster) {
  Toy toy;
  const auto scheduler = engine::make_scheduler({.threads = 4});
  const engine::FlushStats stats = engine::flush(toy.graph, *scheduler, 5);
  ASSERT_EQ(stats.tiers.size(), 3u);
  EXPECT_EQ(stats.tiers[0].chunks, 2u);  // 6 sources: two chunks of at most 5
  EXPECT_EQ(stats.tiers[1].chunks, 0u);  // 3 sums: the master
  EXPECT_EQ(stats.tiers[1].workers, 0u);
  EXPECT_EQ(stats.tiers[2].chunks, 0u);
  EXPECT_EQ(toy.total, 21.0);
}

// A split type (tier 1, three steps) beside a whole one, both read by a
// tier-2 node: node i fills x[i] = i + 1 (step 0), y[i][d] = x[i] * (d + 1)
// for its kDays days in parts of kDaysPerPart (step 1, as many parts as
// x[i] says: asked after step 0), then its running sum of y in one part
// and its largest y in another (step 2). Each part checks that what its
// step reads is all written.
struct SplitToy {
  static constexpr std::size_t kNodes = 3, kDaysPerPart = 7;
  engine::Graph graph;
  std::array<double, kNodes> x{};
  std::array<std::vector<double>, kNodes> y, running;
  std::array<double, kNodes> largest{};
  std::atomic<int> out_of_order{0}, whole_calls{0};
  double seen_by_reader = 0;

  static std::size_t days(NodeIndex i) { return 10 * (i + 1) + 3; }
  std::size_t parts(NodeIndex i, std::size_t step) const {
    if (step == 0) return 1;
    if (step == 1) return (static_cast<std::size_t>(x[i]) * 10 + 3 + kDaysPerPart - 1) / kDaysPerPart;
    return 2;
  }
  void run(NodeIndex i, std::size_t step, std::size_t part) {
    if (step == 0) {
      x[i] = i + 1.0;
      y[i].assign(days(i), -1.0);
      running[i].assign(days(i), -1.0);
    } else if (step == 1) {
      if (x[i] != i + 1.0) ++out_of_order;
      for (std::size_t d = part * kDaysPerPart; d < std::min(days(i), (part + 1) * kDaysPerPart); ++d) y[i][d] = x[i] * (d + 1);
    } else {
      if (std::ranges::count(y[i], -1.0) != 0) ++out_of_order;
      double sum = 0, most = 0;
      for (std::size_t d = 0; d < days(i); ++d) {
        if (part == 0) running[i][d] = sum += y[i][d];
        if (part == 1) most = std::max(most, y[i][d]);
      }
      if (part == 1) largest[i] = most;
    }
  }

  SplitToy() {
    const auto split = graph.add_type("split", 1,
                                      [this](std::span<const NodeIndex> nodes) {
                                        ++whole_calls;
                                        for (NodeIndex i : nodes) {
                                          for (std::size_t step = 0; step < 3; ++step) {
                                            for (std::size_t p = 0; p < parts(i, step); ++p) run(i, step, p);
                                          }
                                        }
                                      },
                                      {.cost = 100,
                                       .split = {.steps = 3,
                                                 .parts = [this](NodeIndex i, std::size_t step, engine::Pass) { return parts(i, step); },
                                                 .run = [this](NodeIndex i, std::size_t step, std::size_t part, engine::Pass) {
                                                   run(i, step, part);
                                                 }}});
    const auto plain = graph.add_type("plain", 1, [](std::span<const NodeIndex>) {});
    const auto reader = graph.add_type("reader", 2, [this](std::span<const NodeIndex>) {
      seen_by_reader = 0;
      for (std::size_t i = 0; i < kNodes; ++i) seen_by_reader += running[i].empty() ? -1e9 : running[i].back() + largest[i];
    });
    graph.add_nodes(split, kNodes);
    graph.add_nodes(plain, 2);
    graph.add_nodes(reader, 1);
    for (NodeIndex i = 0; i < kNodes; ++i) graph.subscribe({reader, 0}, {split, i});
    graph.subscribe({reader, 0}, {plain, 0});
  }
};

TEST(Flush, ASplitNodeRunsItsStepsInOrderInPartsAnyThreadMayTakeAndGivesWhatItsWholeCalculationGives) {
  // Node i's y[d] = (i + 1)(d + 1) over n = 10(i + 1) + 3 days: its running sum ends at (i + 1) n (n + 1) / 2,
  // its largest is (i + 1) n.
  double expected = 0;
  for (NodeIndex i = 0; i < SplitToy::kNodes; ++i) {
    const double n = static_cast<double>(SplitToy::days(i));
    expected += (i + 1) * n * (n + 1) / 2 + (i + 1) * n;
  }
  for (std::size_t threads : {0, 1, 2, 7}) {
    for (const engine::SchedulerOptions& options : all_schedulers(threads)) {
      const auto scheduler = engine::make_scheduler(options);
      for (std::size_t grain : {1, 100000}) {  // in parts; below a grain, whole on the master
        SplitToy toy;
        const engine::FlushStats stats = engine::flush(toy.graph, *scheduler, grain);
        const std::string where = describe(options) + ", grain " + std::to_string(grain);
        EXPECT_EQ(toy.out_of_order.load(), 0) << where;
        EXPECT_EQ(toy.whole_calls.load(), grain == 1 ? 0 : 1) << where;
        EXPECT_EQ(toy.seen_by_reader, expected) << where;
        for (NodeIndex i = 0; i < SplitToy::kNodes; ++i) {
          for (std::size_t d = 0; d < SplitToy::days(i); ++d) ASSERT_EQ(toy.y[i][d], (i + 1.0) * (d + 1)) << where;
        }
        // Step 0's three parts with the plain type's chunks, then step 1's 2 + 4 + 5 parts, then step 2's 6.
        if (grain == 1 && threads > 0) {
          EXPECT_EQ(stats.tiers[0].chunks, 3u + 2u + 11u + 6u) << where;
        }
      }
    }
  }
}

TEST(Graph, ASplitTypeNeedsItsPartsAndRunFunctions) {
  engine::Graph graph;
  EXPECT_THROW(graph.add_type("split", 1, [](std::span<const NodeIndex>) {}, {.split = {.steps = 2, .parts = {}, .run = {}}}),
               std::logic_error);
}

TEST(WorkerPool, RunsEveryJobExactlyOnceAndWaitsForAll) {
  for (std::size_t threads : {0, 1, 3, 16}) {
    for (const engine::SchedulerOptions& options : all_schedulers(threads)) {
      const auto scheduler = engine::make_scheduler(options);
      EXPECT_EQ(scheduler->workers(), threads);
      for (std::size_t jobs : {0, 1, 2, 5, 100, 1000}) {
        std::vector<std::atomic<int>> done(jobs);
        const engine::BatchStats stats = scheduler->run(jobs, [&](std::size_t i) { ++done[i]; });
        EXPECT_LE(stats.workers, std::min(jobs, threads)) << describe(options);
        for (std::size_t i = 0; i < jobs; ++i) ASSERT_EQ(done[i].load(), 1) << describe(options) << ", job " << i;
      }
    }
  }
}

TEST(WorkerPool, ASmallBatchWakesNoMoreWorkersThanItHasJobs) {
  for (engine::WaitPolicy wait : {engine::WaitPolicy::block, engine::WaitPolicy::hybrid}) {
    engine::WorkerPool pool({.threads = 8, .wait = wait});
    for (int round = 0; round < 20; ++round) {
      EXPECT_EQ(pool.run(1, [](std::size_t) {}).workers, 1u);
      EXPECT_LE(pool.run(3, [](std::size_t) {}).workers, 3u);
    }
  }
}

TEST(WorkerPool, IdleBlockedWorkersCauseNoContextSwitchCascade) {
  // 512 parked workers and 50 two-job batches: only the woken workers switch,
  // so the process's context switches stay far below 512 per batch.
  engine::WorkerPool pool({.threads = 512, .wait = engine::WaitPolicy::block});
  const base::ProcessCounters before = base::ProcessCounters::now();
  for (int batch = 0; batch < 50; ++batch) pool.run(2, [](std::size_t) {});
  const base::ProcessCounters used = base::ProcessCounters::now() - before;
  EXPECT_LT(used.voluntary_switches + used.involuntary_switches, 50 * 20);
}

TEST(WorkerPool, ABatchWakesNoMoreWorkersThanTheCpusCanRun) {
  // 256 parked workers on this process's CPUs and 20 batches of 100 jobs:
  // each batch wakes as many workers as can run at once (parallelism()),
  // which take job after job, not one worker a job, so the process switches
  // context a few times a batch for each CPU, not about 100 times (on 2
  // CPUs: about 60 in all, against 2,240 when each job woke a worker).
  engine::WorkerPool pool({.threads = 256, .wait = engine::WaitPolicy::block});
  std::atomic<int> done{0};
  const base::ProcessCounters before = base::ProcessCounters::now();
  for (int batch = 0; batch < 20; ++batch) pool.run(100, [&](std::size_t) { ++done; });
  const base::ProcessCounters used = base::ProcessCounters::now() - before;
  EXPECT_EQ(done.load(), 2000);
  EXPECT_LT(used.voluntary_switches + used.involuntary_switches, 20 * (pool.parallelism() + 28));
}

TEST(ProcessCounters, CountTheCpuTimeTheProcessSpends) {
  // The test below trusts cpu_seconds to see a thread that spins. Spin for
  // 0.1 s of CPU by the other clock of it (clock_gettime's), whatever the host steals.
  auto process_cpu = [] {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
  };
  const base::ProcessCounters before = base::ProcessCounters::now();
  for (const double until = process_cpu() + 0.1; process_cpu() < until;) {
  }
  EXPECT_NEAR((base::ProcessCounters::now() - before).cpu_seconds, 0.1, 0.02);
}

TEST(WorkerPool, UnderBlockWorkersAwaitingAFollowingBatchSpinAtMostTheSpinTimeThenPark) {
  engine::WorkerPool pool({.threads = 2, .wait = engine::WaitPolicy::block, .spin = std::chrono::milliseconds(2)});
  std::atomic<int> done{0};
  for (int batch = 0; batch < 3; ++batch) pool.run(4, [&](std::size_t) { ++done; }, true);
  EXPECT_EQ(done.load(), 12);
  // Two workers spinning through the sleep would burn 0.6 s of CPU; parked, none.
  const base::ProcessCounters before = base::ProcessCounters::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_LT((base::ProcessCounters::now() - before).cpu_seconds, 0.1);
}

TEST(Scheduler, RejectsTooManyThreadsAndUnavailableCpus) {
  EXPECT_THROW(engine::make_scheduler({.threads = engine::kMaxThreads + 1}), std::invalid_argument);
  EXPECT_THROW(engine::make_scheduler({.threads = 1, .cpus = {CPU_SETSIZE - 1}}), std::invalid_argument);
  EXPECT_THROW(engine::make_scheduler({.threads = 1, .master_cpu = CPU_SETSIZE - 1}), std::invalid_argument);
}

TEST(Scheduler, PinnedWorkersAndMasterStillRunEveryJob) {
  const int cpu = engine::allowed_cpus().front();
  const auto scheduler = engine::make_scheduler({.threads = 3, .cpus = {cpu}, .master_cpu = cpu});
  std::atomic<int> done{0};
  scheduler->run(10, [&](std::size_t) { ++done; });
  EXPECT_EQ(done.load(), 10);
}

TEST(Scheduler, WorkersAvoidThePinnedMastersCpuWhileTheOthersAreEnough) {
  const engine::SchedulerOptions one{.threads = 1, .cpus = {4, 5, 6}, .master_cpu = 4};
  EXPECT_EQ(engine::worker_cpu_list(one), (std::vector<int>{5, 6}));
  engine::SchedulerOptions three = one;
  three.threads = 3;  // two others for three workers: one would share a CPU anyway
  EXPECT_EQ(engine::worker_cpu_list(three), (std::vector<int>{4, 5, 6}));
  EXPECT_EQ(engine::pinned_worker_cpus({.threads = 5, .cpus = {3, 1}}), (std::vector<int>{1, 3}));
  EXPECT_EQ(engine::pinned_worker_cpus({.threads = 1, .cpus = {3, 1}}), (std::vector<int>{3}));
  EXPECT_TRUE(engine::pinned_worker_cpus({.kind = engine::SchedulerKind::tbb, .threads = 2, .cpus = {0, 1}}).empty());
  EXPECT_TRUE(engine::pinned_worker_cpus({.threads = 0, .cpus = {0, 1}}).empty());
}

TEST(Scheduler, WorkersPinnedToEveryCpuLeaveTheMasterNoneOfItsOwn) {
  // Pinned to every CPU this process may use, n workers and their master can run n at once, not n + 1.
  const std::vector<int> all = engine::allowed_cpus();
  EXPECT_EQ(engine::runnable_threads({.threads = all.size(), .cpus = all}), all.size());
  EXPECT_EQ(engine::runnable_threads({.threads = 64, .cpus = all}), all.size());
  EXPECT_EQ(engine::runnable_threads({.threads = 64}), all.size());
  EXPECT_EQ(engine::runnable_threads({.threads = 0, .cpus = all}), 1u);
  if (all.size() >= 2) {  // one worker on one CPU, the master free to run on another
    EXPECT_EQ(engine::runnable_threads({.threads = 3, .cpus = {all[0]}}), 2u);
    EXPECT_EQ(engine::runnable_threads({.threads = 3, .cpus = {all[0]}, .master_cpu = all[0]}), 1u);
  }
}

TEST(Affinity, ParsesCpuListsAndNamesWhatIsWrong) {
  EXPECT_EQ(engine::parse_cpu_list("0,1", "X"), (std::vector<int>{0, 1}));
  EXPECT_EQ(engine::parse_cpu_list("2-4,0", "X"), (std::vector<int>{2, 3, 4, 0}));
  EXPECT_EQ(engine::format_cpu_list({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
  for (const char* bad : {"", "a", "1,", "3-1", "-1", "0-", "99999"}) {
    EXPECT_THROW(engine::parse_cpu_list(bad, "CPU_AFFINITY"), std::invalid_argument) << bad;
  }
  try {
    engine::parse_cpu_list("0,x", "CPU_AFFINITY");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("CPU_AFFINITY: 'x' in CPU list '0,x'"), std::string::npos) << e.what();
  }
}

TEST(WorkerPool, WithNoWorkersTheCallingThreadRunsTheJobsInOrder) {
  engine::WorkerPool pool(engine::SchedulerOptions{});
  std::vector<std::size_t> order;
  pool.run(5, [&](std::size_t i) { order.push_back(i); });
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
}

// A flush in two passes (engine::Pass): the first runs each type's first
// pass (a type without one whole) tier by tier and leaves the graph dirty
// and flushing, its changed inputs and previous values kept; the rest runs
// only the types' rests, over the same nodes, and leaves it clean. A flush
// out of that order is refused, as is a type with only one of the two.
TEST(Flush, AFirstPassThenTheRestRunOverTheSameNodesWithTheChangedInputsKeptBetween) {
  engine::Graph graph;
  std::vector<double> input{1, 2, 3, 4}, source = input;  // source i publishes input i
  double sum = 0, moved = 0, top = 0;
  int firsts = 0, rests = 0, tops = 0;
  graph.add_type("source", 1, [&](std::span<const NodeIndex> n) {
                   for (NodeIndex i : n) source[i] = input[i];
                 },
                 {.value_bytes = sizeof(double), .save_values = [&](std::span<const NodeIndex> n, std::byte* out) {
                    for (std::size_t k = 0; k < n.size(); ++k) std::memcpy(out + k * sizeof(double), &source[n[k]], sizeof(double));
                  }});
  const auto whole = [&](std::span<const NodeIndex>) { sum = source[0] + source[1] + source[2] + source[3]; };
  graph.add_type("sum", 2, whole,
                 {.incremental = true,
                  .first = [&](std::span<const NodeIndex> n) { ++firsts, whole(n); },
                  .rest = [&](std::span<const NodeIndex>) {
                    ++rests;
                    moved = 0;
                    const auto changed = graph.changed_inputs({1, 0});
                    if (!changed) return;
                    for (NodeRef in : *changed) moved += source[in.index] - graph.previous<double>(in).value_or(0.0);
                  }});
  graph.add_type("top", 3, [&](std::span<const NodeIndex>) { ++tops, top = 2 * sum; });
  graph.add_nodes(0, 4);
  graph.add_nodes(1, 1);
  graph.add_nodes(2, 1);
  for (NodeIndex i = 0; i < 4; ++i) graph.subscribe({1, 0}, {0, i});
  graph.subscribe({2, 0}, {1, 0});
  engine::WorkerPool pool(engine::SchedulerOptions{.threads = 2});
  engine::flush(graph, pool, 1);
  ASSERT_EQ(top, 20.0);
  EXPECT_THROW(engine::flush(graph, pool, 1, engine::Pass::rest), std::logic_error) << "a rest with no first pass";

  input[2] = 13;
  graph.mark_dirty(NodeRef{0, 2});
  const engine::FlushStats first = engine::flush(graph, pool, 1, engine::Pass::first);
  EXPECT_EQ(first.nodes, 3u);
  EXPECT_EQ(source[2], 13.0);
  EXPECT_EQ(firsts, 1);
  EXPECT_EQ(rests, 0);
  EXPECT_EQ(top, 40.0) << "the tiers above read the first pass";
  EXPECT_TRUE(graph.flushing());
  EXPECT_EQ(graph.dirty_count(), 3u) << "the rest runs over the same marks";
  EXPECT_THROW(engine::flush(graph, pool, 1), std::logic_error) << "a flush before the rest";
  const engine::FlushStats rest = engine::flush(graph, pool, 1, engine::Pass::rest);
  EXPECT_EQ(rest.nodes, 1u) << "only the types with a rest";
  EXPECT_EQ(rests, 1);
  EXPECT_EQ(tops, 2) << "a type with no rest is not calculated again";
  EXPECT_EQ(moved, 10.0) << "the rest reads the changed inputs and their previous values";
  EXPECT_FALSE(graph.flushing());
  EXPECT_EQ(graph.dirty_count(), 0u);
  EXPECT_NO_THROW(graph.check());

  EXPECT_THROW(graph.add_type("half", 2, whole, {.first = whole}), std::logic_error);
}

TEST(Flush, RejectsAZeroGrain) {
  Toy toy;
  engine::WorkerPool pool(engine::SchedulerOptions{});
  EXPECT_THROW(engine::flush(toy.graph, pool, 0), std::invalid_argument);
}

namespace {

// Members (tier 1) summed by incremental sums (tier 2): a sum subtracts what
// each changed member published before the flush and adds what it
// publishes now, counting how often it had to sum all members afresh.
struct IncrementalToy {
  static constexpr engine::TypeId kMember = 0, kSum = 1;
  std::vector<double> input, value;                // member i publishes value[i] = input[i]
  std::vector<std::vector<NodeIndex>> members;    // per sum
  std::vector<double> total;
  std::atomic<int> whole_sums = 0, from_changes = 0, changes_read = 0;  // counted by the workers
  engine::Graph graph;
  engine::WorkerPool pool{engine::SchedulerOptions{.threads = 2}};

  IncrementalToy(std::size_t member_count, std::size_t sums) : input(member_count), value(member_count),
                                                                 members(sums), total(sums) {
    for (std::size_t i = 0; i < member_count; ++i) input[i] = 1.0 + static_cast<double>(i);
    graph.add_type("member", 1, [this](std::span<const NodeIndex> n) { for (NodeIndex i : n) value[i] = input[i]; },
                   {.value_bytes = sizeof(double), .save_values = [this](std::span<const NodeIndex> n, std::byte* out) {
                      for (std::size_t k = 0; k < n.size(); ++k) std::memcpy(out + k * sizeof(double), &value[n[k]], sizeof(double));
                    }});
    graph.add_type("sum", 2, [this](std::span<const NodeIndex> n) { for (NodeIndex s : n) calculate(s); },
                   {.incremental = true});
    graph.add_nodes(kMember, member_count);
    graph.add_nodes(kSum, sums);
    for (NodeIndex i = 0; i < member_count; ++i) {
      members[i % sums].push_back(i);
      graph.subscribe({kSum, static_cast<NodeIndex>(i % sums)}, {kMember, i});
    }
    flush();
  }

  void calculate(NodeIndex s) {
    const auto changed = graph.changed_inputs({kSum, s});
    if (!changed) {
      ++whole_sums;
      total[s] = 0;
      for (NodeIndex m : members[s]) total[s] += value[m];
      return;
    }
    ++from_changes;
    changes_read += static_cast<int>(changed->size());
    for (NodeRef m : *changed) total[s] += value[m.index] - graph.previous<double>(m).value();
  }

  void flush() {
    engine::flush(graph, pool, 1);
    graph.check();
  }
  void set(NodeIndex member, double v) {
    input[member] = v;
    graph.mark_dirty({kMember, member});
    graph.check();
  }
  void remove(NodeIndex member) {
    const NodeIndex s = static_cast<NodeIndex>(member % members.size());
    graph.unsubscribe({kSum, s}, {kMember, member});
    std::erase(members[s], member);
    graph.mark_dirty({kSum, s});
    graph.check();
  }
  double fresh_sum(std::size_t s) const {
    double sum = 0;
    for (NodeIndex m : members[s]) sum += input[m];
    return sum;
  }
};

}  // namespace

TEST(Incremental, SumsUpdateFromTheOldAndNewValuesOfTheMembersThatChanged) {
  IncrementalToy toy(40, 2);  // 20 members per sum; values are small whole numbers, so sums are exact
  EXPECT_EQ(toy.whole_sums, 2);
  toy.set(0, 100);  // sum 0
  toy.set(3, 7);    // sum 1
  toy.flush();
  EXPECT_EQ(toy.from_changes, 2);
  EXPECT_EQ(toy.whole_sums, 2);
  EXPECT_EQ(toy.total[0], toy.fresh_sum(0));
  EXPECT_EQ(toy.total[1], toy.fresh_sum(1));
}

TEST(Incremental, AMemberChangedTwiceBetweenFlushesCountsOnceFromItsLastPublishedValue) {
  IncrementalToy toy(40, 2);
  toy.set(4, 50);
  toy.set(4, 60);
  toy.set(4, 70);
  toy.flush();
  EXPECT_EQ(toy.from_changes, 1);
  EXPECT_EQ(toy.changes_read, 1);
  EXPECT_EQ(toy.total[0], toy.fresh_sum(0));
  toy.set(4, 5);  // the previous value is now 70, saved at this flush's start
  toy.flush();
  EXPECT_EQ(toy.total[0], toy.fresh_sum(0));
  EXPECT_EQ(toy.whole_sums, 2);
}

TEST(Incremental, ARemovedMemberOrHalfTheMembersChangedRecalculateWhole) {
  IncrementalToy toy(40, 2);
  toy.set(2, 1000);
  toy.remove(2);  // the sum is marked itself: whole, without the removed member
  toy.flush();
  EXPECT_EQ(toy.whole_sums, 3);
  EXPECT_EQ(toy.total[0], toy.fresh_sum(0));
  for (NodeIndex m = 1; m < 40; m += 2) toy.set(m, 2.0 * m);  // every member of sum 1
  toy.flush();
  EXPECT_EQ(toy.whole_sums, 4);
  EXPECT_EQ(toy.total[1], toy.fresh_sum(1));
}

TEST(Incremental, PreviousValuesLiveOnlyDuringTheFlushThatChangedThem) {
  IncrementalToy toy(40, 2);
  toy.set(6, 9);
  EXPECT_FALSE(toy.graph.previous<double>({IncrementalToy::kMember, 6}).has_value());  // not saved before the flush
  toy.flush();
  EXPECT_FALSE(toy.graph.previous<double>({IncrementalToy::kMember, 6}).has_value());  // dropped after it
  EXPECT_THROW(toy.graph.previous<float>({IncrementalToy::kMember, 6}), std::logic_error);
}

TEST(Graph, ARetiredNodeIsNeverDirtyOrCalculatedAgain) {
  Toy toy;
  engine::WorkerPool pool(engine::SchedulerOptions{});
  toy.graph.mark_dirty({Toy::kSource, 3});  // dirty when it is retired
  toy.graph.retire({Toy::kSource, 3});
  EXPECT_TRUE(toy.graph.retired({Toy::kSource, 3}));
  EXPECT_TRUE(toy.graph.subscribers({Toy::kSource, 3}).empty());
  engine::flush(toy.graph, pool, 100);
  EXPECT_EQ(toy.calls[3].load(), 0) << "a retired node was calculated";
  toy.call_counts();
  toy.graph.mark_dirty({Toy::kSource, 3});
  toy.graph.mark_all_dirty();
  engine::flush(toy.graph, pool, 100);
  EXPECT_EQ(toy.call_counts(), (std::vector<int>{1, 1, 1, 0, 1, 1, 1, 1, 1, 1}));
  EXPECT_THROW(toy.graph.subscribe({Toy::kSum, 1}, {Toy::kSource, 3}), std::logic_error);
}

TEST(Graph, DirtyNodesAreCalculatedInIndexOrderAndABigMarkDirtiesWholeTypes) {
  // 64 sources, each feeding one of 64 sums; marking sources in reverse still calculates in index order.
  engine::Graph graph;
  std::vector<NodeIndex> order;
  graph.add_type("source", 1, [](std::span<const NodeIndex>) {});
  graph.add_type("sum", 2, [&](std::span<const NodeIndex> n) { order.insert(order.end(), n.begin(), n.end()); });
  graph.add_nodes(0, 64);
  graph.add_nodes(1, 65);  // sum 64 subscribes to nothing
  for (NodeIndex i = 0; i < 64; ++i) graph.subscribe({1, i}, {0, i});
  engine::WorkerPool pool(engine::SchedulerOptions{});
  engine::flush(graph, pool, 1000);
  order.clear();
  for (NodeIndex i = 10; i-- > 0;) graph.mark_dirty({0, i * 3});
  EXPECT_EQ(graph.dirty_count(), 20u);
  engine::flush(graph, pool, 1000);
  std::vector<NodeIndex> expected;
  for (NodeIndex i = 0; i < 10; ++i) expected.push_back(i * 3);
  EXPECT_EQ(order, expected);
  // Seven eighths of the sources dirty: every sum is dirty, even the one that subscribes to none.
  order.clear();
  for (NodeIndex i = 0; i < 56; ++i) graph.mark_dirty({0, i});
  EXPECT_EQ(graph.dirty(1).size(), 65u);
  engine::flush(graph, pool, 1000);
  EXPECT_EQ(order.size(), 65u);
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
}

TEST(Graph, AManyNodeMarkThenSmallMarksAndARetirementCalculateExactlyTheDirtyNodes) {
  // 200 sources each feed sum i % 100 and the one total: a mark of 40 sources (over an
  // eighth) leaves the sums' list for their bitmap; later single marks and a retirement
  // must still reach exactly the right nodes, each once, in index order.
  engine::Graph graph;
  std::vector<std::vector<NodeIndex>> calls(3);
  for (engine::TypeId type = 0; type < 3; ++type) {
    graph.add_type("t" + std::to_string(type), type + 1, [&calls, type](std::span<const NodeIndex> n) {
      calls[type].insert(calls[type].end(), n.begin(), n.end());
    });
  }
  graph.add_nodes(0, 200);
  graph.add_nodes(1, 100);
  graph.add_nodes(2, 1);
  for (NodeIndex i = 0; i < 200; ++i) graph.subscribe({1, i % 100}, {0, i});
  for (NodeIndex s = 0; s < 100; ++s) graph.subscribe({2, 0}, {1, s});
  engine::WorkerPool pool(engine::SchedulerOptions{.threads = 2});  // less than a grain: one thread appends
  engine::flush(graph, pool, 100000);
  for (auto& c : calls) c.clear();

  for (NodeIndex i = 40; i-- > 0;) graph.mark_dirty({0, i * 5});  // sums 0, 5, ..., 95 (20 of 100)
  graph.mark_dirty({0, 101});                                    // sum 1
  graph.mark_dirty({0, 5});                                      // already dirty: nothing new
  graph.retire({0, 199});                                        // sum 99 loses a member
  EXPECT_EQ(graph.dirty_count(), 40u + 1 + 22 + 1);
  engine::flush(graph, pool, 100000);
  std::vector<NodeIndex> sources, sums;
  for (NodeIndex i = 0; i < 40; ++i) sources.push_back(i * 5);
  sources.insert(std::upper_bound(sources.begin(), sources.end(), 101), 101);
  for (NodeIndex s = 0; s < 100; s += 5) sums.push_back(s);
  sums.insert(sums.begin() + 1, 1);
  sums.push_back(99);
  EXPECT_EQ(calls[0], sources);
  EXPECT_EQ(calls[1], sums);
  EXPECT_EQ(calls[2], std::vector<NodeIndex>{0});
  EXPECT_TRUE(graph.retired({0, 199}));
  EXPECT_EQ(graph.dirty_count(), 0u);
  // The retired source is never marked or calculated again.
  for (auto& c : calls) c.clear();
  graph.mark_dirty({0, 199});
  graph.mark_all_dirty();
  engine::flush(graph, pool, 100000);
  EXPECT_EQ(calls[0].size(), 199u);
  EXPECT_EQ(std::find(calls[0].begin(), calls[0].end(), 199), calls[0].end());
}

TEST(Bitmap, SetsFillsCountsAndListsBitsInOrderWithNothingPastItsSize) {
  engine::Bitmap b;
  b.resize(130);
  for (std::size_t i : {129u, 0u, 64u, 63u}) b.set(i);
  std::vector<std::size_t> got;
  b.for_each([&](std::size_t i) { got.push_back(i); });
  EXPECT_EQ(got, (std::vector<std::size_t>{0, 63, 64, 129}));
  b.reset(64);
  EXPECT_FALSE(b.test(64));
  EXPECT_EQ(b.count(), 3u);
  b.fill();
  EXPECT_EQ(b.count(), 130u);
  b.resize(200);  // the new bits are clear
  EXPECT_EQ(b.count(), 130u);
  b.clear();
  EXPECT_EQ(b.count(), 0u);
}

TEST(Graph, SubscribeAllGivesTheEdgesOfSubscribeOneByOneOrNoneIfOneIsInvalid) {
  auto make = [] {
    auto g = std::make_unique<engine::Graph>();
    g->add_type("a", 1, [](std::span<const NodeIndex>) {});
    g->add_type("b", 2, [](std::span<const NodeIndex>) {});
    g->add_nodes(0, 5);
    g->add_nodes(1, 4);
    return g;
  };
  std::vector<std::pair<NodeRef, NodeRef>> edges;
  for (NodeIndex s = 0; s < 4; ++s) {
    for (NodeIndex p = 0; p < 5; p += 1 + s) edges.push_back({{1, s}, {0, p}});
  }
  const auto one_by_one = make(), at_once = make();
  one_by_one->subscribe({1, 3}, {0, 4});  // an edge already there before the bulk
  at_once->subscribe({1, 3}, {0, 4});
  for (const auto& [s, p] : edges) one_by_one->subscribe(s, p);
  at_once->subscribe_all(edges);
  for (NodeIndex i = 0; i < 5; ++i) {
    const auto a = one_by_one->subscribers({0, i}), b = at_once->subscribers({0, i});
    EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << "subscribers of a" << i;
  }
  for (NodeIndex i = 0; i < 4; ++i) {
    const auto a = one_by_one->publishers({1, i}), b = at_once->publishers({1, i});
    EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << "publishers of b" << i;
  }
  const auto refused = make();
  const std::vector<std::pair<NodeRef, NodeRef>> bad = {{{1, 0}, {0, 0}}, {{0, 1}, {1, 1}}};  // the second goes down a tier
  EXPECT_THROW(refused->subscribe_all(bad), std::logic_error);
  EXPECT_TRUE(refused->subscribers({0, 0}).empty());
}

TEST(Flush, ATierGetsAtLeastFourChunksPerThreadThatCanRunDownToAnEighthOfAGrain) {
  // A scheduler that runs every job on the caller but says how many threads could run them.
  struct Serial final : engine::Scheduler {
    std::size_t threads;
    explicit Serial(std::size_t t) : threads(t) {}
    std::size_t workers() const override { return threads - 1; }
    std::size_t parallelism() const override { return threads; }
    engine::BatchStats run_batch(std::size_t count, const std::function<void(std::size_t)>& job, bool) override {
      for (std::size_t i = 0; i < count; ++i) job(i);
      return {};
    }
  };
  auto chunks = [](std::size_t threads, std::size_t nodes) {
    engine::Graph graph;
    graph.add_type("bond", 1, [](std::span<const NodeIndex>) {}, {.cost = 2});
    graph.add_nodes(0, nodes);
    Serial scheduler(threads);
    return engine::flush(graph, scheduler, 4096).tiers.at(0).chunks;
  };
  // 40,000 nodes of cost 2 at grain 4096: 2048 a chunk makes 20 chunks.
  EXPECT_EQ(chunks(1, 40000), 20u);
  EXPECT_EQ(chunks(2, 40000), 20u);   // 20 >= 4 x 2 already
  EXPECT_EQ(chunks(16, 40000), 64u);  // 4 x 16: 625 nodes each
  EXPECT_EQ(chunks(4096, 40000), 157u);  // never below 2048 / 8 = 256 nodes: 157 chunks
}

TEST(EdgeArena, KnowsWhichSlicesAreRunsOrIncreasingAndFindsTheirRuns) {
  engine::EdgeArena arena;
  arena.resize(3);
  for (NodeIndex i : {5u, 6u, 7u}) arena.push_back(0, {1, i});
  EXPECT_TRUE(arena.run(0));
  arena.push_back(0, {2, 0});  // another type: increasing, no longer one run
  arena.push_back(0, {2, 1});
  arena.push_back(0, {2, 9});
  EXPECT_FALSE(arena.run(0));
  EXPECT_TRUE(arena.increasing(0));
  std::vector<std::pair<NodeRef, std::size_t>> runs;
  arena.for_each_run(0, [&](NodeRef first, std::size_t count) { runs.emplace_back(first, count); });
  EXPECT_EQ(runs, (std::vector<std::pair<NodeRef, std::size_t>>{{{1, 5}, 3}, {{2, 0}, 2}, {{2, 9}, 1}}));
  EXPECT_EQ(arena.edges(), 6u);
  EXPECT_EQ(arena.loose_edges(), 6u);

  for (NodeIndex i : {3u, 4u, 5u, 6u}) arena.push_back(1, {0, i});
  arena.erase_one(1, {0, 5});  // a gap in the middle
  EXPECT_FALSE(arena.run(1));
  EXPECT_TRUE(arena.increasing(1));
  arena.erase_one(1, {0, 6});
  arena.erase_one(1, {0, 3});  // one edge left: a run again
  EXPECT_TRUE(arena.run(1));
  EXPECT_EQ(arena.loose_edges(), 6u);  // node 0's only
  arena.push_back(2, {0, 8});
  arena.push_back(2, {0, 7});  // decreasing
  EXPECT_FALSE(arena.run(2));
  EXPECT_FALSE(arena.increasing(2));
  arena.erase_one(2, {0, 8});  // the end of a run: still a run
  EXPECT_TRUE(arena.run(2));
  EXPECT_EQ(arena.edges(), 8u);
  EXPECT_EQ(arena.loose_edges(), 6u);

  // Long increasing slices of random runs: the runs found are those a plain scan sees.
  std::mt19937 random(7);
  for (int trial = 0; trial < 200; ++trial) {
    engine::EdgeArena a;
    a.resize(1);
    std::vector<NodeRef> edges;
    NodeRef next{0, 0};
    while (edges.size() < 300) {
      const std::size_t length = 1 + random() % 40;
      for (std::size_t k = 0; k < length; ++k) edges.push_back({next.type, next.index + static_cast<NodeIndex>(k)});
      next.index += static_cast<NodeIndex>(length + random() % 3);  // a gap, or none (one longer run)
      if (random() % 5 == 0) next = {next.type + 1u, static_cast<NodeIndex>(random() % 10)};
    }
    for (NodeRef e : edges) a.push_back(0, e);
    ASSERT_TRUE(a.increasing(0));
    std::vector<std::pair<NodeRef, std::size_t>> expected, found;
    for (std::size_t i = 0; i < edges.size(); ++i) {
      const bool continues = i > 0 && edges[i].type == edges[i - 1].type && edges[i].index == edges[i - 1].index + 1;
      if (continues) ++expected.back().second;
      else expected.emplace_back(edges[i], 1);
    }
    a.for_each_run(0, [&](NodeRef first, std::size_t count) { found.emplace_back(first, count); });
    ASSERT_EQ(found, expected) << "trial " << trial;
  }
}

TEST(EdgeArena, ABulkBuildKnowsTheRunsOrderAndCountsThatEdgesAddedOneByOneGive) {
  std::mt19937 random(11);
  for (int trial = 0; trial < 100; ++trial) {
    const std::size_t nodes = 1 + random() % 20;
    engine::EdgeArena one_by_one, bulk;
    one_by_one.resize(nodes);
    bulk.resize(nodes);
    for (engine::EdgeArena* a : {&one_by_one, &bulk}) a->push_back(0, {3, 9});  // an edge there before the bulk
    std::vector<std::pair<NodeIndex, NodeRef>> edges;  // runs, increasing or not, and stray edges
    for (int k = 0; k < 60; ++k) {
      const auto node = static_cast<NodeIndex>(random() % nodes);
      NodeRef e{static_cast<engine::TypeId>(random() % 4), static_cast<NodeIndex>(random() % 50)};
      for (std::size_t len = random() % 6; len-- > 0; ++e.index) edges.emplace_back(node, e);
    }
    std::vector<std::uint32_t> extra(nodes, 0);
    for (const auto& [node, e] : edges) ++extra[node];
    bulk.reserve(extra);
    for (const auto& [node, e] : edges) {
      one_by_one.push_back(node, e);
      bulk.append(node, e);
    }
    bulk.settle();
    for (NodeIndex n = 0; n < nodes; ++n) {
      const auto a = one_by_one.view(n), b = bulk.view(n);
      ASSERT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << "trial " << trial << " node " << n;
      EXPECT_EQ(bulk.run(n), one_by_one.run(n)) << "trial " << trial << " node " << n;
      EXPECT_EQ(bulk.increasing(n), one_by_one.increasing(n)) << "trial " << trial << " node " << n;
    }
    EXPECT_EQ(bulk.edges(), one_by_one.edges()) << "trial " << trial;
    EXPECT_EQ(bulk.loose_edges(), one_by_one.loose_edges()) << "trial " << trial;
  }
}

TEST(Bitmap, SetsAListsBitsAndCountsOnlyThoseNotSetBefore) {
  std::mt19937 random(9);
  for (int trial = 0; trial < 50; ++trial) {
    engine::Bitmap fast, slow;
    fast.resize(700), slow.resize(700);
    for (int k = 0; k < 40; ++k) {  // bits set before, one at a time in both
      const std::size_t i = random() % 700;
      fast.set(i), slow.set(i);
    }
    std::vector<std::uint32_t> indices;  // runs in increasing order, then out of order, with repeats
    for (std::uint32_t i = random() % 100; i < 700; i += 1 + random() % 5) indices.push_back(i);
    for (int k = 0; k < 30; ++k) indices.push_back(static_cast<std::uint32_t>(random() % 700));
    if (trial % 2 == 1) std::shuffle(indices.begin(), indices.end(), random);
    std::size_t added = 0;
    for (const std::uint32_t i : indices) {
      added += !slow.test(i);
      slow.set(i);
    }
    EXPECT_EQ(fast.set_all(std::span<const std::uint32_t>(indices)), added) << "trial " << trial;
    EXPECT_EQ(fast.words(), slow.words()) << "trial " << trial;
  }
  engine::Bitmap empty;
  empty.resize(10);
  EXPECT_EQ(empty.set_all(std::span<const std::uint32_t>()), 0u);
  EXPECT_EQ(empty.count(), 0u);
}

TEST(Bitmap, CountsAndListsTheBitsOfARange) {
  engine::Bitmap b;
  b.resize(300);
  std::mt19937 random(3);
  for (int k = 0; k < 120; ++k) b.set(random() % 300);
  for (std::size_t first = 0; first < 300; first += 7) {
    for (std::size_t last = first; last <= 300; last += 13) {
      std::vector<std::size_t> expected, found;
      for (std::size_t i = first; i < last; ++i) {
        if (b.test(i)) expected.push_back(i);
      }
      b.for_each(first, last, [&](std::size_t i) { found.push_back(i); });
      ASSERT_EQ(found, expected) << first << ".." << last;
      ASSERT_EQ(b.count(first, last), expected.size());
    }
  }
}

TEST(Bitmap, TakesItsSetBitsInSlicesInOrderClearingThem) {
  engine::Bitmap b;
  b.resize(300);
  std::mt19937 random(5);
  std::vector<std::size_t> expected;
  for (int k = 0; k < 120; ++k) b.set(random() % 300);
  b.for_each([&](std::size_t i) { expected.push_back(i); });
  for (std::size_t slice : {1u, 7u, 64u, 500u}) {
    engine::Bitmap copy = b;
    std::vector<std::uint32_t> taken;
    std::size_t next = 0, calls = 0;
    while (next < copy.size()) {
      const std::size_t before = taken.size();
      next = copy.take(next, copy.size(), slice, taken);
      ASSERT_LE(taken.size() - before, slice);
      ++calls;
    }
    EXPECT_EQ(std::vector<std::size_t>(taken.begin(), taken.end()), expected) << "slices of " << slice;
    EXPECT_EQ(copy.count(), 0u);
    EXPECT_EQ(calls, (expected.size() + slice - 1) / slice) << "slices of " << slice;
  }
  // Within a range only: the bits outside it stay.
  engine::Bitmap copy = b;
  std::vector<std::uint32_t> taken;
  EXPECT_EQ(copy.take(100, 200, 1000, taken), 200u);
  EXPECT_EQ(copy.count(), b.count() - b.count(100, 200));
  EXPECT_EQ(taken.size(), b.count(100, 200));
}

TEST(Graph, RandomMarksOneByOneOrTogetherReachExactlyWhatIsDownstreamAndEachIncrementalNodeLearnsItsChangedInputs) {
  // Sources (tier 1) feed items (tier 2): source 0 feeds hundreds of them
  // in runs (marked a word at a time), the others feed items at random.
  // Items feed incremental sums (tier 3), 50 members each laid out in a
  // run, and plain tallies (tier 3) summed by one total (tier 4); a few
  // sums have a stray input, and random edits break runs and retire items.
  // Marks range from a few nodes to most of a type, so that edges are
  // walked one by one, run by run, branch-free, and pulled by the sums.
  // What is dirty must be what a search of the subscribers reaches, and a
  // sum must be recalculated whole exactly when marked itself or with half
  // its inputs reached, and otherwise be told exactly those inputs.
  constexpr engine::TypeId kSource = 0, kItem = 1, kSum = 2, kExtra = 3, kTally = 4, kTotal = 5;
  constexpr NodeIndex kSources = 200, kItems = 1200, kSums = 24, kMembers = 50, kExtras = 400, kTallies = 100;
  std::mt19937 random(11);
  auto any = [&](NodeIndex from, NodeIndex to) { return static_cast<NodeIndex>(from + random() % (to - from)); };
  engine::Graph graph;
  // Per sum: whether it was calculated and its changed inputs (workers
  // calculate disjoint sums: each slot has one writer).
  std::vector<unsigned char> calculated(kSums, 0);
  std::vector<std::optional<std::set<NodeRef>>> told(kSums);
  graph.add_type("source", 1, [](std::span<const NodeIndex>) {});
  graph.add_type("item", 2, [](std::span<const NodeIndex>) {});
  graph.add_type("sum", 3, [&](std::span<const NodeIndex> n) {
    for (NodeIndex s : n) {
      const auto changed = graph.changed_inputs({kSum, s});
      told[s] = changed ? std::optional(std::set<NodeRef>(changed->begin(), changed->end())) : std::nullopt;
      calculated[s] = 1;
    }
  }, {.incremental = true});
  graph.add_type("extra", 1, [](std::span<const NodeIndex>) {});  // feeds some sums directly
  graph.add_type("tally", 3, [](std::span<const NodeIndex>) {});
  graph.add_type("total", 4, [](std::span<const NodeIndex>) {});
  graph.add_nodes(kSource, kSources);
  graph.add_nodes(kExtra, kExtras);
  graph.add_nodes(kItem, kItems);
  graph.add_nodes(kSum, kSums);
  graph.add_nodes(kTally, kTallies);
  graph.add_nodes(kTotal, 1);
  for (NodeIndex i = 0; i < kItems; ++i) graph.subscribe({kTally, i % kTallies}, {kItem, i});
  for (NodeIndex i = 0; i < kTallies; ++i) graph.subscribe({kTotal, 0}, {kTally, i});
  // Source 0 feeds the last c of each sum's members, c cycling through
  // counts on either side of half: one mark of it reaches some sums whole
  // and tells others exactly which members changed.
  constexpr std::array<NodeIndex, 8> kReached{0, 1, 2, 24, 25, 26, 49, 50};
  for (NodeIndex i = 0; i < kItems; ++i) {
    if (kMembers - i % kMembers <= kReached[i / kMembers % 8]) graph.subscribe({kItem, i}, {kSource, 0});
    graph.subscribe({kItem, i}, {kSource, any(1, kSources)});
  }
  for (NodeIndex s = 0; s < kSums; ++s) {
    for (NodeIndex k = 0; k < kMembers; ++k) graph.subscribe({kSum, s}, {kItem, s * kMembers + k});
    if (s % 16 == 0) graph.subscribe({kSum, s}, {kItem, (s * kMembers + 600) % kItems});  // not a run
    // Nor this: an input of another type, whose index is that of an item source 0 reaches.
    if (s % 16 == 3) graph.subscribe({kSum, s}, {kExtra, 399});
  }
  engine::WorkerPool pool(engine::SchedulerOptions{.threads = 2});
  engine::flush(graph, pool, 64);
  graph.check();

  for (int round = 0; round < 240; ++round) {
    if (round % 30 == 29) {  // edits: a member moved, an item retired or given another source
      const NodeIndex s = any(0, kSums);
      const std::span<const NodeRef> in = graph.publishers({kSum, s});
      if (!in.empty()) graph.unsubscribe({kSum, s}, in[random() % in.size()]);
      const NodeRef member{kItem, any(0, kItems)};  // a new one: an input is subscribed once
      if (!graph.retired(member) &&
          std::ranges::find(graph.publishers({kSum, s}), member) == graph.publishers({kSum, s}).end()) {
        graph.subscribe({kSum, s}, member);
      }
      const NodeIndex i = any(0, kItems);
      if (random() % 2 == 0) graph.retire({kItem, i});
      else if (!graph.retired({kItem, i})) graph.subscribe({kItem, i}, {kSource, any(1, kSources)});
      graph.check();
      engine::flush(graph, pool, 64);
      graph.check();
    }
    std::vector<NodeRef> roots;
    auto mark_items_of = [&](NodeIndex s, std::size_t count) {  // `count` of sum s's first members
      for (NodeIndex k = 0; k < count; ++k) roots.push_back({kItem, s * kMembers + k});
    };
    switch (round % 6) {
      case 0:  // a few nodes anywhere
        for (int k = 0; k < 3; ++k) roots.push_back({kSource, any(0, kSources)});
        roots.push_back({kItem, any(0, kItems)});
        roots.push_back({kExtra, any(0, kExtras)});
        if (random() % 2 == 0) roots.push_back({kSum, any(0, kSums)});
        break;
      case 1:  // an extra source, then the wide one (whose mark the sums pull), and a few others
        roots.push_back({kExtra, any(0, kExtras)});
        roots.push_back({kSource, 0});
        for (int k = 0; k < 2; ++k) roots.push_back({kSource, any(1, kSources)});
        break;
      case 2:  // an eighth or more of the sources: their walk is branch-free
        for (NodeIndex k = 0; k < kSources / 8 + random() % 20; ++k) roots.push_back({kSource, any(1, kSources)});
        break;
      case 3:  // most items, one by one: sum 1 at exactly half its members, sum 2 one short
        for (NodeIndex s = 3; s < kSums; ++s) mark_items_of(s, random() % (kMembers + 1));
        mark_items_of(1, kMembers / 2);
        mark_items_of(2, kMembers / 2 - 1);
        break;
      case 4:  // nearly all items: every sum whole
        for (NodeIndex i = 0; i < kItems; ++i) {
          if (random() % 16 != 0) roots.push_back({kItem, i});
        }
        break;
      default:  // a random share of everything
        for (int k = 0; k < 60; ++k) roots.push_back({kSource, any(0, kSources)});
        for (int k = 0; k < 300; ++k) roots.push_back({kItem, any(0, kItems)});
        roots.push_back({kSum, any(0, kSums)});
    }
    if (round % 12 < 6) {
      for (std::size_t k = 0; k < roots.size(); ++k) {
        graph.mark_dirty(roots[k]);
        // After every mark of a small event; of a big one, every 32nd and the last (a check reads the whole graph).
        if (roots.size() <= 64 || k % 32 == 0 || k + 1 == roots.size()) graph.check();
      }
    } else {
      graph.mark_dirty(roots);  // all at once, walked once (a quote tick's bonds)
      graph.check();
    }

    // What a search of the subscribers reaches from the live roots; and
    // when it reaches 7/8 of a type's live nodes, every live node of the
    // next type, whole (see graph.h).
    std::set<NodeRef> reached, whole_sums;
    std::vector<NodeRef> stack;
    auto reach = [&](NodeRef n) {
      if (!graph.retired(n) && reached.insert(n).second) stack.push_back(n);
    };
    for (NodeRef r : roots) {
      if (r.type == kSum && !graph.retired(r)) whole_sums.insert(r);
      reach(r);
    }
    const std::array<NodeIndex, 6> sizes{kSources, kItems, kSums, kExtras, kTallies, 1};
    std::array<std::vector<engine::TypeId>, 6> fed;  // the types each type feeds
    fed[kSource] = {kItem}, fed[kItem] = {kSum, kTally}, fed[kTally] = {kTotal};
    for (engine::TypeId type : {kSource, kItem, kTally}) {
      while (!stack.empty()) {
        const NodeRef n = stack.back();
        stack.pop_back();
        for (NodeRef s : graph.subscribers(n)) reach(s);
      }
      std::size_t live = 0, dirty = 0;
      for (NodeIndex i = 0; i < sizes[type]; ++i) {
        live += !graph.retired({type, i});
        dirty += reached.contains({type, i});
      }
      if (dirty * 8 < live * 7) continue;
      for (engine::TypeId next : fed[type]) {
        for (NodeIndex i = 0; i < sizes[next]; ++i) {
          reach({next, i});
          if (next == kSum) whole_sums.insert({kSum, i});
        }
      }
    }
    for (engine::TypeId type : {kSource, kItem, kSum, kExtra, kTally, kTotal}) {
      std::vector<NodeIndex> expected;
      for (NodeRef n : reached) {
        if (n.type == type) expected.push_back(n.index);
      }
      ASSERT_EQ(sorted(graph.dirty(type)), expected) << "round " << round << ", type " << type;
    }
    std::ranges::fill(calculated, 0);
    engine::flush(graph, pool, 64);
    graph.check();
    std::size_t sums_reached = 0;
    for (NodeRef n : reached) {
      if (n.type != kSum) continue;
      ++sums_reached;
      std::set<NodeRef> inputs_reached;
      const std::span<const NodeRef> in = graph.publishers(n);
      for (NodeRef p : in) {
        if (reached.contains(p)) inputs_reached.insert(p);
      }
      ASSERT_TRUE(calculated[n.index]);
      if (whole_sums.contains(n) || 2 * inputs_reached.size() >= in.size()) {
        EXPECT_FALSE(told[n.index].has_value()) << "round " << round << ", sum " << n.index;
      } else {
        ASSERT_TRUE(told[n.index].has_value()) << "round " << round << ", sum " << n.index;
        EXPECT_EQ(*told[n.index], inputs_reached) << "round " << round << ", sum " << n.index;
      }
    }
    EXPECT_EQ(static_cast<std::size_t>(std::ranges::count(calculated, 1)), sums_reached) << "round " << round;
  }
}

namespace engine {

// Reaches into a graph's marks and edges, to corrupt them.
struct GraphTestAccess {
  static Bitmap& dirty(Graph& g, TypeId t) { return g.types_[t].dirty; }
  static Bitmap& fresh(Graph& g, TypeId t) { return g.types_[t].fresh; }
  static auto& dirty_list(Graph& g, TypeId t) { return g.types_[t].dirty_list; }
  static std::size_t& walked(Graph& g, TypeId t) { return g.types_[t].walked; }
  static EdgeArena& downstream(Graph& g, TypeId t) { return g.types_[t].downstream; }
  static auto& cause_count(Graph& g, TypeId t) { return g.types_[t].cause_count; }
  static auto& cause_log(Graph& g, TypeId t) { return g.types_[t].cause_log; }
};

}  // namespace engine

namespace {

// What check() throws, or "" when the graph is consistent.
std::string violation(const engine::Graph& graph) {
  try {
    graph.check();
  } catch (const std::logic_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Graph, CheckNamesTheFirstMarkThatDisagreesWithTheEdgesOrTheOtherMarks) {
  using Access = engine::GraphTestAccess;
  engine::WorkerPool pool(engine::SchedulerOptions{});
  auto flushed_toy = [&] {
    auto toy = std::make_unique<Toy>();
    engine::flush(toy->graph, pool, 1);
    EXPECT_EQ(violation(toy->graph), "");
    return toy;
  };
  auto expect_violation = [](const engine::Graph& graph, const std::string& what) {
    const std::string found = violation(graph);
    EXPECT_NE(found.find(what), std::string::npos) << "expected \"" << what << "\", got \"" << found << "\"";
  };

  auto toy = flushed_toy();
  Access::dirty(toy->graph, Toy::kSource).set(3);  // dirty, but nothing downstream is
  expect_violation(toy->graph, "source 3 is dirty but its subscriber sum 1 is not");

  toy = flushed_toy();
  toy->graph.mark_dirty({Toy::kSource, 0});
  EXPECT_EQ(violation(toy->graph), "");
  Access::fresh(toy->graph, Toy::kSource).set(0);  // as if the mark had not walked it
  expect_violation(toy->graph, "source 0 is fresh");

  {
    IncrementalToy sums(64, 16);  // few of a type dirty: listed
    sums.set(0, 10);
    Access::dirty_list(sums.graph, IncrementalToy::kSum).clear();
    Access::walked(sums.graph, IncrementalToy::kSum) = 0;
    expect_violation(sums.graph, "sum 0 is dirty but not in its type's dirty list");
  }

  toy = flushed_toy();
  {
    // An edge slipped in behind the arena's flags: source 0's subscribers,
    // flagged a run, become sums 0 and 2.
    engine::EdgeArena& arena = Access::downstream(toy->graph, Toy::kSource);
    std::vector<std::uint32_t> extra(arena.size(), 0);
    extra[0] = 1;
    arena.reserve(extra);
    arena.append(0, {Toy::kSum, 2});
  }
  expect_violation(toy->graph, "the subscribers of source 0 are flagged a run but are not one");

  // The public API, misused: a clean node subscribed to a new (dirty) one
  // and not marked.
  toy = flushed_toy();
  const NodeIndex added = toy->graph.add_nodes(Toy::kSource);
  EXPECT_EQ(violation(toy->graph), "");
  toy->graph.subscribe({Toy::kSum, 0}, {Toy::kSource, added});
  expect_violation(toy->graph, "source 6 is dirty but its subscriber sum 0 is not");

  // Changed inputs: counted but not logged, logged twice, and an input
  // taken from an incremental node without marking it.
  IncrementalToy sums(8, 2);  // sum 0 adds members 0, 2, 4, 6
  sums.set(2, 10);
  Access::cause_count(sums.graph, IncrementalToy::kSum)[0] = 2;
  expect_violation(sums.graph, "sum 0 counts 2 changed inputs but logged 1");
  Access::cause_log(sums.graph, IncrementalToy::kSum).push_back({0, {IncrementalToy::kMember, 2}});
  expect_violation(sums.graph, "sum 0 logs its changed input member 2 twice");
  Access::cause_log(sums.graph, IncrementalToy::kSum).pop_back();
  Access::cause_count(sums.graph, IncrementalToy::kSum)[0] = 1;
  EXPECT_EQ(violation(sums.graph), "");
  sums.graph.unsubscribe({IncrementalToy::kSum, 0}, {IncrementalToy::kMember, 2});
  expect_violation(sums.graph, "sum 0 logs a changed input that is not one of its inputs");
}
