// SiteScheduler: the in-memory index of which sites may be popped from.
//
// Only sites with queued URLs are tracked. A tracked site is
//   ready    - under its lease cap and past its next-allowed time; kept in
//              a set ordered by the Q position of the site's first URL, so
//              the first ready entry is the URL POP must return;
//   waiting  - under its lease cap but its next-allowed time is ahead; kept
//              in a set ordered by that time;
//   blocked  - at its lease cap; it leaves this state only when a lease of
//              the site ends, which always calls Place() again.
// So POP never scans a site that is not ready, and the timer's work is
// proportional to the sites whose time has come. Everything here is derived
// from the sites and queue databases and is rebuilt from them at start.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "storage/records.h"

namespace frontier {

class SiteScheduler {
 public:
  // Where a site stands; `head` is its first queued URL, if any.
  struct Placement {
    std::optional<QueuePos> head;  // nullopt: nothing queued (untracked)
    bool at_lease_cap = false;
    int64_t next_allowed_ms = 0;
  };

  // (Re)places `site_fp` according to `p` at time `now_ms`.
  void Place(uint64_t site_fp, const Placement& p, int64_t now_ms);
  void Remove(uint64_t site_fp);
  void Clear();

  // Moves waiting sites whose time has come to ready.
  void Promote(int64_t now_ms);

  // The ready site whose head is first in Q order, with that head.
  std::optional<std::pair<uint64_t, QueuePos>> FirstReady() const;

  // The tracked head of `site_fp`, or nullopt if the site is not tracked.
  std::optional<QueuePos> HeadOf(uint64_t site_fp) const;

  // The earliest next-allowed time of a waiting site.
  std::optional<int64_t> NextWakeMs() const;

  size_t ready_count() const { return ready_.size(); }
  size_t tracked_count() const { return entries_.size(); }
  size_t waiting_count() const { return waiting_.size(); }

 private:
  enum class Where { kReady, kWaiting, kBlocked };
  struct Entry {
    QueuePos head;
    Where where = Where::kBlocked;
    int64_t at_ms = 0;  // next-allowed time while waiting
  };
  void Unlink(uint64_t site_fp, const Entry& e);

  std::unordered_map<uint64_t, Entry> entries_;
  std::set<std::pair<QueuePos, uint64_t>> ready_;
  std::set<std::pair<int64_t, uint64_t>> waiting_;
};

}  // namespace frontier
