// SiteQueues (site_queues.h): Q's writes with the head bookkeeping, and
// the reads of a site's head.
#include "storage/site_queues.h"

#include "storage/txn_body.h"

namespace frontier {

Status SiteQueues::Put(DbTxn* t, uint64_t site_fp, const QueuePos& pos,
                       uint64_t queued) {
  if (queued == 0) {
    changes_[site_fp] = pos;
  } else if (std::optional<QueuePos> head = KnownHead(site_fp)) {
    if (pos < *head) changes_[site_fp] = pos;
  } else {
    changes_[site_fp] = std::nullopt;  // unknown: read it later
  }
  bdb::Cursor* c = nullptr;
  Status s = cursor_.For(t, &db_, &c);
  if (!s.ok()) return s;
  return c != nullptr ? c->Put(EncodeQueueKey(site_fp, pos), "")
                      : db_.Put(t, EncodeQueueKey(site_fp, pos), "");
}

Status SiteQueues::Remove(DbTxn* t, uint64_t site_fp, const QueuePos& pos,
                          uint64_t queued_after) {
  std::optional<QueuePos> head = KnownHead(site_fp);
  const bool was_head = head && *head == pos;
  if (!head || was_head) changes_[site_fp] = std::nullopt;
  bdb::Cursor* c = nullptr;
  Status s = cursor_.For(t, &db_, &c);
  if (!s.ok()) return s;
  if (c == nullptr) return db_.Delete(t, EncodeQueueKey(site_fp, pos));
  s = c->Find(EncodeQueueKey(site_fp, pos), nullptr);
  if (s.ok()) s = c->DeleteCurrent();
  if (!s.ok() || !was_head || queued_after == 0) return s;
  // The head was the site's smallest key, so the next key, if it is the
  // same site's, is the new head: one step instead of a seek later.
  std::string next;
  Status ns = c->Next(&next, nullptr);
  uint64_t next_site = 0;
  QueuePos next_pos;
  if (ns.ok() && DecodeQueueKey(next, &next_site, &next_pos) &&
      next_site == site_fp) {
    changes_[site_fp] = next_pos;
  } else if (!ns.ok() && !ns.IsNotFound()) {
    return ns;
  }
  return Status::OK();
}

StatusOr<std::optional<QueuePos>> SiteQueues::ReadHead(DbTxn* t,
                                                       uint64_t site_fp) {
  bdb::Cursor* c = nullptr;
  Status s = cursor_.For(t, &db_, &c);
  if (!s.ok()) return s;
  bdb::Cursor own;
  if (c == nullptr) {
    s = own.Open(&db_, t);
    if (!s.ok()) return s;
    c = &own;
  }
  std::string key;
  s = c->Seek(QueueSitePrefix(site_fp), &key, nullptr);
  if (s.IsNotFound()) return std::optional<QueuePos>();
  if (!s.ok()) return s;
  uint64_t found_site = 0;
  QueuePos pos;
  if (!DecodeQueueKey(key, &found_site, &pos)) {
    return Status::Corruption("undecodable queue key");
  }
  if (found_site != site_fp) return std::optional<QueuePos>();
  return std::optional<QueuePos>(pos);
}

StatusOr<std::optional<QueuePos>> SiteQueues::Head(DbTxn* t, uint64_t site_fp) {
  if (std::optional<QueuePos> known = KnownHead(site_fp)) return known;
  StatusOr<std::optional<QueuePos>> head = ReadHead(t, site_fp);
  if (head.ok()) changes_[site_fp] = *head;
  return head;
}

void SiteQueues::ResetHeadChanges() { ResetPerTransaction(&changes_); }

Status SiteQueues::HeadWalk::Open(SiteQueues* queues, DbTxn* t) {
  return scan_.Open(&queues->db_, t);
}

namespace {
// Most of a large crawl's sites have few URLs queued. A search from the
// root costs about 5,600 instructions and a plain DB_NEXT about 2,000; a
// record of a bulk batch costs tens. So a site with up to kMaxSpan URLs
// queued is read from the walk's scan, which passes at most that many
// records of the site before it; a larger one is searched for, and the
// scan starts again after it (docs/performance.md, "Where a start's time
// goes").
constexpr uint64_t kMaxSpan = 32;
}  // namespace

StatusOr<std::optional<QueuePos>> SiteQueues::NextHead(DbTxn* t,
                                                       uint64_t site_fp,
                                                       uint64_t queued,
                                                       HeadWalk* walk) {
  if (queued > kMaxSpan) {
    walk->active_ = false;
    return ReadHead(t, site_fp);
  }
  uint64_t passed = 0;
  for (;;) {
    if (!walk->active_) {
      walk->scan_.Seek(QueueSitePrefix(site_fp));
      walk->active_ = true;
      walk->peeked_ = false;
      walk->ended_ = false;
      passed = 0;
    }
    if (!walk->peeked_) {
      if (walk->ended_) return std::optional<QueuePos>();
      std::string_view key, value;
      Status s = walk->scan_.Next(&key, &value);
      if (s.IsNotFound()) {
        walk->ended_ = true;
        return std::optional<QueuePos>();
      }
      if (!s.ok()) return s;
      if (!DecodeQueueKey(key, &walk->peek_site_, &walk->peek_pos_)) {
        return Status::Corruption("undecodable queue key");
      }
      walk->peeked_ = true;
    }
    if (walk->peek_site_ > site_fp) return std::optional<QueuePos>();
    if (walk->peek_site_ == site_fp) {
      walk->peeked_ = false;  // the next site's read passes this one's URLs
      return std::optional<QueuePos>(walk->peek_pos_);
    }
    walk->peeked_ = false;  // a URL of a site before this one
    // More records before this site than the last one had queued (counts
    // and queue disagree): search instead of reading on.
    if (++passed > 2 * kMaxSpan + 1) walk->active_ = false;
  }
}

}  // namespace frontier
