// GoogleTest main that ends with the plain "N passed, N failed" line CI reads
// (and how many were skipped, if any); scripts/run-tests.sh adds up the shards' lines.
#include <gtest/gtest.h>

#include <cstdio>

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each test's lines as they come, through scripts/run-tests.sh's pipe too
  testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  const testing::UnitTest& unit = *testing::UnitTest::GetInstance();
  std::printf("tests: %d passed, %d failed", unit.successful_test_count(), unit.failed_test_count());
  if (unit.skipped_test_count() > 0) std::printf(", %d skipped (the reason is printed above)", unit.skipped_test_count());
  std::printf("\n");
  return status;
}
