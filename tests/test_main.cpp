// GoogleTest main that ends with the plain "N passed, N failed" line CI reads.
#include <gtest/gtest.h>

#include <cstdio>

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  const testing::UnitTest& unit = *testing::UnitTest::GetInstance();
  std::printf("tests: %d passed, %d failed\n", unit.successful_test_count(), unit.failed_test_count());
  return status;
}
