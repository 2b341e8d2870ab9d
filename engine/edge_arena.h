// The subscription edges of one node type in one direction, all in one
// contiguous array: node i's edges are a slice of it. A slice that must
// grow moves to the end of the array with twice the room, and the array is
// compacted (slices laid out again in node order, no gaps) when moved-out
// space passes half of it. A graph of hundreds of thousands of nodes thus
// has no allocation per node; built by reserve() and then push_back(), its
// slices lie in node order, so walking the edges of consecutive nodes reads
// memory in order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/node_ref.h"

namespace engine {

class EdgeArena {
 public:
  // Gives nodes [size(), count) empty slices.
  void resize(std::size_t count) { slices_.resize(count); }
  std::size_t size() const { return slices_.size(); }

  std::span<const NodeRef> view(NodeIndex node) const {
    const Slice& s = slices_[node];
    return {edges_.data() + s.offset, s.size};
  }

  void push_back(NodeIndex node, NodeRef edge) {
    Slice& s = slices_[node];
    if (s.size == s.capacity) grow(node);
    edges_[slices_[node].offset + slices_[node].size++] = edge;
  }

  // Lays every slice out again in node order with room for extra[node]
  // more edges, so that pushing them moves nothing: for building a graph,
  // one pass to count and one to push instead of a growth per slice.
  void reserve(std::span<const std::uint32_t> extra) { relayout([&](std::size_t n) { return extra[n]; }); }

  // Removes the first edge equal to `edge`, keeping the order of the rest.
  void erase_one(NodeIndex node, NodeRef edge) {
    Slice& s = slices_[node];
    const auto begin = edges_.begin() + s.offset, end = begin + s.size;
    const auto it = std::find(begin, end, edge);
    if (it == end) return;
    std::copy(it + 1, end, it);
    --s.size;
  }

 private:
  struct Slice {
    std::uint32_t offset = 0, size = 0, capacity = 0;
  };

  // Lays every slice out again in node order, with room for extra(node)
  // more edges.
  template <class Extra>
  void relayout(Extra extra) {
    std::size_t total = 0;
    for (std::size_t n = 0; n < slices_.size(); ++n) total += slices_[n].size + extra(n);
    std::vector<NodeRef> packed(total);
    std::uint32_t offset = 0;
    for (std::size_t n = 0; n < slices_.size(); ++n) {
      Slice& s = slices_[n];
      std::copy_n(edges_.begin() + s.offset, s.size, packed.begin() + offset);
      s.offset = offset;
      s.capacity = s.size + static_cast<std::uint32_t>(extra(n));
      offset += s.capacity;
    }
    edges_ = std::move(packed);
    garbage_ = 0;
  }

  void grow(NodeIndex node) {
    if (2 * garbage_ > edges_.size()) relayout([](std::size_t) { return 0u; });  // growth left too many gaps
    Slice& s = slices_[node];
    const std::uint32_t capacity = std::max<std::uint32_t>(2, 2 * s.capacity);
    const auto offset = static_cast<std::uint32_t>(edges_.size());
    edges_.resize(edges_.size() + capacity);
    std::copy_n(edges_.begin() + s.offset, s.size, edges_.begin() + offset);
    garbage_ += s.capacity;
    s.offset = offset;
    s.capacity = capacity;
  }

  std::vector<NodeRef> edges_;
  std::vector<Slice> slices_;
  std::size_t garbage_ = 0;  // edges_ slots no slice uses any more
};

}  // namespace engine
