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
// Journal mode (EnableJournal; single node, one crawl): WriteDirty()
// appends the dirty records to the site journal (storage/journal.h)
// instead of writing them; once the transaction commits (Committed()) they
// are pending: Load() answers from them, and WriteBack() writes the oldest
// ones to sites.db later, in bounded slices, moving the replay point
// (meta.db "journal_from") in the same transaction. Invariant: every
// pending site's newest committed record is in a journal record at or
// after the stored replay point, so replaying from there gives sites.db
// plus the pending records. At most kPendingMax sites are pending: a
// transaction that would pass that writes kForcedSlice of the oldest back.
//
// Owned by FrontierImpl, which binds the cursor to a write transaction
// (Bind .. CloseCursor) and swaps db() and the cache (SwapCache) with a
// parked crawl's when switching crawls. Loop thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "storage/bdb.h"
#include "storage/journal.h"
#include "storage/records.h"
#include "storage/txn_cursor.h"
#include "util/status.h"

namespace frontier {

class SiteTable {
 public:
  static constexpr size_t kCacheMax = size_t{1} << 16;
  static constexpr size_t kPendingMax = size_t{1} << 16;
  static constexpr size_t kForcedSlice = 4096;
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
  void Store(uint64_t site_fp, const SiteRecord& rec) {
    dirty_[site_fp] = rec;
    erased_.erase(site_fp);
  }
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

  // Deletes the site's sites.db record inside `t`. In journal mode one
  // that is only pending (never written back) is not there: OK.
  Status Erase(DbTxn* t, uint64_t site_fp) {
    Status s = db_.Delete(t, EncodeSiteKey(site_fp));
    return s.IsNotFound() && journal_on() ? Status::OK() : s;
  }
  // The site is deleted (Erase() in the same transaction): forgets its buffered and cached record; in
  // journal mode the erasure is journaled too.
  void Forget(uint64_t site_fp) {
    dirty_.erase(site_fp);
    cache_.erase(site_fp);
    if (journal_on()) erased_.insert(site_fp);
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

  // --- Journal mode ---
  // Turns journal mode on, the replay point kept in `meta` (meta.db). Call
  // with nothing pending (after the replay at open).
  void EnableJournal(DbEnv* env, bdb::Database* meta) {
    env_ = env;
    meta_ = meta;
  }
  // Another table journaled in the same records (journal::Part: the
  // LeaseTable); its entries join each transaction's record, its Oldest()
  // holds the replay point back, and it hears how each transaction ended.
  void SetPart(journal::Part* part) { part_ = part; }
  // Turns it off and forgets everything pending and the replay point:
  // after WriteBack(all), or when the environment closes (the next open
  // replays the log).
  void DisableJournal();
  bool journal_on() const { return env_ != nullptr; }
  size_t pending() const { return pending_.size(); }
  // The replay point stored by the last committed WriteBack, if any: the
  // log files from its file on must be kept.
  std::optional<DB_LSN> replay_from() const { return from_; }
  // Writes up to `max` of the oldest pending records (all of them, and the
  // transaction's own journaled ones, if `all`) to sites.db inside `t`
  // and stores the new replay point; in effect once Committed().
  Status WriteBack(DbTxn* t, size_t max, bool all);
  // The transaction ended: its journaled records become pending and what
  // it wrote back leaves them (Committed), or both are forgotten.
  void Committed();
  void Aborted();
  // Replay at open: `rec` (null: erased) becomes the site's pending record.
  void Replayed(uint64_t site_fp, const SiteRecord* rec);
  // The cached records: the sites the crawl works on (TopSites, the
  // dashboard's largest sites).
  const Cache& cached() const { return cache_; }
  // Each record held in memory, once per site: the pending ones (journal
  // mode; newer than the cache's), then the cached ones.
  template <typename F>
  void ForEachInMemory(F&& f) const {
    for (const auto& [site_fp, p] : pending_) {
      if (!p.erased) f(site_fp, p.rec);
    }
    for (const auto& [site_fp, rec] : cache_) {
      if (!pending_.contains(site_fp)) f(site_fp, rec);
    }
  }
  void SwapCache(Cache* other) { cache_.swap(*other); }

  // --- Reading sites.db as if written back (SITE LIST, TopSites) ---
  // Read-only: a scan of sites.db overlays these instead of writing the
  // journal back first (FrontierImpl::SettleSites). Call with nothing
  // buffered (after WriteDirty), inside or outside a transaction.
  //
  // The record a scan of sites.db would find for `site_fp` once every
  // pending record (and the open transaction's journaled ones) were
  // written back: the transaction's, else the pending one. Null if
  // sites.db's own record is current; `*erased` tells a site that would
  // have none.
  const SiteRecord* Unsettled(uint64_t site_fp, bool* erased) const;
  // Every site Unsettled() answers for whose fingerprint is at least
  // `from`, in no order.
  std::vector<uint64_t> UnsettledFrom(uint64_t from) const;

 private:
  // The cache's entry for `site_fp`, made room for.
  SiteRecord& CacheSlot(uint64_t site_fp) {
    if (cache_.size() >= kCacheMax) cache_.clear();
    return cache_[site_fp];
  }

  // Journals the dirty records inside `t` (journal mode's WriteDirty).
  Status JournalDirty(DbTxn* t, const Complete& complete);
  // Forgets what the open transaction staged (Committed and Aborted).
  void ResetTxn();

  // A committed record not yet in sites.db: its record (or erasure) and
  // the first journal record since its last write-back.
  struct Pending {
    SiteRecord rec;
    bool erased = false;
    DB_LSN first{};
  };
  // What the open transaction journaled and wrote back.
  struct Staged {
    SiteRecord rec;
    bool erased = false;
    DB_LSN lsn{};
    bool written = false;
  };

  bdb::Database db_;
  TxnCursor cursor_;
  journal::Part* part_ = nullptr;
  DbEnv* env_ = nullptr;          // journal mode if set
  bdb::Database* meta_ = nullptr;
  std::unordered_map<uint64_t, Pending> pending_;
  // (first, site) in journal order; an entry whose site's `first` differs
  // is stale (skipped).
  std::deque<std::pair<DB_LSN, uint64_t>> order_;
  std::unordered_map<uint64_t, Staged> staged_;
  std::vector<uint64_t> written_;  // pending sites written back in txn
  size_t consumed_ = 0;            // order_ entries the txn's slices took
  std::optional<DB_LSN> from_, staged_from_;  // replay point: stored, txn's
  std::unordered_set<uint64_t> erased_;  // Forget()s of the transaction
  std::string payload_;
  Cache cache_;
  Cache dirty_;
  std::string buf_;  // reused to encode the records written
};

}  // namespace frontier
