// The subscription edges of one node type in one direction, all in one
// contiguous array: node i's edges are a slice of it. A slice that must
// grow moves to the end of the array with twice the room, and the array is
// compacted (slices laid out again in node order, no gaps) when moved-out
// space passes half of it. A graph of hundreds of thousands of nodes thus
// has no allocation per node; built by reserve(), append() and settle(), its
// slices lie in node order, so walking the edges of consecutive nodes reads
// memory in order. The arena also knows which slices are runs: edges to
// consecutive nodes of one type (a book's members, laid out in member
// order), which a reader can take as a range rather than edge by edge, and
// which are increasing (by type, then index: a curve's bonds, then its
// repos), whose runs a reader can find without reading every edge.
// Owns its edges and flags; part of a Graph and used as the graph is
// (graph.h): changed only by the graph's one thread, its const members read
// concurrently only while nothing changes it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "base/huge_pages.h"
#include "engine/bitmap.h"
#include "engine/node_ref.h"

namespace engine {

class EdgeArena {
 public:
  // Gives nodes [size(), count) empty slices.
  void resize(std::size_t count) {
    const std::size_t old = slices_.size();
    slices_.resize(count);
    runs_.resize(count);
    increasing_.resize(count);
    for (std::size_t n = old; n < count; ++n) {
      runs_.set(n);  // an empty slice is a run, and increasing
      increasing_.set(n);
    }
  }
  std::size_t size() const { return slices_.size(); }

  std::span<const NodeRef> view(NodeIndex node) const {
    const Slice& s = slices_[node];
    return {edges_.data() + s.offset, s.size};
  }

  // Hints that view(node) will soon be read: its slice entry, then (once
  // that is cached) its edges. A walk of scattered nodes issues these a few
  // nodes ahead, so that their cache misses overlap.
  void prefetch_slice(NodeIndex node) const { __builtin_prefetch(&slices_[node]); }
  void prefetch_edges(NodeIndex node) const { __builtin_prefetch(edges_.data() + slices_[node].offset); }

  // Whether node's edges go to consecutive nodes of one type, in order
  // (view(node)[k] is view(node)[0] + k); true for none or one edge.
  bool run(NodeIndex node) const { return runs_.test(node); }
  // Whether node's edges are known to be strictly increasing by (type,
  // index): exactly after settle(); then true while each new one is
  // greater, and again once at most one is left (else false, even if they are).
  bool increasing(NodeIndex node) const { return increasing_.test(node); }

  // Calls fn(first, count) for each run of node's increasing slice: the
  // edges first, first + 1, ..., of first.type. Reads O(runs x log) edges.
  template <class Fn>
  void for_each_run(NodeIndex node, Fn fn) const {
    const std::span<const NodeRef> e = view(node);
    for (std::size_t i = 0; i < e.size();) {
      // In an increasing slice, e[j] continues e[i]'s run iff it has its
      // type and lies j - i further: gallop to the run's end.
      auto continues = [&](std::size_t j) { return e[j].type == e[i].type && e[j].index - e[i].index == j - i; };
      std::size_t in = i, out = e.size();  // e[in] continues the run; e[out] does not (or is past the end)
      for (std::size_t step = 1; in + step < out; step *= 2) {
        if (!continues(in + step)) {
          out = in + step;
          break;
        }
        in += step;
      }
      while (out - in > 1) {
        const std::size_t mid = in + (out - in) / 2;
        (continues(mid) ? in : out) = mid;
      }
      fn(e[i], out - i);
      i = out;
    }
  }
  // Edges in all slices, and in slices that are not runs.
  std::size_t edges() const { return edge_count_; }
  std::size_t loose_edges() const { return loose_count_; }

  void push_back(NodeIndex node, NodeRef edge) {
    Slice& s = slices_[node];
    if (s.size > 0) {
      const NodeRef last = edges_[s.offset + s.size - 1];
      if (runs_.test(node) && !next_in_run(last, edge)) {
        runs_.reset(node);
        loose_count_ += s.size;
      }
      if (!(last < edge)) increasing_.reset(node);
    }
    ++edge_count_;
    if (!runs_.test(node)) ++loose_count_;
    if (s.size == s.capacity) grow(node);
    edges_[slices_[node].offset + slices_[node].size++] = edge;
  }

  // A bulk build, in three steps with nothing between them: reserve(extra)
  // lays every slice out again in node order with room for extra[node]
  // more edges; append(node, edge) adds exactly those, with no growth and
  // no flag kept per edge; settle() works each slice's run and order flags
  // and the counts out once from its edges.
  void reserve(std::span<const std::uint32_t> extra) { relayout([&](std::size_t n) { return extra[n]; }); }
  void append(NodeIndex node, NodeRef edge) {
    Slice& s = slices_[node];
    edges_[s.offset + s.size++] = edge;
  }
  void settle() {
    edge_count_ = loose_count_ = 0;
    for (NodeIndex n = 0; n < slices_.size(); ++n) {
      const std::span<const NodeRef> e = view(n);
      bool run = true, increasing = true;
      for (std::size_t k = 1; k < e.size(); ++k) {
        run = run && next_in_run(e[k - 1], e[k]);
        increasing = increasing && e[k - 1] < e[k];
      }
      run ? runs_.set(n) : runs_.reset(n);
      increasing ? increasing_.set(n) : increasing_.reset(n);
      edge_count_ += e.size();
      if (!run) loose_count_ += e.size();
    }
  }

  // Removes the first edge equal to `edge`, keeping the order of the rest.
  void erase_one(NodeIndex node, NodeRef edge) {
    Slice& s = slices_[node];
    const auto begin = edges_.begin() + s.offset, end = begin + s.size;
    const auto it = std::find(begin, end, edge);
    if (it == end) return;
    if (runs_.test(node) && it != begin && it + 1 != end) {  // a gap in the middle
      runs_.reset(node);
      loose_count_ += s.size;
    }
    std::copy(it + 1, end, it);
    --s.size;
    --edge_count_;
    if (s.size <= 1) increasing_.set(node);
    if (!runs_.test(node)) {
      --loose_count_;
      if (s.size <= 1) {
        runs_.set(node);
        loose_count_ -= s.size;
      }
    }
  }

 private:
  // Whether `edge`, after `last`, keeps a slice a run.
  static bool next_in_run(NodeRef last, NodeRef edge) { return edge.type == last.type && edge.index == last.index + 1; }

  struct Slice {
    std::uint32_t offset = 0, size = 0, capacity = 0;
  };

  // Lays every slice out again in node order, with room for extra(node)
  // more edges.
  template <class Extra>
  void relayout(Extra extra) {
    std::size_t total = 0;
    for (std::size_t n = 0; n < slices_.size(); ++n) total += slices_[n].size + extra(n);
    base::HugeVector<NodeRef> packed(total);
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

  base::HugeVector<NodeRef> edges_;
  base::HugeVector<Slice> slices_;
  Bitmap runs_;        // per node: its slice is a run
  Bitmap increasing_;  // per node: its slice is increasing (erasing keeps it so)
  std::size_t edge_count_ = 0, loose_count_ = 0;
  std::size_t garbage_ = 0;  // edges_ slots no slice uses any more
};

}  // namespace engine
