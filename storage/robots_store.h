// RobotsStore: the robots.txt state of every origin the frontier met
// (policy.db, PolicyRecord by origin fingerprint), shared by every crawl,
// with a write-through cache (docs/robots.md; docs/design.md, "Storage's
// parts").
//
// POP reads the record of its head's origin, so records are cached by
// origin: written through by Store(), bounded (emptied when it holds
// kCacheMax records). The cache may hold a write of a transaction that
// then aborts, so the caller empties it (ClearCache) on every abort.
//
// Owned by FrontierImpl; what a record means (fresh rules, back-off,
// re-checks) is frontier_robots.cc's. Loop thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "storage/bdb.h"
#include "storage/policy_records.h"
#include "util/status.h"

namespace frontier {

class RobotsStore {
 public:
  static constexpr size_t kCacheMax = size_t{1} << 16;

  // The database itself: opened and closed by FrontierImpl, scanned by
  // the re-checks of older versions' records.
  bdb::Database& db() { return db_; }

  // The origin's record, read inside `t` (may be null) unless cached.
  // NotFound if it has none, Corruption if its bytes do not decode.
  Status Load(DbTxn* t, uint64_t origin_fp, PolicyRecord* rec);
  // Load(), or a new record of `origin` (state unknown) if it has none.
  Status LoadOrNew(DbTxn* t, std::string_view origin, uint64_t origin_fp,
                   PolicyRecord* rec);
  // Writes `rec` as the origin's record inside `t`, and caches it.
  Status Store(DbTxn* t, uint64_t origin_fp, const PolicyRecord& rec);
  // Deletes the origin's record inside `t`; OK if it had none.
  Status Delete(DbTxn* t, uint64_t origin_fp);
  // Empties the cache: after an aborted transaction, or a rebuild.
  void ClearCache() { cache_.clear(); }

 private:
  void Remember(uint64_t origin_fp, const PolicyRecord& rec);

  bdb::Database db_;
  std::unordered_map<uint64_t, PolicyRecord> cache_;
};

}  // namespace frontier
