// Results are bit-identical whatever the number of threads and the grain.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "base/sqlite.h"
#include "bond_risk/synth/generator.h"
#include "bond_risk/db/result_writer.h"
#include "bond_risk/model/store/published_values.h"
#include "bond_risk/model/store/reason.h"
#include "tests/test_support.h"

using namespace bond_risk;
using test::calculate;

namespace {

// Every published value and status of a model, bit for bit.
std::uint64_t snapshot(const test::Model& m) { return results_digest(m.store); }

}  // namespace

TEST(Determinism, EveryThreadCountAndGrainGivesTheSameBits) {
  test::TempDir dir;
  const std::string db = dir.path("50k.db");
  generate(find_preset("50k"), GenerateOptions{7, 500}, db);
  const auto reference = calculate(db, 0);
  const std::uint64_t expected = snapshot(*reference);
  EXPECT_EQ(reference->stats.nodes, reference->store.size());
  for (std::size_t threads : {1, 2, 7}) {
    for (std::size_t grain : {1, 333, 4096}) {
      const auto m = calculate(db, threads, grain);
      EXPECT_TRUE(snapshot(*m) == expected) << threads << " threads, grain " << grain;
    }
  }
}

TEST(Determinism, EverySchedulerWaitPolicyAndThreadCountGivesTheSameBits) {
  test::TempDir dir;
  const std::string db = dir.path("100.db");
  generate(find_preset("100"), GenerateOptions{11, 7}, db);
  const std::uint64_t expected = snapshot(*calculate(db, 0));
  using engine::SchedulerKind;
  using engine::WaitPolicy;
  const std::pair<SchedulerKind, WaitPolicy> variants[] = {{SchedulerKind::pthreads, WaitPolicy::block},
                                                           {SchedulerKind::pthreads, WaitPolicy::busy},
                                                           {SchedulerKind::pthreads, WaitPolicy::hybrid},
                                                           {SchedulerKind::tbb, WaitPolicy::block}};
  // Under a sanitizer a thread costs megabytes of its state, zeroed as it starts (most of this test's
  // time there, 280 s): the counts stop at 64, already more workers than any tier of this set has chunks
  // (44 trades at grain 4: 11), so most wait idle as they would among 4096; the plain build runs 1024 and 4096.
  std::vector<std::size_t> counts = {0, 1, 2, 3, 8, 64};
  if (!test::kSanitized) counts.insert(counts.end(), {1024, 4096});
  for (const auto& [kind, wait] : variants) {
    for (std::size_t threads : counts) {
      // Grain 4: about one chunk per few nodes, so every tier is spread over the workers.
      const auto m = calculate(db, engine::SchedulerOptions{.kind = kind, .threads = threads, .wait = wait}, 4);
      EXPECT_TRUE(snapshot(*m) == expected)
          << engine::to_string(kind) << "/" << engine::to_string(wait) << " with " << threads << " threads";
    }
  }
}

TEST(Determinism, TheDigestSeesAChangeOfOneBitInAnyPublishedValueOrStatus) {
  test::TempDir dir;
  generate(find_preset("tiny"), GenerateOptions{}, dir.path("t.db"));
  const auto m = calculate(dir.path("t.db"));
  const std::uint64_t before = snapshot(*m);
  auto flip = [](double& x) { x = std::nextafter(x, 1e300); };
  flip(m->store.bond_values[2].pv01);
  EXPECT_NE(snapshot(*m), before);
  m->store.bond_values[2] = calculate(dir.path("t.db"))->store.bond_values[2];
  EXPECT_EQ(snapshot(*m), before);
  flip(m->store.repo_books[1].total.mtm_pnl);
  EXPECT_NE(snapshot(*m), before);
  const auto fresh = calculate(dir.path("t.db"));
  fresh->store.states[static_cast<std::size_t>(Kind::outright_trade)][3].status = Status::stale;
  EXPECT_NE(snapshot(*fresh), before);
}

