// A fuzz input read a few bytes at a time, for the libFuzzer targets that
// build values of several types from it; zeros once it runs out.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace fuzz {

struct Bytes {
  const std::uint8_t* data;
  std::size_t size;
  std::uint8_t byte() { return size ? (--size, *data++) : 0; }
  std::int64_t integer() {
    std::int64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | byte();
    return v;
  }
  std::string text() {
    const std::size_t n = std::min<std::size_t>(byte() % 24, size);
    std::string s(reinterpret_cast<const char*>(data), n);
    data += n, size -= n;
    return s;
  }
};

}  // namespace fuzz
