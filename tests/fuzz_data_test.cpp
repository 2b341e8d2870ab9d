// The fuzz targets' data sets (fuzz/data_sets.h) under the current schema:
// each runs and loads with every node OK but the one it fails on purpose.
// A schema change that broke one (a table gaining a column its INSERTs do
// not name) would otherwise show only as a crash on `make fuzz`'s first input.
#include <gtest/gtest.h>

#include "fuzz/data_sets.h"
#include "tests/test_support.h"

using namespace bond_risk;

TEST(FuzzData, TheRowTargetsDataSetLoadsWithEveryNodeOk) {
  test::TempDir dir;
  test::make_db(dir.path("row.db"), fuzz::kRowData);
  const auto m = test::calculate(dir.path("row.db"), 1);
  for (const std::int64_t id : {1, 2, 10, 11, 100, 200, 1000, 2000}) {
    EXPECT_EQ(m->status(id), Status::ok) << "id " << id << ": " << m->reason(id);
  }
}

TEST(FuzzData, TheScenarioTargetsDataSetLoadsWithOnlyItsShortCurveFailed) {
  test::TempDir dir;
  test::make_db(dir.path("scenario.db"), fuzz::kScenarioData);
  const auto m = test::calculate(dir.path("scenario.db"), 1);
  for (const std::int64_t id : {1, 2, 10, 100, 1000}) {
    EXPECT_EQ(m->status(id), Status::ok) << "id " << id << ": " << m->reason(id);
  }
  EXPECT_EQ(m->status(3), Status::failed) << "its last point is 3,652 days on, short of 7,305";
}
