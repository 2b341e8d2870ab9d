// An allocator for the big arrays a flush walks: an allocation of 2 MiB or
// more is aligned to 2 MiB and advised into transparent huge pages
// (madvise MADV_HUGEPAGE), so that the walk takes one TLB entry per 2 MiB
// instead of one per 4 KiB page. Where the kernel backs only advised memory
// with huge pages (transparent_hugepage "madvise", as on many hosts) this
// is what gives the engine's arrays them; under a virtual machine a miss in
// the TLB walks two page tables, and on a 2-vCPU VM a bump of the 1M preset's
// curve took 3x longer end to end in 4 KiB pages (docs/benchmarks.md).
// A big allocation is a mapping of its own, unmapped when freed: memory
// advised so never goes back to the heap, where it would give the advice
// to small allocations (glibc serves a size once freed from its heap).
// Smaller allocations are std::allocator's. Stateless: any two compare equal.
#pragma once

#include <cstddef>
#include <limits>
#include <memory>
#include <new>
#include <vector>

namespace base {

inline constexpr std::size_t kHugePage = std::size_t{2} << 20;

// `bytes` (a multiple of kHugePage) of zeroed memory aligned to kHugePage
// and advised MADV_HUGEPAGE, mapped for it alone; throws std::bad_alloc.
void* map_huge(std::size_t bytes);
// Unmaps what map_huge(bytes) returned.
void unmap_huge(void* p, std::size_t bytes) noexcept;

template <class T>
struct HugePageAllocator {
  using value_type = T;

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (small(n)) return std::allocator<T>{}.allocate(n);
    if (n > (kMaxBytes - kHugePage) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(map_huge(rounded(n)));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (small(n)) return std::allocator<T>{}.deallocate(p, n);
    unmap_huge(p, rounded(n));
  }

  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) { return true; }

 private:
  static constexpr std::size_t kMaxBytes = std::numeric_limits<std::ptrdiff_t>::max();
  static bool small(std::size_t n) { return n * sizeof(T) < kHugePage; }
  static std::size_t rounded(std::size_t n) { return (n * sizeof(T) + kHugePage - 1) / kHugePage * kHugePage; }
};

// A vector whose storage, once 2 MiB or more, lies in huge pages.
template <class T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace base
