// The subscription edges of one node: a vector that keeps up to kInline
// edges inside itself. Most nodes have one to three edges each way, so a
// graph of hundreds of thousands of nodes is built without an allocation
// per node; a node with a large fan-out (a curve, a calendar) spills to the
// heap.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>

#include "engine/node_ref.h"

namespace engine {

class EdgeList {
 public:
  static constexpr std::uint32_t kInline = 3;

  EdgeList() = default;
  EdgeList(EdgeList&& other) noexcept { *this = std::move(other); }
  EdgeList& operator=(EdgeList&& other) noexcept {
    size_ = other.size_;
    capacity_ = other.capacity_;
    heap_ = std::move(other.heap_);
    std::copy_n(other.inline_, kInline, inline_);
    other.size_ = 0;
    other.capacity_ = kInline;
    return *this;
  }

  void push_back(NodeRef edge) {
    if (size_ == capacity_) grow();
    data()[size_++] = edge;
  }

  // Removes the first edge equal to `edge`, keeping the order of the rest.
  void erase_one(NodeRef edge) {
    NodeRef* begin = data();
    NodeRef* end = begin + size_;
    NodeRef* it = std::find(begin, end, edge);
    if (it == end) return;
    std::copy(it + 1, end, it);
    --size_;
  }

  std::span<const NodeRef> view() const { return {data(), size_}; }

 private:
  NodeRef* data() { return heap_ ? heap_.get() : inline_; }
  const NodeRef* data() const { return heap_ ? heap_.get() : inline_; }

  void grow() {
    const std::uint32_t capacity = capacity_ * 2;
    auto bigger = std::make_unique_for_overwrite<NodeRef[]>(capacity);
    std::copy_n(data(), size_, bigger.get());
    heap_ = std::move(bigger);
    capacity_ = capacity;
  }

  std::uint32_t size_ = 0;
  std::uint32_t capacity_ = kInline;
  NodeRef inline_[kInline];
  std::unique_ptr<NodeRef[]> heap_;
};

}  // namespace engine
