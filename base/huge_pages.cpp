#include "base/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

namespace base {

void* map_huge(std::size_t bytes) {
  // One huge page more than asked, then what lies before the first 2 MiB
  // boundary and after the end given back: an aligned mapping of `bytes`.
  const std::size_t span = bytes + kHugePage;
  void* raw = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + kHugePage - 1) & ~(std::uintptr_t{kHugePage} - 1);
  if (aligned > start) ::munmap(raw, aligned - start);
  if (start + span > aligned + bytes) ::munmap(reinterpret_cast<void*>(aligned + bytes), start + span - (aligned + bytes));
  void* p = reinterpret_cast<void*>(aligned);
  ::madvise(p, bytes, MADV_HUGEPAGE);  // advice: where huge pages are off, 4 KiB pages as before
  return p;
}

void unmap_huge(void* p, std::size_t bytes) noexcept { ::munmap(p, bytes); }

}  // namespace base