TEST(Generator, PresetsHaveTheirCountsAndAreDeterministic) {
  test::TempDir dir;
  generate(find_preset("tiny"), GenerateOptions{3, 4}, dir.path("a.db"));
  generate(find_preset("tiny"), GenerateOptions{3, 4}, dir.path("b.db"));
  generate(find_preset("tiny"), GenerateOptions{4, 4}, dir.path("c.db"));
  const auto a = calculate(dir.path("a.db"));
  const Preset& tiny = find_preset("tiny");
  EXPECT_EQ(a->store.size(Kind::calendar), 1u);
  EXPECT_EQ(a->store.size(Kind::ir_curve), 2u);
  EXPECT_EQ(a->store.size(Kind::bond), tiny.bonds);
  EXPECT_EQ(a->store.size(Kind::outright_trade), tiny.outright_trades);
  EXPECT_EQ(a->store.size(Kind::repo_trade), tiny.repo_trades);
  // 10 trades of each kind, 5 per curve, books of 4: 2 books per curve.
  EXPECT_EQ(a->store.size(Kind::outright_book), 4u);
  for (const auto& states : a->store.states) {
    for (const NodeState& s : states) EXPECT_EQ(s.status, Status::ok);
  }
  EXPECT_TRUE(snapshot(*a) == snapshot(*calculate(dir.path("b.db"))));
  EXPECT_FALSE(snapshot(*a) == snapshot(*calculate(dir.path("c.db"))));
}

// A live change rewrites the pages of the rows it touches: the generator
// makes them 1 KiB (docs/benchmarks.md, "Input pages of 1 KiB").
TEST(Generator, WritesPagesOfOneKibibyte) {
  test::TempDir dir;
  generate(find_preset("tiny"), GenerateOptions{}, dir.path("t.db"));
  base::Database db(dir.path("t.db"), base::Database::Mode::read_only);
  base::Statement size = db.prepare("PRAGMA page_size");
  ASSERT_TRUE(size.step());
  EXPECT_EQ(size.integer(0), 1024);
}

TEST(Generator, DesksGiveAQuarterOfTheBooksAboutAQuarterOfTheBonds) {
  // 50k: 2,500 bonds and 11,250 trades of each kind per curve; books of 1,000, 12 per curve and kind.
  test::TempDir dir;
  auto quarter_bonds = [&](std::size_t desks) {
    const std::string path = dir.path("d" + std::to_string(desks) + ".db");
    generate(find_preset("50k"), GenerateOptions{.seed = 2, .book_size = 1000, .desks = desks}, path);
    base::Database db(path, base::Database::Mode::read_only);
    // The bonds of the first quarter of each kind's books by id (what bond_risk_mpi --split books gives rank 0 of 4).
    base::Statement st = db.prepare(R"SQL(
      SELECT count(DISTINCT bond_id) FROM (
        SELECT bond_id FROM outright_trade WHERE id IN (SELECT trade_id FROM outright_book_trade WHERE book_id IN
          (SELECT id FROM outright_book ORDER BY id LIMIT (SELECT count(*) / 4 FROM outright_book)))
        UNION ALL
        SELECT bond_id FROM repo_trade WHERE id IN (SELECT trade_id FROM repo_book_trade WHERE book_id IN
          (SELECT id FROM repo_book ORDER BY id LIMIT (SELECT count(*) / 4 FROM repo_book)))))SQL");
    st.step();
    return st.integer(0);
  };
  const std::int64_t bonds = 5'000, desks = 5;
  EXPECT_LE(quarter_bonds(desks), bonds / 4 + bonds / (2 * desks));  // a quarter, and the desk it ends in
  EXPECT_GT(quarter_bonds(1), bonds * 2 / 5);  // without desks: most bonds of the curve
}

TEST(Generator, The440kPresetHasTheAnalysisCounts) {
  const Preset& p = find_preset("440k");
  EXPECT_EQ(p.bonds, 40'000u);
  EXPECT_EQ(p.outright_trades, 200'000u);
  EXPECT_EQ(p.repo_trades, 200'000u);
  EXPECT_EQ(find_preset("1M").outright_trades, 460'000u);
  EXPECT_THROW(find_preset("2M"), std::exception);
}
