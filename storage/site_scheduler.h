// SiteScheduler: the in-memory index of which sites may be popped from,
// kept per partition (partition/partition_map.h).
//
// Tracked are the sites with queued URLs or leases. A site with queued
// URLs is
//   ready    - under its lease cap and past its next-allowed time; kept in
//              its partition's set ordered by the Q position of the site's
//              first URL, so the first ready entry of a partition is the
//              URL POP ... PARTITION must return;
//   waiting  - under its lease cap but its next-allowed time is ahead; kept
//              in one set ordered by that time (any partition);
//   blocked  - at its lease cap; it leaves this state only when a lease of
//              the site ends, which always calls Place() again.
// A site with leases and nothing queued is idle: tracked only for its
// partition's capacity (below). The first entries of the non-empty ready
// sets are kept in one more ordered set, so that POP from any partition is
// O(log partitions) and POP from one never looks at another's sites.
// So POP never scans a site that is not ready, and the timer's work is
// proportional to the sites whose time has come. Everything here is derived
// from the sites and queue databases and is rebuilt from them at start.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

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

  // Sets the number of partitions (>= 1) and forgets every site.
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

  // The tracked head of `site_fp`, or nullopt if it has nothing queued.
  std::optional<QueuePos> HeadOf(uint64_t site_fp) const;

  // The earliest next-allowed time of a waiting site.
  std::optional<int64_t> NextWakeMs() const;

  size_t partitions() const { return parts_.size(); }
  size_t ready_count() const { return ready_total_; }
  // Sites with queued URLs (ready, waiting or blocked).
  size_t tracked_count() const { return entries_.size() - idle_count_; }
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
  enum class Where { kReady, kWaiting, kBlocked, kIdle };
  struct Entry {
    QueuePos head;
    Where where = Where::kBlocked;
    int64_t at_ms = 0;  // next-allowed time while waiting
    uint32_t partition = 0;
    uint64_t slots_ready = 0;
    uint64_t slots_other = 0;
    uint64_t slots() const {
      return where == Where::kReady ? slots_ready : slots_other;
    }
  };
  using ReadySet = std::set<std::pair<QueuePos, uint64_t>>;
  struct Partition {
    ReadySet ready;
    uint64_t capacity = 0;
  };

  void Unlink(uint64_t site_fp, const Entry& e);
  void InsertReady(uint64_t site_fp, const Entry& e);
  // Replaces `partition`'s first ready head `from` with `to` in heads_
  // (nullopt: none). heads_ is kept only with more than one partition.
  void MoveHead(uint32_t partition, const std::optional<QueuePos>& from,
                const std::optional<QueuePos>& to);
  void EraseReady(uint64_t site_fp, const Entry& e);

  std::unordered_map<uint64_t, Entry> entries_;
  std::vector<Partition> parts_{1};
  // The first entry of each non-empty ready set, with its partition.
  std::set<std::pair<QueuePos, uint32_t>> heads_;
  std::set<std::pair<int64_t, uint64_t>> waiting_;
  size_t ready_total_ = 0;
  size_t idle_count_ = 0;
};

}  // namespace frontier
