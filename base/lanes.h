// A vector of doubles as wide as the target's registers (GCC's vector
// extension): four lanes where the target has AVX, two (SSE2) otherwise.
// Arithmetic acts on each lane as on a double and rounds it the same way,
// so a formula written once for a double (a template on its number type)
// gives the same bits alone and in a lane, as long as no multiply and add
// are fused (every build has -ffp-contract=off). Values, not storage: load and
// store them with std::memcpy.
#pragma once

#include <cstddef>
#include <cstdint>

namespace base {

#ifdef __AVX__
inline constexpr std::size_t kLanes = 4;
#else
inline constexpr std::size_t kLanes = 2;  // a wider vector would be passed in memory (a different ABI)
#endif

using Doubles = double __attribute__((vector_size(sizeof(double) * kLanes)));
using Uint64s = std::uint64_t __attribute__((vector_size(sizeof(std::uint64_t) * kLanes)));

// |x| in each lane: its sign bit cleared.
inline Doubles abs(Doubles x) { return reinterpret_cast<Doubles>(reinterpret_cast<Uint64s>(x) & (~Uint64s{} >> 1)); }

}  // namespace base
