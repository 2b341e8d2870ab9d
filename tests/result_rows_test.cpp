// ResultRows, the rows the live engine hands to its result writer: each
// node's row is what the store publishes for it (checked against
// published_values and key_rate_ladder read afresh), a node has one row
// however often it is put, a later row replaces an earlier one whatever
// the sizes of their reasons and ladders, older rows never replace newer
// ones, a ladder that outgrows its space moves without touching its
// neighbours, and in_id_order is the rows by id. A bond's ladder is also
// checked against the store's own arrays.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/sqlite.h"
#include "bond_risk/model/nodes/result_rows.h"
#include "bond_risk/model/store/published_values.h"
#include "bond_risk/model/store/reason.h"
#include "bond_risk/synth/generator.h"
#include "engine/scheduler.h"
#include "tests/test_support.h"

using namespace bond_risk;

namespace {

std::string generated(const test::TempDir& dir, std::uint64_t seed) {
  const std::string db = dir.path("rows" + std::to_string(seed) + ".db");
  generate(find_preset("100"), {.seed = seed, .book_size = 10}, db);
  return db;
}

// The row `rows` holds for `node` (found by id), which must be there.
ResultRow row_of(ResultRows& rows, const Store& store, NodeRef node) {
  const Kind kind = kind_of(node);
  for (std::size_t r = 0; r < rows.size(kind); ++r) {
    if (rows.row(kind, r).id == store.id(node)) return rows.row(kind, r);
  }
  ADD_FAILURE() << "no row of " << kind_name(kind) << " " << store.id(node);
  return {};
}

bool same_bits(std::span<const double> a, std::span<const double> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

void expect_row_is_published(const ResultRow& row, const Store& store, NodeRef node, std::string_view reason) {
  const std::string where = std::string(kind_name(kind_of(node))) + " " + std::to_string(store.id(node));
  EXPECT_EQ(row.id, store.id(node)) << where;
  EXPECT_EQ(row.kind, kind_of(node)) << where;
  EXPECT_EQ(row.status, store.state(node).status) << where;
  const PublishedValues published = published_values(store, node);
  EXPECT_TRUE(same_bits(row.values, published.span())) << where;
  EXPECT_EQ(row.reason, reason) << where;
  const std::vector<KeyRate> ladder = stores_key_rates(kind_of(node)) ? key_rate_ladder(store, node) : std::vector<KeyRate>{};
  ASSERT_EQ(row.key_rates.size(), ladder.size()) << where;
  for (std::size_t k = 0; k < ladder.size(); ++k) {
    EXPECT_EQ(row.key_rates[k].ir_curve_id, ladder[k].ir_curve_id) << where;
    EXPECT_EQ(row.key_rates[k].idx, ladder[k].idx) << where;
    EXPECT_TRUE(same_bits(row.key_rates[k].kr01, ladder[k].kr01)) << where << " point " << k;
  }
}

// Marks `node` FAILED for `why`, as a flush would on a bad input row.
void fail(test::Model& m, NodeRef node, std::string why) {
  m.store.fail(node, std::move(why));
  m.store.state(node).status = Status::failed;
}

}  // namespace

TEST(ResultRows, EachNodeHasOneRowOfWhatItPublishes) {
  test::TempDir dir;
  const auto m = test::calculate(generated(dir, 11), 1);
  const Store& s = m->store;
  ResultRows rows;
  for (int pass = 0; pass < 2; ++pass) {  // the second pass replaces every row
    for (std::size_t k = static_cast<std::size_t>(Kind::bond); k < kKindCount; ++k) {
      for (NodeIndex i = 0; i < s.size(static_cast<Kind>(k)); ++i) rows.put(s, m->graph, ref(static_cast<Kind>(k), i));
    }
  }
  for (std::size_t k = static_cast<std::size_t>(Kind::bond); k < kKindCount; ++k) {
    const Kind kind = static_cast<Kind>(k);
    ASSERT_EQ(rows.size(kind), s.size(kind)) << kind_name(kind);
    for (NodeIndex i = 0; i < s.size(kind); ++i) {
      const NodeRef node = ref(kind, i);
      expect_row_is_published(row_of(rows, s, node), s, node, s.state(node).status == Status::ok ? "" : reason(s, m->graph, node));
    }
  }
  EXPECT_EQ(rows.size(), s.size() - s.size(Kind::calendar) - s.size(Kind::ir_curve));
  // A bond's ladder, read from the store's own arrays: its curve's points, each with the bond's kr01.
  for (NodeIndex i = 0; i < s.size(Kind::bond); ++i) {
    const ResultRow row = row_of(rows, s, ref(Kind::bond, i));
    if (s.state(ref(Kind::bond, i)).status != Status::ok) continue;
    const IrCurve& curve = s.curves[s.bonds[i].curve];
    ASSERT_EQ(row.key_rates.size(), curve.points.size()) << "bond " << row.id;
    for (std::size_t k = 0; k < curve.points.size(); ++k) {
      EXPECT_EQ(row.key_rates[k].ir_curve_id, s.ids[static_cast<std::size_t>(Kind::ir_curve)][s.bonds[i].curve]);
      EXPECT_EQ(row.key_rates[k].idx, curve.point_idx[k]) << "bond " << row.id << " point " << k;
      EXPECT_EQ(row.key_rates[k].days_forward, curve.points[k].days_forward) << "bond " << row.id << " point " << k;
      EXPECT_EQ(row.key_rates[k].kr01[0], s.bond_ladder(i)[k]) << "bond " << row.id << " point " << k;
      EXPECT_EQ(row.key_rates[k].kr01[1], 0.0) << "bond " << row.id << " point " << k;
    }
  }
}

TEST(ResultRows, ALadderThatOutgrowsItsSpaceMovesAndLeavesItsNeighbourWhole) {
  test::TempDir dir;
  const std::string db = generated(dir, 16), shorter = dir.path("shorter.db");
  std::filesystem::copy_file(db, shorter);
  {  // two points fewer on every curve: every bond's ladder is two points shorter
    base::Database d(shorter, base::Database::Mode::read_write);
    d.exec("DELETE FROM ir_curve_input_rate WHERE idx IN (SELECT idx FROM ir_curve_input_rate "
           "WHERE ir_curve_id = (SELECT min(ir_curve_id) FROM ir_curve_input_rate) ORDER BY days_forward LIMIT 2 OFFSET 4)");
  }
  const auto full = test::calculate(db, 1), short_ = test::calculate(shorter, 1);
  const NodeRef a = ref(Kind::bond, 0), b = ref(Kind::bond, 1);
  ASSERT_LT(key_rate_ladder(short_->store, a).size(), key_rate_ladder(full->store, a).size());
  ResultRows rows;
  rows.put(short_->store, short_->graph, a);
  rows.put(short_->store, short_->graph, b);
  rows.put(full->store, full->graph, a);  // longer than the space it had
  expect_row_is_published(row_of(rows, full->store, a), full->store, a, "");
  expect_row_is_published(row_of(rows, short_->store, b), short_->store, b, "");
  rows.put(short_->store, short_->graph, a);  // back into the larger space
  expect_row_is_published(row_of(rows, short_->store, a), short_->store, a, "");
  expect_row_is_published(row_of(rows, short_->store, b), short_->store, b, "");
}

TEST(ResultRows, ALaterRowReplacesTheEarlierWhateverItsReasonAndLadder) {
  test::TempDir dir;
  const std::string db = generated(dir, 12);
  const auto ok = test::calculate(db, 1);
  auto failed = test::calculate(db, 1);  // the same nodes, some failed below
  const NodeRef bond = ref(Kind::bond, 0), book = ref(Kind::outright_book, 0);
  ASSERT_FALSE(key_rate_ladder(ok->store, bond).empty());
  fail(*failed, bond, "a reason longer than any short-string buffer holds, so that it lives on the heap");
  fail(*failed, book, "short");
  ResultRows rows;
  for (int round = 0; round < 3; ++round) {  // each row grows, shrinks and grows again in place
    for (const NodeRef node : {bond, book}) {
      rows.put(ok->store, ok->graph, node);
      expect_row_is_published(row_of(rows, ok->store, node), ok->store, node, "");
      rows.put(failed->store, failed->graph, node);
      expect_row_is_published(row_of(rows, failed->store, node), failed->store, node, failed->reason(failed->store.id(node)));
      EXPECT_TRUE(row_of(rows, failed->store, node).key_rates.empty());
    }
    EXPECT_EQ(rows.size(), 2u);
  }
  // The other row is untouched by its neighbour's changes.
  rows.put(ok->store, ok->graph, bond);
  expect_row_is_published(row_of(rows, ok->store, bond), ok->store, bond, "");
  expect_row_is_published(row_of(rows, failed->store, book), failed->store, book, failed->reason(failed->store.id(book)));
}

TEST(ResultRows, OlderRowsFillOnlyTheNodesWithoutANewerOne) {
  test::TempDir dir;
  const std::string db = generated(dir, 13);
  const auto old_model = test::calculate(db, 1);
  auto new_model = test::calculate(db, 1);
  const NodeRef a = ref(Kind::outright_trade, 0), b = ref(Kind::outright_trade, 1), c = ref(Kind::repo_trade, 2);
  const NodeRef failed_bond = ref(Kind::bond, 2), book = ref(Kind::repo_book, 0);
  fail(*new_model, b, "newer");
  fail(*old_model, failed_bond, "older");
  ResultRows newer, older;
  newer.put(new_model->store, new_model->graph, a);
  newer.put(new_model->store, new_model->graph, b);
  for (const NodeRef n : {b, c, failed_bond, book}) older.put(old_model->store, old_model->graph, n);
  newer.put_older(older);
  EXPECT_EQ(newer.size(), 5u);
  expect_row_is_published(row_of(newer, new_model->store, b), new_model->store, b, "newer");
  expect_row_is_published(row_of(newer, old_model->store, c), old_model->store, c, "");
  expect_row_is_published(row_of(newer, old_model->store, failed_bond), old_model->store, failed_bond, "older");
  ASSERT_FALSE(key_rate_ladder(old_model->store, book).empty());
  expect_row_is_published(row_of(newer, old_model->store, book), old_model->store, book, "");
}

TEST(ResultRows, InIdOrderListsEveryRowOnceByIncreasingId) {
  test::TempDir dir;
  const auto m = test::calculate(generated(dir, 14), 1);
  const Store& s = m->store;
  ResultRows rows;
  for (NodeIndex i = s.size(Kind::repo_trade); i-- > 0;) rows.put(s, m->graph, ref(Kind::repo_trade, i));
  const std::span<const std::uint32_t> order = rows.in_id_order(Kind::repo_trade);
  ASSERT_EQ(order.size(), s.size(Kind::repo_trade));
  std::vector<std::uint32_t> seen(order.begin(), order.end());
  std::ranges::sort(seen);
  EXPECT_EQ(std::ranges::adjacent_find(seen), seen.end());
  for (std::size_t r = 1; r < order.size(); ++r) {
    EXPECT_LT(rows.row(Kind::repo_trade, order[r - 1]).id, rows.row(Kind::repo_trade, order[r]).id);
  }
}

TEST(ResultRows, ClearLeavesNoRowAndNodesArePutAfresh) {
  test::TempDir dir;
  const auto m = test::calculate(generated(dir, 15), 1);
  ResultRows rows;
  const NodeRef bond = ref(Kind::bond, 3);
  rows.put(m->store, m->graph, bond);
  rows.put(m->store, m->graph, ref(Kind::repo_book, 0));
  rows.clear();
  EXPECT_TRUE(rows.empty());
  EXPECT_TRUE(rows.in_id_order(Kind::bond).empty());
  rows.put(m->store, m->graph, bond);
  EXPECT_EQ(rows.size(), 1u);
  expect_row_is_published(rows.row(Kind::bond, 0), m->store, bond, "");
}

namespace {

// Every row of `rows` is what `m` publishes for its node, and each node of
// the kinds with rows has exactly one.
void expect_every_row_is_published(ResultRows& rows, const test::Model& m) {
  const Store& s = m.store;
  for (std::size_t k = static_cast<std::size_t>(Kind::bond); k < kKindCount; ++k) {
    const Kind kind = static_cast<Kind>(k);
    ASSERT_EQ(rows.size(kind), s.size(kind)) << kind_name(kind);
    std::unordered_map<std::int64_t, NodeIndex> by_id;
    for (NodeIndex i = 0; i < s.size(kind); ++i) by_id[s.id(ref(kind, i))] = i;
    std::vector<bool> seen(s.size(kind), false);
    for (std::size_t r = 0; r < rows.size(kind); ++r) {
      const ResultRow row = rows.row(kind, r);
      ASSERT_TRUE(by_id.contains(row.id)) << kind_name(kind) << " " << row.id;
      const NodeRef node = ref(kind, by_id[row.id]);
      ASSERT_FALSE(seen[node.index]) << kind_name(kind) << " " << row.id << " has two rows";
      seen[node.index] = true;
      expect_row_is_published(row, s, node, s.state(node).status == Status::ok ? "" : reason(s, m.graph, node));
    }
  }
}

}  // namespace

TEST(ResultRows, RowsCopiedByWorkersAreWhatEachNodePublishes) {
  test::TempDir dir;
  const std::string db = dir.path("workers.db");
  generate(find_preset("50k"), {.seed = 17, .book_size = 500}, db);  // thousands of each kind: many chunks
  const auto ok = test::calculate(db, 1);
  auto failed = test::calculate(db, 1);  // the same nodes, some failed below
  for (std::size_t k = static_cast<std::size_t>(Kind::bond); k < kKindCount; ++k) {
    for (NodeIndex i = 0; i < failed->store.size(static_cast<Kind>(k)); i += 97) {
      fail(*failed, ref(static_cast<Kind>(k), i), i % 2 == 0 ? "short" : "a reason too long for a short-string buffer");
    }
  }
  const std::unique_ptr<engine::Scheduler> workers = engine::make_scheduler({.threads = 2});
  const auto put_all = [&](ResultRows& rows, const test::Model& m) {
    for (std::size_t k = static_cast<std::size_t>(Kind::bond); k < kKindCount; ++k) {
      std::vector<NodeIndex> all(m.store.size(static_cast<Kind>(k)));
      std::iota(all.begin(), all.end(), NodeIndex{0});
      rows.put(m.store, m.graph, static_cast<Kind>(k), all, workers.get());
    }
  };
  ResultRows rows;
  // A third of the nodes first, one by one with reasons; then every node by the workers (old rows
  // replaced, their reasons dropped, new rows added); then every node failed or not again.
  for (std::size_t k = static_cast<std::size_t>(Kind::bond); k < kKindCount; ++k) {
    for (NodeIndex i = 0; i < failed->store.size(static_cast<Kind>(k)); i += 3) rows.put(failed->store, failed->graph, ref(static_cast<Kind>(k), i));
  }
  put_all(rows, *ok);
  expect_every_row_is_published(rows, *ok);
  put_all(rows, *failed);
  expect_every_row_is_published(rows, *failed);
  rows.clear();  // and into space kept from before
  put_all(rows, *ok);
  expect_every_row_is_published(rows, *ok);
}
