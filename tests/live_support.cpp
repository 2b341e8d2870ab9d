#include "tests/live_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "bond_risk/synth/generator.h"
#include "bond_risk/db/loader.h"
#include "bond_risk/db/result_writer.h"
#include "bond_risk/db/schema.h"
#include "bond_risk/db/database_rows.h"
#include "bond_risk/live/apply_change.h"
#include "bond_risk/model/risk/ladders.h"
#include "bond_risk/model/store/published_values.h"
#include "bond_risk/model/nodes/result_rows.h"

namespace test {

using namespace bond_risk;


Change change(const std::string& line) { return std::get<Change>(parse_command(line)); }

Live::Live(const char* preset, std::size_t book_size, std::size_t threads, const std::string& sql,
           Conventions conventions, bool bare)
    : bare(bare) {
  GenerateOptions options{5, book_size};
  options.conventions = conventions;
  generate(find_preset(preset), options, path);
  db = std::make_unique<base::Database>(path, base::Database::Mode::read_write);
  db->exec(kSchemaSql);
  db->exec(sql);
  model = std::make_unique<LiveModel>(load(), engine::SchedulerOptions{.threads = threads}, 64);
  model->flush_all();
  executor = std::make_unique<CommandExecutor>(*model, *db);
}

void Live::fill_disk(const std::string& line) {
  base::Statement pages = db->prepare("PRAGMA page_count");
  ASSERT_TRUE(pages.step());
  db->exec("PRAGMA max_page_count = " + std::to_string(pages.integer(0)));
  for (int i = 0; i < 10'000; ++i) {
    const base::Json reply = run(line);
    if (reply["ok"] == true) continue;
    if (reply.value("error", "").find("full") == std::string::npos) FAIL() << "refused for another reason: " << reply.dump();
    return;
  }
  FAIL() << "10,000 changes fitted in a database that may not grow";
}

Store Live::load() const {
  Store s = bond_risk::load(*db).store;
  s.with_key_rates = !bare;
  s.with_quote_analytics = !bare;
  return s;
}

void Live::commit(const std::string& line) {
  base::Transaction tx(*db);
  const DatabaseRows rows(*db);
  apply_change(*model, change(line), *db, rows);
  tx.commit();
}

std::vector<base::Json> Live::batch(const std::vector<std::string>& lines) {
  std::vector<base::Json> out;
  for (const Reply& reply : executor->execute(lines)) {
    // A deferred reply runs here, as the server's job runner runs it.
    const DeferredAnswer deferred = reply.deferred ? answer(*reply.deferred, {}) : DeferredAnswer{reply.line, {}};
    if (deferred.members && reply.deferred->keep) reply.deferred->keep(*deferred.members);
    out.push_back(base::Json::parse(deferred.line));  // throws if the reply is not valid JSON
    EXPECT_TRUE(out.back().is_object() && out.back().contains("ok")) << reply.line;
  }
  executor->publish_results();
  return out;
}

Reopened::Reopened(const std::string& path)
    : db(path, base::Database::Mode::read_write),
      model((db.exec(kSchemaSql), load(db).store), engine::SchedulerOptions{.threads = 1}, 64),
      executor((model.flush_all(), model), db) {}

base::Json Reopened::run(const std::string& line) {
  const base::Json reply = base::Json::parse(executor.execute({&line, 1}).front().line);
  executor.complete();  // as the server does once the reply is on its way
  return reply;
}

void Reopened::batch(const std::vector<std::string>& lines) {
  for (const Reply& reply : executor.execute(lines)) EXPECT_TRUE(reply.line.starts_with("{\"ok\":true")) << reply.line;
  executor.complete();
}

LiveModel::Recalculation apply_other_program(Live& live, ChangeLog& log, const std::string& sql) {
  base::Database(live.path, base::Database::Mode::read_write).exec(sql);
  ChangeLog::Transaction tx(log);
  const DatabaseRows rows(*live.db);
  apply_change(*live.model, log.changes(), *live.db, rows);  // other programs' rows, as the engine applies them
  LiveModel::Recalculation r = live.model->recalculate();
  log.consume();
  tx.commit();
  return r;
}

// The smallest id of a kind in a store.
std::int64_t first_id(const Store& s, Kind kind) {
  const auto& ids = s.ids[static_cast<std::size_t>(kind)];
  return *std::min_element(ids.begin(), ids.end());
}

namespace {

double rel_diff(double a, double b) { return std::abs(a - b) / std::max(1.0, std::max(std::abs(a), std::abs(b))); }

// Whether two published values agree: both null (NaN), or equal, a book's
// to 1e-9 of its size (books sum from their members' changes).
bool same_value(double a, double b, bool book) {
  if (is_null(a) || is_null(b)) return is_null(a) && is_null(b);
  return book ? rel_diff(a, b) < 1e-9 : a == b;
}

}  // namespace

namespace {

// A node's key-rate ladder equals the fresh one: bit for bit, a book's to
// 1e-9 of its largest entry (a book may hold its members in another order).
void expect_same_ladder(const Store& a, NodeRef n, const Store& b, NodeRef m, bool book) {
  const std::vector<KeyRate> mine = key_rate_ladder(a, n), theirs = key_rate_ladder(b, m);
  const std::string what = std::string(kind_name(kind_of(n))) + " " + std::to_string(a.id(n)) + " key rate ";
  ASSERT_EQ(mine.size(), theirs.size()) << what;
  double largest = 0;
  for (const KeyRate& kr : theirs) largest = std::max({largest, std::abs(kr.kr01[0]), std::abs(kr.kr01[1])});
  for (std::size_t p = 0; p < mine.size(); ++p) {
    ASSERT_EQ(mine[p].ir_curve_id, theirs[p].ir_curve_id) << what;
    ASSERT_EQ(mine[p].idx, theirs[p].idx) << what;
    for (std::size_t v = 0; v < 2; ++v) {
      if (book) {
        EXPECT_NEAR(mine[p].kr01[v], theirs[p].kr01[v], 1e-9 * largest) << what << p;
      } else {
        EXPECT_EQ(mine[p].kr01[v], theirs[p].kr01[v]) << what << p;
      }
    }
  }
}

}  // namespace

void expect_same_as_fresh(const Live& live) {
  // The invariants first: of the graph, the store's indices and each stage
  // (the result marks, the limits held).
  EXPECT_NO_THROW(live.executor->check());
  const auto fresh = calculate(live.path, 0);
  const Store& a = live.store();
  const Store& b = fresh->store;
  std::size_t compared = 0;
  for (std::size_t k = 0; k < kKindCount; ++k) {
    for (NodeIndex i = 0; i < a.ids[k].size(); ++i) {
      const NodeRef n = ref(static_cast<Kind>(k), i);
      if (a.state(n).status == Status::removed) continue;
      const NodeRef* m = b.by_id.find(a.id(n));
      ASSERT_TRUE(m) << kind_name(static_cast<Kind>(k)) << " " << a.id(n) << " is not in the database";
      ASSERT_EQ(a.state(n).status, b.state(*m).status) << kind_name(static_cast<Kind>(k)) << " " << a.id(n);
      ++compared;
      // Books update from their members' changes, so their sums may differ from a fresh sum in rounding.
      const bool book = k == static_cast<std::size_t>(Kind::outright_book) || k == static_cast<std::size_t>(Kind::repo_book);
      const PublishedValues mine = published_values(a, n), theirs = published_values(b, *m);
      ASSERT_EQ(mine.count, theirs.count);
      for (std::size_t v = 0; v < mine.count; ++v) {
        const std::string what = std::string(kind_name(static_cast<Kind>(k))) + " " + std::to_string(a.id(n)) + " " +
                                 std::string(value_names(static_cast<Kind>(k))[v]);
        EXPECT_TRUE(same_value(mine.values[v], theirs.values[v], book)) << what << ": " << mine.values[v] << " against " << theirs.values[v];
      }
      expect_same_ladder(a, n, b, *m, book);
      if (k == static_cast<std::size_t>(Kind::outright_book)) {
        EXPECT_EQ(a.outright_books[i].members.size(), b.outright_books[m->index].members.size());
      }
      if (k == static_cast<std::size_t>(Kind::repo_book)) {
        EXPECT_EQ(a.repo_books[i].members.size(), b.repo_books[m->index].members.size());
      }
    }
  }
  EXPECT_EQ(compared, b.size());
}


namespace {

// The stored ladders are those of a fresh flush: bonds' bit for bit, books'
// to 1e-9 of their largest entry (see expect_same_ladder).
void expect_key_rate_tables_fresh(base::Database& results, const Model& fresh) {
  for (Kind kind : {Kind::bond, Kind::outright_book, Kind::repo_book}) {
    std::size_t stored = 0, expected = 0;
    for (NodeIndex i = 0; i < fresh.store.size(kind); ++i) {
      const NodeRef n = ref(kind, i);
      const std::vector<KeyRate> ladder = key_rate_ladder(fresh.store, n);
      expected += ladder.size();
      double largest = 0;
      for (const KeyRate& kr : ladder) largest = std::max({largest, std::abs(kr.kr01[0]), std::abs(kr.kr01[1])});
      for (const KeyRate& kr : ladder) {
        base::Statement st = results.prepare("SELECT * FROM " + std::string(kind_name(kind)) +
                                             "_key_rate WHERE id = ? AND ir_curve_id = ? AND idx = ?");
        st.bind(1, fresh.store.id(n)).bind(2, kr.ir_curve_id).bind(3, kr.idx);
        ASSERT_TRUE(st.step()) << kind_name(kind) << " " << fresh.store.id(n) << " has no key rate row " << kr.idx;
        for (std::size_t v = 0; v < key_rate_names(kind).size(); ++v) {
          if (kind == Kind::bond) {
            EXPECT_EQ(st.real(3 + static_cast<int>(v)), kr.kr01[v]);
          } else {
            EXPECT_NEAR(st.real(3 + static_cast<int>(v)), kr.kr01[v], 1e-9 * largest);
          }
        }
      }
    }
    base::Statement count = results.prepare("SELECT count(*) FROM " + std::string(kind_name(kind)) + "_key_rate");
    count.step();
    stored = static_cast<std::size_t>(count.integer(0));
    EXPECT_EQ(stored, expected) << kind_name(kind) << "_key_rate rows";
  }
}

}  // namespace

void expect_result_tables_fresh(Live& live) {
  const std::int64_t as_of = live.executor->results().wait_written();
  EXPECT_EQ(live.executor->results().last_error(), "");
  EXPECT_EQ(as_of, live.executor->served_event());
  const auto fresh = calculate(live.path, 0);
  base::Database results(results_path(live.path), base::Database::Mode::read_only);
  EXPECT_EQ(results_as_of(results), as_of);
  std::size_t rows = 0;
  for (std::size_t k = static_cast<std::size_t>(Kind::bond); k < kKindCount; ++k) {
    const Kind kind = static_cast<Kind>(k);
    base::Statement st = results.prepare("SELECT * FROM " + std::string(kind_name(kind)) + "_result ORDER BY id");
    while (st.step()) {
      ++rows;
      const std::int64_t id = st.integer(0);
      const NodeRef* n = fresh->store.by_id.find(id);
      ASSERT_TRUE(n && kind_of(*n) == kind) << kind_name(kind) << " " << id << " has a result row but no input row";
      ResultRows one;
      one.put(fresh->store, fresh->graph, *n);
      const ResultRow row = one.row(kind, 0);
      EXPECT_EQ(st.text(1), status_name(row.status)) << kind_name(kind) << " " << id;
      EXPECT_EQ(st.text(2), row.reason) << kind_name(kind) << " " << id;
      for (std::size_t v = 0; v < row.values.size(); ++v) {
        const int col = static_cast<int>(3 + v);
        if (!publishes_values(kind, row.status)) {
          EXPECT_EQ(st.column_type(col), SQLITE_NULL) << kind_name(kind) << " " << id;
        } else {
          const double stored = st.column_type(col) == SQLITE_NULL ? kNull : st.real(col);
          EXPECT_TRUE(same_value(stored, row.values[v], is_book(kind)))
              << kind_name(kind) << " " << id << " " << value_names(kind)[v] << ": " << stored << " against "
              << row.values[v];
        }
      }
    }
  }
  EXPECT_EQ(rows, fresh->store.size() - fresh->store.size(Kind::calendar) - fresh->store.size(Kind::ir_curve));
  expect_key_rate_tables_fresh(results, *fresh);
}

}  // namespace test
