// An allocator for big buffers that are always written before they are
// read: its resize() leaves new elements of a trivial type uninitialised
// (default-initialised) instead of zeroing them, where zeroing a big resize
// would cost as much as the writes that follow, and its storage lies in
// huge pages as HugePageAllocator's does (base/huge_pages.h). A value with
// no state of its own.
#pragma once

#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/huge_pages.h"

namespace base {

template <class T>
struct DefaultInitAllocator : HugePageAllocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

  // No arguments: default-initialised (for a trivial U, left as it was).
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    std::construct_at(p, std::forward<Args>(args)...);
  }
};

// A vector of trivial values that resize() does not zero, in huge pages.
template <class T>
  requires std::is_trivially_default_constructible_v<T>
using UninitVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace base
