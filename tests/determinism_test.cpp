// Results are bit-identical whatever the number of threads and the grain.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "bond_risk/generator.h"
#include "tests/test_support.h"

using namespace bond_risk;
using test::calculate;

namespace {

// Every published value and status of a model, as raw bytes.
std::vector<unsigned char> snapshot(const test::Model& m) {
  std::vector<unsigned char> bytes;
  auto put = [&](const auto& value) {
    const auto* p = reinterpret_cast<const unsigned char*>(&value);
    bytes.insert(bytes.end(), p, p + sizeof value);
  };
  for (const auto& states : m.store.states) {
    for (const NodeState& s : states) put(s.status);
  }
  for (const Bond& b : m.store.bonds) put(b.value);
  for (const OutrightTrade& t : m.store.outright_trades) put(t.value);
  for (const RepoTrade& t : m.store.repo_trades) put(t.value);
  for (const OutrightBook& b : m.store.outright_books) put(b.total), put(b.excluded);
  for (const RepoBook& b : m.store.repo_books) put(b.total), put(b.excluded);
  for (const IrCurve& c : m.store.curves) {
    bytes.insert(bytes.end(), reinterpret_cast<const unsigned char*>(c.arrays.df.data()),
                 reinterpret_cast<const unsigned char*>(c.arrays.df.data() + c.arrays.df.size()));
  }
  return bytes;
}

}  // namespace

TEST(Determinism, EveryThreadCountAndGrainGivesTheSameBits) {
  test::TempDir dir;
  const std::string db = dir.path("50k.db");
  generate(find_preset("50k"), GenerateOptions{7, 500}, db);
  const auto reference = calculate(db, 0);
  const std::vector<unsigned char> expected = snapshot(*reference);
  EXPECT_EQ(reference->stats.nodes, reference->store.size());
  for (std::size_t threads : {1, 2, 7}) {
    for (std::size_t grain : {1, 333, 4096}) {
      const auto m = calculate(db, threads, grain);
      EXPECT_TRUE(snapshot(*m) == expected) << threads << " threads, grain " << grain;
    }
  }
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

TEST(Generator, The440kPresetHasTheAnalysisCounts) {
  const Preset& p = find_preset("440k");
  EXPECT_EQ(p.bonds, 40'000u);
  EXPECT_EQ(p.outright_trades, 200'000u);
  EXPECT_EQ(p.repo_trades, 200'000u);
  EXPECT_EQ(find_preset("1M").outright_trades, 460'000u);
  EXPECT_THROW(find_preset("2M"), std::exception);
}
