// SiteTable: the site records (sites.db, by site fingerprint), with a
// write-through cache and the dirty set of the current write transaction
// (docs/design.md, "Storage's parts").
//
// Every verb reads its URL's site and most change it, and a pass's
// commands (a MADD's links) mostly share a few sites. So Store() only
// buffers the record in the dirty set; WriteDirty() writes each dirty site
// once, when the transaction is about to commit. Load() answers from the
// dirty set, then from the cache, then from sites.db. The cache holds
// records as committed: a record enters it only once written, and the
// caller empties it (ClearCache) when a transaction aborts. Both are
// bounded: the cache is emptied when it holds kCacheMax records.
//
// Owned by FrontierImpl, which binds the cursor to a write transaction
// (Bind .. CloseCursor) and swaps db() and the cache (SwapCache) with a
// parked crawl's when switching crawls. Loop thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>

#include "storage/bdb.h"
#include "storage/records.h"
#include "storage/txn_cursor.h"
#include "util/status.h"

namespace frontier {

class SiteTable {
 public:
  static constexpr size_t kCacheMax = size_t{1} << 16;
  using Cache = std::unordered_map<uint64_t, SiteRecord>;

  // The database itself: opened, closed and swapped by FrontierImpl, and
  // scanned by SITE LIST, TopSites and the start.
  bdb::Database& db() { return db_; }
  void Bind(DbTxn* txn) { cursor_.Bind(txn); }
  Status CloseCursor() { return cursor_.Close(); }

  // The site's record as the current transaction left it, read inside `t`
  // (may be null) if neither buffered nor cached. NotFound if it has none,
  // Corruption if its bytes do not decode.
  Status Load(DbTxn* t, uint64_t site_fp, SiteRecord* rec);
  // Buffers `rec` as the site's record; WriteDirty() writes it.
  void Store(uint64_t site_fp, const SiteRecord& rec) { dirty_[site_fp] = rec; }
  bool IsDirty(uint64_t site_fp) const { return dirty_.contains(site_fp); }

  // Called on each buffered record just before it is written, to set what
  // is derived from the whole transaction (its stored head).
  using Complete = std::function<Status(uint64_t site_fp, SiteRecord* rec)>;
  // Writes every buffered record inside `t` (not null), after
  // `complete`, and empties the buffer. Only if all were written do they
  // enter the cache; on an error the caller aborts `t`.
  Status WriteDirty(DbTxn* t, const Complete& complete);
  // Forgets the buffered records (the transaction ends without them).
  void DropDirty();

  // The site is deleted: forgets its buffered and cached record.
  void Forget(uint64_t site_fp) {
    dirty_.erase(site_fp);
    cache_.erase(site_fp);
  }
  // Caches `rec`, read from sites.db (the start caches the largest sites).
  void Remember(uint64_t site_fp, const SiteRecord& rec) {
    CacheSlot(site_fp) = rec;
  }
  void Remember(uint64_t site_fp, SiteRecord&& rec) {
    CacheSlot(site_fp) = std::move(rec);
  }
  // Empties the cache: after an aborted transaction, or a rebuild.
  void ClearCache() { cache_.clear(); }
  // The cached records: the sites the crawl works on (TopSites, the
  // dashboard's largest sites).
  const Cache& cached() const { return cache_; }
  void SwapCache(Cache* other) { cache_.swap(*other); }

 private:
  // The cache's entry for `site_fp`, made room for.
  SiteRecord& CacheSlot(uint64_t site_fp) {
    if (cache_.size() >= kCacheMax) cache_.clear();
    return cache_[site_fp];
  }

  bdb::Database db_;
  TxnCursor cursor_;
  Cache cache_;
  Cache dirty_;
  std::string buf_;  // reused to encode the records written
};

}  // namespace frontier
