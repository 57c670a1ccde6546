// SiteScheduler: the in-memory index of which sites may be popped from,
// kept per partition (partition/partition_map.h).
//
// Tracked are the sites with queued URLs or leases. A site with queued
// URLs is
//   ready    - under its lease cap and past its next-allowed time; kept in
//              its partition's ready heap ordered by (the Q position of the
//              site's first URL, site), so the first ready entry of a
//              partition is the URL POP ... PARTITION must return;
//   waiting  - under its lease cap but its next-allowed time is ahead; kept
//              in one heap ordered by (that time, site), any partition;
//   blocked  - at its lease cap; it leaves this state only when a lease of
//              the site ends, which always calls Place() again.
// A site with leases and nothing queued is idle: tracked only for its
// partition's capacity (below). The partitions with a ready site are kept
// in one more heap, by (their first ready head, partition), so that POP
// from any partition is O(log partitions) and POP from one never looks at
// another's sites. So POP never scans a site that is not ready, and the
// timer's work is proportional to the sites whose time has come.
//
// The layout is compact (docs/design.md, "Per-site state"): each tracked
// site is a 56-byte slot in one array, found through a chained hash index
// of 4-byte slot numbers; the heaps (indexed_heap.h) hold slot numbers and
// each slot remembers its heap position, so a site moves in O(log n)
// without a search. Freed slots are reused. About 70 bytes a site in all,
// against about 180 for node-based containers.
// Everything here is derived from the sites and queue databases and is
// rebuilt from them at start.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "storage/indexed_heap.h"
#include "storage/records.h"

namespace frontier {

class SiteScheduler {
 public:
  // Where a site stands; `head` is its first queued URL, if any.
  struct Placement {
    std::optional<QueuePos> head;  // nullopt: nothing queued
    bool at_lease_cap = false;
    int64_t next_allowed_ms = 0;
    uint32_t partition = 0;  // index in the partition map
    // What the site adds to its partition's capacity: how many fetches it
    // could have running at once while ready, and while not ready (its
    // leases), each already capped by its lease cap. A site with no head
    // and slots_other == 0 is not tracked.
    uint64_t slots_ready = 0;
    uint64_t slots_other = 0;
  };

  // Sets the number of partitions (>= 1, < 2^29) and forgets every site,
  // freeing its memory.
  void Reset(size_t partitions);

  // (Re)places `site_fp` according to `p` at time `now_ms`.
  // Precondition: p.partition < partitions().
  void Place(uint64_t site_fp, const Placement& p, int64_t now_ms);
  void Remove(uint64_t site_fp);

  // Moves waiting sites whose time has come to ready.
  void Promote(int64_t now_ms);

  // The ready site whose head is first in Q order, with that head: among
  // all partitions, or within `partition` only.
  std::optional<std::pair<uint64_t, QueuePos>> FirstReady() const;
  std::optional<std::pair<uint64_t, QueuePos>> FirstReadyIn(
      size_t partition) const;

  // FirstReady() for one site: the site with its head if it is ready, else
  // nullopt.
  std::optional<std::pair<uint64_t, QueuePos>> ReadyHead(
      uint64_t site_fp) const;

  // The tracked head of `site_fp`, or nullopt if it has nothing queued.
  std::optional<QueuePos> HeadOf(uint64_t site_fp) const;

  // The earliest next-allowed time of a waiting site.
  std::optional<int64_t> NextWakeMs() const;

  size_t partitions() const { return parts_.size(); }
  size_t ready_count() const { return ready_total_; }
  // Sites with queued URLs (ready, waiting or blocked).
  size_t tracked_count() const { return live_ - idle_count_; }
  size_t waiting_count() const { return waiting_.size(); }
  size_t ready_count_in(size_t partition) const {
    return parts_[partition].ready.size();
  }
  // The partition's n: the sum of its sites' slots_ready (ready sites) and
  // slots_other (the others).
  uint64_t capacity_in(size_t partition) const {
    return parts_[partition].capacity;
  }

