// base::HugePageAllocator against what the kernel says of the process's
// memory (/proc/self/smaps): a big array lies in a mapping advised into huge
// pages ("hg" among its VmFlags), aligned to 2 MiB; a small one is left to
// std::allocator; the values survive growth and copies; and freed big
// arrays leave no advised memory behind for small ones.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "base/default_init.h"
#include "base/huge_pages.h"

namespace {

// The process's mappings as /proc/self/smaps lists them: each range and its VmFlags line.
struct Mapping {
  std::uintptr_t from = 0, to = 0;
  std::string flags;
};
std::vector<Mapping> mappings() {
  std::vector<Mapping> out;
  std::ifstream smaps("/proc/self/smaps");
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t from = 0, to = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> from >> dash >> to && dash == '-') {
      out.push_back({from, to, ""});
    } else if (!out.empty() && line.starts_with("VmFlags:")) {
      out.back().flags = line;
    }
  }
  return out;
}

// Whether a VmFlags line says advised into huge pages.
bool advised(const std::string& flags) { return flags.find(" hg") != std::string::npos; }

// The VmFlags of the mapping that holds `address`, or "" if none does.
std::string vm_flags_at(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  for (const Mapping& m : mappings()) {
    if (m.from <= at && at < m.to) return m.flags;
  }
  return "";
}

bool advised_huge(const void* address) { return advised(vm_flags_at(address)); }

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

// Small arrays allocated after big ones were freed lie in no advised
// mapping: the big ones' memory, advice and all, goes back to the system,
// not to the heap that serves small ones. (glibc serves a freed size from
// its heap from then on: its mmap threshold rises to it.)
TEST(HugePages, FreedHugeArraysLeaveNoAdviceOnTheHeap) {
  for (int round = 0; round < 4; ++round) {
    base::HugeVector<double> big(base::kHugePage / sizeof(double) * (round + 2), 1.0);
    ASSERT_TRUE(advised_huge(big.data()));
  }
  std::vector<base::HugeVector<int>> small;
  for (int i = 0; i < 4000; ++i) small.emplace_back(1000, i);
  std::size_t in_advised = 0;
  for (const Mapping& m : mappings()) {
    if (!advised(m.flags)) continue;
    for (const base::HugeVector<int>& v : small) {
      const auto at = reinterpret_cast<std::uintptr_t>(v.data());
      in_advised += m.from <= at && at < m.to;
    }
  }
  EXPECT_EQ(in_advised, 0u) << "of " << small.size() << " small arrays";
}

}  // namespace
