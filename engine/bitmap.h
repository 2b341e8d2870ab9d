// One bit per node of a type, in 64-bit words. The graph keeps its dirty
// sets in these: 440,000 nodes take 55 KB, so marking the random targets of
// many edges stays in the first-level cache, and a whole set is scanned, set
// or cleared a word at a time.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

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

  // Calls fn(i) for every set bit, in increasing order.
  template <class Fn>
  void for_each(Fn fn) const {
    for (std::size_t k = 0; k < words_.size(); ++k) {
      for (Word w = words_[k]; w != 0; w &= w - 1) fn(k * 64 + static_cast<std::size_t>(std::countr_zero(w)));
    }
  }

  std::vector<Word>& words() { return words_; }
  const std::vector<Word>& words() const { return words_; }

 private:
  void trim() {  // no bit past size() is ever set
    if (size_ % 64 != 0) words_.back() &= (Word{1} << (size_ % 64)) - 1;
  }

  std::vector<Word> words_;
  std::size_t size_ = 0;
};

}  // namespace engine
