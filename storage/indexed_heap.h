// IndexedHeap: an 8-ary min-heap of 32-bit ids (the scheduler's site slots
// or partition numbers) whose keys live outside the heap, in the caller's
// arrays. The caller also keeps each id's position in the heap, so that an
// id can be erased, or moved after its key changed, in O(log n) without a
// search (the "intrusive" heap: 4 bytes per id here, the rest in the
// caller's record).
//
// Each operation takes an `order` with
//   bool Less(uint32_t a, uint32_t b) const;      // a's key before b's
//   void SetPos(uint32_t id, uint32_t pos) const; // remember id's position
// SetPos is called for every id that moves, and with kNotInHeap for an id
// that leaves. Keys must be unique (ties broken by the caller), so that
// top() is the same whatever the order of operations was.
//
// 8-ary rather than binary: a third of the levels, and a sift-down reads
// the eight children's keys independently of each other (their ids are one
// cache line of ids_), so their cache misses overlap; with 1M sites the
// scheduler bench's POP cycle took 4.4/2.9/2.0 us with 2/4/8 children
// (noisy machine; docs/performance.md, "The compact scheduler").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace frontier {

class IndexedHeap {
 public:
  static constexpr uint32_t kNotInHeap = UINT32_MAX;

  bool empty() const { return ids_.empty(); }
  size_t size() const { return ids_.size(); }
  // The id with the smallest key. Precondition: !empty().
  uint32_t top() const { return ids_[0]; }

  template <typename Order>
  void Push(uint32_t id, const Order& order) {
    ids_.push_back(id);
    SiftUp(static_cast<uint32_t>(ids_.size() - 1), id, order);
  }

  // Removes the id at `pos` (as given to SetPos). Precondition: pos < size().
  template <typename Order>
  void Erase(uint32_t pos, const Order& order) {
    order.SetPos(ids_[pos], kNotInHeap);
    const uint32_t last = ids_.back();
    ids_.pop_back();
    if (pos < ids_.size()) Place(pos, last, order);
  }

  // Restores the order after the key of the id at `pos` changed.
  template <typename Order>
  void Fix(uint32_t pos, const Order& order) {
    Place(pos, ids_[pos], order);
  }

  // Forgets every id and frees the memory (SetPos is not called).
  void Clear() { std::vector<uint32_t>().swap(ids_); }

 private:
  static constexpr uint32_t kArity = 8;

  // Puts `id` at the hole `pos`, moving it up or down as its key says.
  template <typename Order>
  void Place(uint32_t pos, uint32_t id, const Order& order) {
    if (pos > 0 && order.Less(id, ids_[(pos - 1) / kArity])) {
      SiftUp(pos, id, order);
    } else {
      SiftDown(pos, id, order);
    }
  }

  template <typename Order>
  void SiftUp(uint32_t pos, uint32_t id, const Order& order) {
    while (pos > 0) {
      const uint32_t parent = (pos - 1) / kArity;
      if (!order.Less(id, ids_[parent])) break;
      ids_[pos] = ids_[parent];
      order.SetPos(ids_[pos], pos);
      pos = parent;
    }
    ids_[pos] = id;
    order.SetPos(id, pos);
  }

  template <typename Order>
  void SiftDown(uint32_t pos, uint32_t id, const Order& order) {
    const size_t n = ids_.size();
    while (true) {
      const size_t first = size_t{pos} * kArity + 1;
      if (first >= n) break;
      size_t best = first;
      const size_t end = std::min(first + kArity, n);
      for (size_t c = first + 1; c < end; ++c) {
        if (order.Less(ids_[c], ids_[best])) best = c;
      }
      if (!order.Less(ids_[best], id)) break;
      ids_[pos] = ids_[best];
      order.SetPos(ids_[pos], pos);
      pos = static_cast<uint32_t>(best);
    }
    ids_[pos] = id;
    order.SetPos(id, pos);
  }

  std::vector<uint32_t> ids_;
};

}  // namespace frontier
