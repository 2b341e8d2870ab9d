// The SQLite wrappers' contracts that callers rely on beyond SQLite's own.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string_view>

#include "base/sqlite.h"
#include "tests/test_support.h"

TEST(Sqlite, ACachedStatementWhoseRunFailedCanBeBoundAndRunAgain) {
  test::TempDir dir;
  base::Database db(dir.path("s.db"), base::Database::Mode::create);
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY)");
  base::Statement& insert = db.cached("INSERT INTO t (id) VALUES (?)");
  insert.bind(1, std::int64_t{1}).run();
  try {
    insert.bind(1, std::int64_t{1}).run();  // the id is taken
    FAIL() << "a duplicate id was inserted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("UNIQUE constraint failed"), std::string::npos) << e.what();
  }
  insert.bind(1, std::int64_t{2}).run();
  base::Statement count = db.prepare("SELECT count(*) FROM t");
  ASSERT_TRUE(count.step());
  EXPECT_EQ(count.integer(0), 2);
}

TEST(Sqlite, AnEmptyTextIsBoundAsTextNeverAsNull) {
  test::TempDir dir;
  base::Database db(dir.path("s.db"), base::Database::Mode::create);
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, reason TEXT NOT NULL)");
  base::Statement& insert = db.cached("INSERT INTO t (id, reason) VALUES (?, ?)");
  insert.bind(1, std::int64_t{1}).bind(2, std::string_view()).run();  // no data pointer at all
  insert.bind(1, std::int64_t{2}).bind(2, std::string_view("")).run();
  base::Statement texts = db.prepare("SELECT count(*) FROM t WHERE reason = ''");
  ASSERT_TRUE(texts.step());
  EXPECT_EQ(texts.integer(0), 2);
}
