// A 64-bit FNV-1a hash of values' bytes, in the order added: equal inputs
// give equal hashes on every run and every machine of the same byte order.
// A plain value, used by one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>

namespace base {

class Fnv1a {
 public:
  // Adds `value`'s bytes (a number: its bits).
  template <class T>
    requires std::is_trivially_copyable_v<T>
  void add(const T& value) {
    add_bytes(std::string_view(reinterpret_cast<const char*>(&value), sizeof value));
  }
  // Adds `text`'s length, then its bytes: "ab"+"c" and "a"+"bc" differ.
  void add_text(std::string_view text) {
    add(text.size());
    add_bytes(text);
  }
  std::uint64_t value() const { return hash_; }

 private:
  void add_bytes(std::string_view bytes) {
    for (const char c : bytes) hash_ = (hash_ ^ static_cast<unsigned char>(c)) * 0x100000001B3ULL;
  }
  std::uint64_t hash_ = 0xCBF29CE484222325ULL;
};

// A hash as text: 16 lower-case hex digits.
inline std::string hex(std::uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(value));
  return buf;
}

}  // namespace base
