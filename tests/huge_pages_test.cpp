// base::HugePageAllocator against what the kernel says of the process's
// memory (/proc/self/smaps): a big array lies in a mapping advised into huge
// pages ("hg" among its VmFlags), aligned to 2 MiB; a small one is left to
// std::allocator; and the values survive growth and copies.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>

#include "base/default_init.h"
#include "base/huge_pages.h"

namespace {

// The VmFlags of the mapping of /proc/self/smaps that holds `address`, or "" if none does.
std::string vm_flags_at(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t from = 0, to = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> from >> dash >> to && dash == '-') {
      inside = from <= at && at < to;
    } else if (inside && line.starts_with("VmFlags:")) {
      return line;
    }
  }
  return "";
}

bool advised_huge(const void* address) { return vm_flags_at(address).find(" hg") != std::string::npos; }

TEST(HugePages, AnArrayOfTwoMebibytesOrMoreLiesInAMappingAdvisedIntoHugePages) {
  base::HugeVector<double> big(base::kHugePage / sizeof(double) * 3);
  std::iota(big.begin(), big.end(), 0.0);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big.data()) % base::kHugePage, 0u);
  EXPECT_TRUE(advised_huge(big.data())) << vm_flags_at(big.data());
  EXPECT_TRUE(advised_huge(big.data() + big.size() - 1)) << vm_flags_at(big.data() + big.size() - 1);

  base::UninitVector<std::int64_t> rows;  // the result rows' buffers, grown by resize
  rows.resize(base::kHugePage / sizeof(std::int64_t) + 1);
  EXPECT_TRUE(advised_huge(rows.data())) << vm_flags_at(rows.data());
}

TEST(HugePages, ASmallArrayIsStdAllocatorsAndValuesSurviveGrowthAndCopies) {
  base::HugeVector<int> v(1000, 7);
  EXPECT_FALSE(advised_huge(v.data())) << vm_flags_at(v.data());
  for (int i = 0; i < 1'000'000; ++i) v.push_back(i);  // from std::allocator's to huge pages, through reallocations
  EXPECT_TRUE(advised_huge(v.data()));
  const base::HugeVector<int> copy = v;
  ASSERT_EQ(copy.size(), 1'001'000u);
  EXPECT_EQ(copy[999], 7);
  EXPECT_EQ(copy.back(), 999'999);
  v.resize(10);
  v.shrink_to_fit();  // back below the threshold: freed by the allocator that gave it
  EXPECT_EQ(v[9], 7);
}

}  // namespace
