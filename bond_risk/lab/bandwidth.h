// A STREAM-like memory bandwidth probe: the triad a[i] = b[i] + s * c[i]
// over arrays far larger than the caches, each thread on its own slice
// (which it also touches first, so its pages are local to it). A triad
// element moves 32 bytes: b and c read, a written, and a's line read
// first (write-allocate), the same convention as FlushBytes::traffic().
#pragma once

#include <cstddef>

namespace bond_risk {

// Bytes a second, the best of `repeats` passes, with `threads` >= 1.
double measure_bandwidth(std::size_t threads, std::size_t megabytes_per_array = 128, int repeats = 5);

}  // namespace bond_risk
