// SiteQueues: Q, every site's queue of URLs waiting to be handed out
// (queue.db, keyed by site and QueuePos), and the heads of those queues
// as the current write transaction changed them (docs/design.md,
// "Storage's parts").
//
// The scheduler (SiteScheduler) tracks each ready site's head, the first
// key of its queue. A transaction that enqueues or dequeues notes the new
// head here, or that it is unknown now (the head was dequeued and the next
// one not read); a site not noted keeps the head the scheduler tracks. So
// only the POP of a site's head costs a Q seek, and usually not even that:
// the dequeue steps its own cursor to the successor.
//
// The queue knows positions, not URLs: the caller derives a URL's
// position (FrontierImpl::PosOf, by the queue order) and keeps the site's
// count of queued URLs. Owned by FrontierImpl, which binds the cursor to
// a write transaction (Bind .. CloseCursor) and empties the head changes
// when the transaction ends (ResetHeadChanges). `sched` must outlive it;
// switching crawls swaps db() and the scheduler's contents. Loop thread
// only.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "storage/bdb.h"
#include "storage/records.h"
#include "storage/site_scheduler.h"
#include "storage/txn_cursor.h"
#include "util/status.h"

namespace frontier {

class SiteQueues {
 public:
  explicit SiteQueues(const SiteScheduler* sched) : sched_(sched) {}

  // The database itself (opened, closed and swapped by FrontierImpl).
  bdb::Database& db() { return db_; }
  void Bind(DbTxn* txn) { cursor_.Bind(txn); }
  Status CloseCursor() { return cursor_.Close(); }

  // Puts `pos` in the queue of `site_fp`, which held `queued` URLs before,
  // and notes the head it makes.
  Status Put(DbTxn* t, uint64_t site_fp, const QueuePos& pos, uint64_t queued);
  // Deletes `pos` from the queue of `site_fp`, which holds `queued_after`
  // URLs after it. NotFound if it was not there. When `pos` was the head,
  // the next key (read with the same cursor) is noted as the new one.
  Status Remove(DbTxn* t, uint64_t site_fp, const QueuePos& pos,
                uint64_t queued_after);

  // The site's head as this transaction knows it: nullopt if unknown (or
  // the site has no queued URL).
  std::optional<QueuePos> KnownHead(uint64_t site_fp) const {
    if (auto it = changes_.find(site_fp); it != changes_.end()) {
      return it->second;
    }
    return sched_->HeadOf(site_fp);
  }
  // The first key of the site's queue, read from Q inside `t` (may be
  // null); nullopt if the site has none.
  StatusOr<std::optional<QueuePos>> ReadHead(DbTxn* t, uint64_t site_fp);
  // KnownHead(), or else ReadHead() noted as the known head.
  StatusOr<std::optional<QueuePos>> Head(DbTxn* t, uint64_t site_fp);
  // The site has no queue any more (its last URL left, or it is deleted).
  void ForgetHead(uint64_t site_fp) { changes_.erase(site_fp); }
  // The heads this transaction changed, by site: the new head, or nullopt
  // when it must be read from Q.
  using HeadChanges = std::unordered_map<uint64_t, std::optional<QueuePos>>;
  const HeadChanges& head_changes() const { return changes_; }
  // The transaction ended: the scheduler holds the heads now (or, after
  // an abort, re-reads them).
  void ResetHeadChanges();

  // The start's reader of the first key of each site, sites asked in
  // ascending order (FrontierImpl::PlaceEverySite): a bulk scan of Q
  // started at a small site's first key reads the next sites' keys with
  // it. Open it inside the start's transaction; it closes itself when
  // destroyed, which must happen before that transaction ends.
  class HeadWalk {
   public:
    Status Open(SiteQueues* queues, DbTxn* t);

   private:
    friend class SiteQueues;
    static constexpr size_t kBufferBytes = 16 << 10;
    bdb::BulkScan scan_{kBufferBytes};
    bool active_ = false;  // scan_ stands at or before the next site's keys
    bool peeked_ = false;  // a record read and not yet passed: peek_*
    bool ended_ = false;   // scan_ reached the end of queue.db
    uint64_t peek_site_ = 0;
    QueuePos peek_pos_;
  };
  // ReadHead(t, site_fp), the same answer, for a walk in site order:
  // `queued` is the site's count of queued URLs. A site with few is read
  // from the walk's bulk scan, stepping past the sites before it; a site
  // with many is searched for, as ReadHead does.
  StatusOr<std::optional<QueuePos>> NextHead(DbTxn* t, uint64_t site_fp,
                                             uint64_t queued, HeadWalk* walk);

 private:
  bdb::Database db_;
  TxnCursor cursor_;
  const SiteScheduler* sched_;
  HeadChanges changes_;
};

}  // namespace frontier
