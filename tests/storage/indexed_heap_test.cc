// IndexedHeap: after any mix of pushes, erases from the middle and key
// changes, top() is the smallest (key, id) and every id's remembered
// position is where it is.
#include "storage/indexed_heap.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace frontier {
namespace {

struct Keys {
  std::vector<uint64_t> key;
  std::vector<uint32_t> pos;
};

struct KeyOrder {
  Keys* keys;
  bool Less(uint32_t a, uint32_t b) const {
    return std::pair(keys->key[a], a) < std::pair(keys->key[b], b);
  }
  void SetPos(uint32_t id, uint32_t pos) const { keys->pos[id] = pos; }
};

TEST(IndexedHeapTest, MatchesAnOrderedSetUnderRandomChanges) {
  constexpr uint32_t kIds = 500;
  std::mt19937_64 rng(11);
  Keys keys{std::vector<uint64_t>(kIds), std::vector<uint32_t>(kIds)};
  for (uint32_t& p : keys.pos) p = IndexedHeap::kNotInHeap;
  const KeyOrder order{&keys};
  IndexedHeap heap;
  std::set<std::pair<uint64_t, uint32_t>> model;
  for (int step = 0; step < 50000; ++step) {
    const uint32_t id = static_cast<uint32_t>(rng() % kIds);
    const bool in = keys.pos[id] != IndexedHeap::kNotInHeap;
    const uint64_t key = rng() % 50;  // many equal keys: ties by id
    if (!in) {
      keys.key[id] = key;
      heap.Push(id, order);
      model.insert({key, id});
    } else if (rng() % 2 == 0) {
      model.erase({keys.key[id], id});
      heap.Erase(keys.pos[id], order);
      ASSERT_EQ(keys.pos[id], IndexedHeap::kNotInHeap);
    } else {
      model.erase({keys.key[id], id});
      keys.key[id] = key;
      model.insert({key, id});
      heap.Fix(keys.pos[id], order);
    }
    ASSERT_EQ(heap.size(), model.size());
    if (!model.empty()) {
      ASSERT_EQ(heap.top(), model.begin()->second) << step;
    }
  }
  // Drained by its top, the heap gives the model's order.
  while (!model.empty()) {
    ASSERT_EQ(heap.top(), model.begin()->second);
    ASSERT_EQ(keys.pos[heap.top()], 0u);
    heap.Erase(0, order);
    model.erase(model.begin());
  }
  EXPECT_TRUE(heap.empty());
}

}  // namespace
}  // namespace frontier
