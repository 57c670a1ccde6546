// FrontierImpl: the steps every verb shares over the tables: a URL into
// and out of Q and Qc with its site's counts, the site records written at
// commit with their heads, a site's place in the scheduler, the counters.
#include <algorithm>

#include "storage/frontier_impl.h"

namespace frontier {

FrontierImpl::FrontierImpl(const FrontierOptions& options)
    : opts_(options), durability_(options.dir) {}

Status FrontierImpl::LoadUrl(DbTxn* t, const UrlKey& key, UrlRecord* rec) {
  Status s = urls_.Load(t, key, rec);
  // A record of a site being deleted awaits Tick's removal: it is gone.
  if (s.ok() && tombstones_.IsDeleted(*rec)) {
    return Status::NotFound("URL of a deleted site");
  }
  return s;
}

void FrontierImpl::BindCursors(DbTxn* t) {
  urls_.Bind(t);
  queue_.Bind(t);
  timers_.Bind(t);
  sites_.Bind(t);
}

Status FrontierImpl::CloseCursors() {
  // All four closed, whatever fails; the first failure is the answer.
  Status closed[] = {urls_.CloseCursor(), queue_.CloseCursor(),
                     timers_.CloseCursor(), sites_.CloseCursor()};
  for (Status& s : closed) {
    if (!s.ok()) return std::move(s);
  }
  return Status::OK();
}

Status FrontierImpl::StoredHeadOf(DbTxn* t, uint64_t site_fp,
                                  const SiteRecord& rec,
                                  std::optional<QueuePos>* head) {
  head->reset();
  if (rec.queued == 0 || !opts_.store_site_heads) return Status::OK();
  *head = queue_.KnownHead(site_fp);
  if (*head) return Status::OK();
  StatusOr<std::optional<QueuePos>> found = queue_.ReadHead(t, site_fp);
  if (!found.ok()) return found.status();
  *head = *found;
  return Status::OK();
}

Status FrontierImpl::WriteDirtySites(DbTxn* t) {
  // A site whose head moved with no count changing (a URL re-keyed in Q
  // by `order popularity`) is written too, so that its stored head stays
  // the first key of its queue.
  if (opts_.store_site_heads) {
    for (const auto& [site_fp, change] : queue_.head_changes()) {
      if (sites_.IsDirty(site_fp)) continue;
      SiteRecord site;
      Status s = sites_.Load(t, site_fp, &site);
      if (s.IsNotFound()) continue;
      if (!s.ok()) return s;
      std::optional<QueuePos> head;
      s = StoredHeadOf(t, site_fp, site, &head);
      if (!s.ok()) return s;
      if (head != site.head) sites_.Store(site_fp, site);
    }
  }
  return sites_.WriteDirty(t, [this, t](uint64_t site_fp, SiteRecord* rec) {
    return StoredHeadOf(t, site_fp, *rec, &rec->head);
  });
}

Status FrontierImpl::PutCounters(DbTxn* t) {
  Status s = meta_.Put(t, "stats", EncodeStats(stats_));
  for (const auto& [name, crawl] : crawls_) {  // the other crawls'
    if (!s.ok() || crawl.get() == current_) continue;
    s = crawl->meta.Put(t, "stats", EncodeStats(crawl->stats));
  }
  return s;
}

Status FrontierImpl::SaveCounters(u_int32_t commit_flags) {
  // A replica's counters record is the master's, replicated.
  if (!IsWritable()) return Status::OK();
  bdb::Txn txn;
  Status s = txn.Begin(env_.get());
  if (s.ok()) s = PutCounters(txn.get());
  if (s.ok()) {
    s = txn.Commit(commit_flags);
  } else {
    txn.Abort();
  }
  if (s.ok()) commit_seq_.fetch_add(1, std::memory_order_release);
  return s;
}

QueuePos FrontierImpl::PosOf(const UrlRecord& rec, const UrlKey& key) const {
  QueuePos pos;
  switch (opts_.order) {
    case QueueOrder::kBfs:
      pos.major = rec.depth;
      pos.minor = rec.priority;
      break;
    case QueueOrder::kPriority:
      pos.major = rec.priority;
      pos.minor = rec.depth;
      break;
    case QueueOrder::kPopularity:
      pos.major = PopularityMajor(rec.backlinks, rec.depth);
      pos.minor = rec.priority;
      break;
    case QueueOrder::kDate: {
      // Seconds since the epoch in 32 bits (to 2106): major:minor. A
      // queued record holds its date (Enqueue).
      const int64_t ms = QueueDateOf(rec);
      const auto secs = static_cast<uint32_t>(
          std::clamp<int64_t>(ms / 1000, 0, UINT32_MAX));
      pos.major = static_cast<uint16_t>(secs >> 16);
      pos.minor = static_cast<uint16_t>(secs & 0xffff);
      break;
    }
  }
  pos.url = key;
  return pos;
}

Status FrontierImpl::Enqueue(DbTxn* t, const UrlKey& key, UrlRecord* rec,
                             SiteRecord* site) {
  // Under `order date` a queued URL keeps its date in due_ms (PosOf).
  rec->due_ms = opts_.order == QueueOrder::kDate ? QueueDateOf(*rec) : 0;
  rec->state = StoredState::kQueued;
  Status s = queue_.Put(t, rec->site_fp, PosOf(*rec, key), site->queued);
  site->queued++;
  return s;
}

Status FrontierImpl::Dequeue(DbTxn* t, const UrlKey& key, const UrlRecord& rec,
                             SiteRecord* site) {
  if (site->queued > 0) site->queued--;
  return queue_.Remove(t, rec.site_fp, PosOf(rec, key), site->queued);
}

Status FrontierImpl::EndLease(DbTxn* t, const UrlKey& key,
                              const UrlRecord& rec, SiteRecord* site) {
  if (site->leases > 0) site->leases--;
  return timers_.EndLease(t, rec.due_ms, key);  // in memory or in Qc
}

Status FrontierImpl::Detach(DbTxn* t, const UrlKey& key, const UrlRecord& rec,
                            SiteRecord* site) {
  switch (rec.state) {
    case StoredState::kQueued:
      return Dequeue(t, key, rec, site);
    case StoredState::kLeased:
      return EndLease(t, key, rec, site);
    case StoredState::kScheduledRetry:
    case StoredState::kScheduledRecrawl:
      return timers_.Remove(t, rec.due_ms, key);
    case StoredState::kDone:
    case StoredState::kDead:
    case StoredState::kExcluded:
      break;
  }
  return Status::OK();
}

Status FrontierImpl::PlaceSite(DbTxn* t, uint64_t site_fp,
                               const SiteRecord& site, int64_t now_ms) {
  touched_sites_.insert(site_fp);
  blocks_.Set(site_fp, site.block_until_ms);
  SiteScheduler::Placement p = site_policy_.PlacementOf(site);
  if (gate_on_) {
    // Crawls share the site: the others' delay, block and leases hold it.
    GateSet(site_fp, site, now_ms);
    if (!p.at_lease_cap && GateHolds(site_fp, site, now_ms)) {
      const HostGate::Hold others = gate_.Others(crawl_id_, site_fp);
      p.next_allowed_ms = std::max(
          {p.next_allowed_ms, others.until_ms,
           others.until_ms > now_ms ? 0 : now_ms + HostGate::kRecheckMs});
    }
  }
  if (site.queued > 0) {
    StatusOr<std::optional<QueuePos>> head = queue_.Head(t, site_fp);
    if (!head.ok()) return head.status();
    p.head = *head;
  } else {
    queue_.ForgetHead(site_fp);
  }
  sched_.Place(site_fp, p, now_ms);
  return Status::OK();
}

void FrontierImpl::CountMove(SiteRecord* site,
                             std::optional<StoredState> from,
                             std::optional<StoredState> to) {
  auto site_counter = [site](StoredState s) -> uint64_t* {
    switch (PublicState(s)) {
      case UrlState::kDone:
        return &site->done;
      case UrlState::kScheduled:
        return &site->scheduled;
      case UrlState::kDead:
        return &site->dead;
      case UrlState::kExcluded:
        return &site->excluded;
      case UrlState::kQueued:
      case UrlState::kLeased:
        break;
    }
    return nullptr;
  };
  if (from) {
    if (uint64_t* c = site_counter(*from); c != nullptr && *c > 0) (*c)--;
  }
  if (to) {
    if (uint64_t* c = site_counter(*to); c != nullptr) (*c)++;
  }
  auto counter = [this](StoredState s) -> uint64_t& {
    switch (PublicState(s)) {
      case UrlState::kQueued:
        return stats_.queued;
      case UrlState::kLeased:
        return stats_.leased;
      case UrlState::kDone:
        return stats_.done;
      case UrlState::kScheduled:
        return stats_.scheduled;
      case UrlState::kExcluded:
        return stats_.excluded;
      case UrlState::kDead:
        break;
    }
    return stats_.dead;
  };
  if (from) {
    uint64_t& c = counter(*from);
    if (c > 0) c--;
  }
  if (to) counter(*to)++;
  // The same states of the site's partition (PARTITION INFO).
  PartitionCounts& part = part_counts_[site_policy_.PartitionOf(*site)];
  auto part_counter = [&part](StoredState s) -> uint64_t* {
    switch (PublicState(s)) {
      case UrlState::kQueued:
        return &part.queued;
      case UrlState::kLeased:
        return &part.leased;
      case UrlState::kDone:
        return &part.done;
      case UrlState::kScheduled:
      case UrlState::kDead:
      case UrlState::kExcluded:
        break;
    }
    return nullptr;
  };
  if (from) {
    if (uint64_t* c = part_counter(*from); c != nullptr && *c > 0) (*c)--;
  }
  if (to) {
    if (uint64_t* c = part_counter(*to); c != nullptr) (*c)++;
  }
}

}  // namespace frontier