 private:
  // Where a slot's site stands; kFree: the slot is on the free list.
  enum class Where : uint8_t { kFree, kReady, kWaiting, kBlocked, kIdle };
  static constexpr uint32_t kNone = UINT32_MAX;
  // Capacity counts at or above this are kept in wide_slots_ (only with
  // site-max-leases 0 and over 4 billion URLs on one site).
  static constexpr uint32_t kWide = UINT32_MAX;

  // One tracked site, 56 bytes (docs/design.md, "Per-site state"). The
  // heaps hold slot numbers; the keys they order by are here, once.
  struct Slot {
    uint64_t site_fp = 0;
    // The head QueuePos, unpacked so that it packs with the rest: major,
    // minor, then h(K) (host_fp is the URL's host, not always the site).
    uint64_t head_url_fp = 0;
    uint64_t head_host_fp = 0;
    int64_t at_ms = 0;  // next-allowed time while waiting
    uint16_t head_major = 0;
    uint16_t head_minor = 0;
    // Position in its partition's ready heap or in waiting_ (kNone else).
    uint32_t heap_pos = kNone;
    // The next slot in its hash bucket's chain, or in the free list.
    uint32_t next = kNone;
    uint32_t partition_where = 0;  // partition << 3 | Where
    uint32_t slots_ready = 0;      // kWide: see wide_slots_
    uint32_t slots_other = 0;

    Where where() const { return static_cast<Where>(partition_where & 7); }
    uint32_t partition() const { return partition_where >> 3; }
    void set(uint32_t partition, Where w) {
      partition_where = partition << 3 | static_cast<uint32_t>(w);
    }
    QueuePos head() const;
    void set_head(const QueuePos& pos);
  };
  // docs/design.md gives this layout: each byte more is 1 MB per 1M sites.
  static_assert(sizeof(Slot) == 56);
  // Heap orders (indexed_heap.h): ready sites by (head, site), waiting
  // sites by (time, site), partitions by (first ready head, partition).
  struct ReadyOrder;
  struct WaitOrder;
  struct HeadsOrder;
  struct Partition {
    IndexedHeap ready;
    uint64_t capacity = 0;
    uint32_t heads_pos = kNone;  // position in heads_
  };

  // The site index: site_fp -> slot, chained through Slot::next.
  uint32_t Find(uint64_t site_fp) const;
  uint32_t Allocate(uint64_t site_fp);
  void Free(uint32_t slot);
  size_t Bucket(uint64_t site_fp) const;
  void Rehash(size_t buckets);

  uint64_t SlotsReady(uint32_t slot) const;
  uint64_t SlotsOther(uint32_t slot) const;
  uint64_t SlotsNow(uint32_t slot) const;  // by its current Where
  void SetSlots(uint32_t slot, uint64_t ready, uint64_t other);

  // Takes the slot out of its heap and its partition's capacity, and puts
  // it back in as its fields say.
  void Unlink(uint32_t slot);
  void Link(uint32_t slot);
  // Puts `partition`'s first ready head back in order in heads_ after its
  // ready heap changed. heads_ is kept only with more than one partition.
  void FixHeads(uint32_t partition);

  std::vector<Slot> slots_;
  std::vector<uint32_t> buckets_;  // first slot of each chain, or kNone
  int bucket_shift_ = 64;
  uint32_t free_head_ = kNone;
  size_t live_ = 0;  // slots in use
  std::unordered_map<uint32_t, std::pair<uint64_t, uint64_t>> wide_slots_;
  std::vector<Partition> parts_{1};
  IndexedHeap heads_;    // partitions with a ready site
  IndexedHeap waiting_;  // waiting slots, any partition
  size_t ready_total_ = 0;
  size_t idle_count_ = 0;
};

}  // namespace frontier
