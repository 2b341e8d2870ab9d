// One bit per node of a type, in 64-bit words. The graph keeps its dirty
// sets in these: 440,000 nodes take 55 KB, so marking the random targets of
// many edges stays in the first-level cache, and a whole set is scanned, set
// or cleared a word at a time.
// A plain value that owns its words. Not thread-safe: one thread changes it
// (the graph's master thread, or the live stages' on the master); const
// members may be read from several threads while none changes it.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/huge_pages.h"

namespace engine {

class Bitmap {
 public:
  using Word = std::uint64_t;

  std::size_t size() const { return size_; }
  void resize(std::size_t bits) {
    words_.resize((bits + 63) / 64, 0);
    size_ = bits;
    trim();
  }

  bool test(std::size_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }
  void set(std::size_t i) { words_[i / 64] |= Word{1} << (i % 64); }
  void reset(std::size_t i) { words_[i / 64] &= ~(Word{1} << (i % 64)); }

  // Sets the bits of `indices` (each below size()), a word at a time where
  // they run in increasing order (as the graph lists nodes); returns how
  // many of them were not set before (an index listed twice counts once).
  template <class Index>
  std::size_t set_all(std::span<const Index> indices) {
    std::size_t added = 0, k = 0;
    Word bits = 0;  // of word k, not yet merged
    for (const Index i : indices) {
      if (i / 64 != k) {
        added += merge(k, bits);
        k = i / 64, bits = 0;
      }
      bits |= Word{1} << (i % 64);
    }
    return added + merge(k, bits);
  }

  // Whole-set operations, a word at a time.
  void clear() { std::fill(words_.begin(), words_.end(), 0); }
  void fill() {
    std::fill(words_.begin(), words_.end(), ~Word{0});
    trim();
  }
  std::size_t count() const {
    std::size_t n = 0;
    for (Word w : words_) n += static_cast<std::size_t>(std::popcount(w));
    return n;
  }

  // Set bits in [first, last).
  std::size_t count(std::size_t first, std::size_t last) const {
    std::size_t n = 0;
    for_each_word(first, last, [&](std::size_t, Word w) { n += static_cast<std::size_t>(std::popcount(w)); });
    return n;
  }

  // Calls fn(i) for every set bit, in increasing order.
  template <class Fn>
  void for_each(Fn fn) const {
    for_each(0, size_, fn);
  }
  // ... for every set bit in [first, last).
  template <class Fn>
  void for_each(std::size_t first, std::size_t last, Fn fn) const {
    for_each_word(first, last, [&](std::size_t k, Word w) {
      for (; w != 0; w &= w - 1) fn(k * 64 + static_cast<std::size_t>(std::countr_zero(w)));
    });
  }

  // Clears the first set bits in [first, last), at most `max` of them,
  // appending their indices to `out` in increasing order; returns where a
  // next call goes on (`last` once none is left in the range).
  template <class Index>
  std::size_t take(std::size_t first, std::size_t last, std::size_t max, std::vector<Index>& out) {
    if (first >= last) return last;
    for (std::size_t k = first / 64; k <= (last - 1) / 64; ++k) {
      for (Word w = words_[k] & mask(k, first, last); w != 0; w &= w - 1) {
        const std::size_t i = k * 64 + static_cast<std::size_t>(std::countr_zero(w));
        if (max == 0) return i;
        reset(i);
        out.push_back(static_cast<Index>(i));
        --max;
      }
    }
    return last;
  }

  // The bits of word k that lie in [first, last).
  static Word mask(std::size_t k, std::size_t first, std::size_t last) {
    Word m = ~Word{0};
    if (k == first / 64) m &= ~Word{0} << (first % 64);
    if (k == (last - 1) / 64 && last % 64 != 0) m &= (Word{1} << (last % 64)) - 1;
    return m;
  }

  base::HugeVector<Word>& words() { return words_; }
  const base::HugeVector<Word>& words() const { return words_; }

 private:
  // Calls fn(k, w) for each word k that [first, last) touches, w holding
  // only the bits of the range.
  template <class Fn>
  void for_each_word(std::size_t first, std::size_t last, Fn fn) const {
    if (first >= last) return;
    for (std::size_t k = first / 64; k <= (last - 1) / 64; ++k) fn(k, words_[k] & mask(k, first, last));
  }

  // Sets `bits` in word k; returns how many were not set.
  std::size_t merge(std::size_t k, Word bits) {
    if (bits == 0) return 0;
    const Word added = bits & ~words_[k];
    words_[k] |= bits;
    return static_cast<std::size_t>(std::popcount(added));
  }

  void trim() {  // no bit past size() is ever set
    if (size_ % 64 != 0) words_.back() &= (Word{1} << (size_ % 64)) - 1;
  }

  base::HugeVector<Word> words_;
  std::size_t size_ = 0;
};

}  // namespace engine
