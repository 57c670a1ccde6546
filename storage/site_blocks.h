// SiteBlocks: which sites are blocked (SITE BLOCK, back-off) and until
// when, in memory, so that STATS can report blocked_sites without reading
// the sites database.
//
// The blocks themselves live in the site records (block_until_ms) and the
// scheduler honours them through the site's placement; this index only
// counts them. Like the scheduler it is derived data: rebuilt from the
// site records at start, and corrected from the disk when a transaction
// aborts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <unordered_map>
#include <utility>

namespace frontier {

class SiteBlocks {
 public:
  // Records that `site_fp` is blocked until `until_ms`. A time at or
  // before the last Expire() (0 in particular) means "not blocked".
  void Set(uint64_t site_fp, int64_t until_ms);
  void Clear();

  // Forgets the blocks that end at or before `now_ms`. Times only move
  // forward: an earlier `now_ms` than a previous call's is ignored.
  void Expire(int64_t now_ms);

  // Sites blocked as of the last Expire().
  size_t count() const { return until_.size(); }

 private:
  int64_t now_ms_ = 0;  // the last Expire()
  std::unordered_map<uint64_t, int64_t> until_;
  std::set<std::pair<int64_t, uint64_t>> by_end_;
};

}  // namespace frontier
