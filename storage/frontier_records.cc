// FrontierImpl: record access, queue/timer maintenance and the
// transaction wrapper shared by every verb.
#include <algorithm>

#include "storage/frontier_impl.h"

namespace frontier {

FrontierImpl::FrontierImpl(const FrontierOptions& options)
    : opts_(options), durability_(options.dir) {}

StatusOr<FrontierImpl::Resolved> FrontierImpl::Resolve(std::string_view url,
                                                       const char* what) const {
  StatusOr<NormalizedUrl> norm = NormalizeUrl(url, opts_.max_url_length);
  if (!norm.ok()) {
    return Status::InvalidArgument(std::string(what) + ": " +
                                   norm.status().message());
  }
  Resolved r;
  r.norm = std::move(norm).value();
  r.key.host_fp = Fingerprint(r.norm.host);
  r.key.url_fp = Fingerprint(r.norm.url);
  return r;
}

Status FrontierImpl::TxnCursor(DbTxn* t, bdb::Database* db, bdb::Cursor* c,
                               bdb::Cursor** out) {
  *out = nullptr;
  if (t == nullptr || t != cursors_.txn) return Status::OK();
  if (!c->is_open()) {
    Status s = c->Open(db, t);
    if (!s.ok()) return s;
  }
  *out = c;
  return Status::OK();
}

Status FrontierImpl::CloseCursors() {
  Status result;
  for (bdb::Cursor* c : {&cursors_.urls, &cursors_.queue, &cursors_.timers,
                         &cursors_.sites}) {
    Status s = c->Close();
    if (result.ok()) result = s;
  }
  cursors_.txn = nullptr;
  cursors_.urls_at.reset();
  return result;
}

Status FrontierImpl::LoadUrl(DbTxn* t, const UrlKey& key, UrlRecord* rec) {
  bdb::Cursor* c = nullptr;
  Status s = TxnCursor(t, &urls_, &cursors_.urls, &c);
  if (!s.ok()) return s;
  std::string value;
  if (c != nullptr) {
    cursors_.urls_at.reset();
    s = c->Find(EncodeUrlKey(key), &value);
    if (s.ok()) cursors_.urls_at = key;
  } else {
    s = urls_.Get(t, EncodeUrlKey(key), &value);
  }
  if (!s.ok()) return s;
  if (!DecodeUrlRecord(value, rec)) {
    return Status::Corruption("undecodable URL record");
  }
  // A record of a site being deleted awaits Tick's removal: it is gone.
  if (IsDeleted(*rec)) return Status::NotFound("URL of a deleted site");
  return Status::OK();
}

Status FrontierImpl::StoreUrl(DbTxn* t, const UrlKey& key,
                              const UrlRecord& rec) {
  bdb::Cursor* c = nullptr;
  Status s = TxnCursor(t, &urls_, &cursors_.urls, &c);
  if (!s.ok()) return s;
  EncodeUrlRecord(rec, &record_buf_);
  if (c == nullptr) return urls_.Put(t, EncodeUrlKey(key), record_buf_);
  if (cursors_.urls_at == key) return c->PutCurrent(record_buf_);
  cursors_.urls_at.reset();
  s = c->Put(EncodeUrlKey(key), record_buf_);
  if (s.ok()) cursors_.urls_at = key;
  return s;
}

Status FrontierImpl::InsertUrl(DbTxn* t, const UrlKey& key,
                               const UrlRecord& rec, bool* inserted) {
  EncodeUrlRecord(rec, &record_buf_);
  cursors_.urls_at.reset();  // the insert does not move the cursor here
  return urls_.Insert(t, EncodeUrlKey(key), record_buf_, inserted);
}

namespace {
constexpr size_t kSiteCacheMax = 1 << 16;
}  // namespace

Status FrontierImpl::LoadSite(DbTxn* t, uint64_t site_fp, SiteRecord* rec) {
  if (auto it = dirty_sites_.find(site_fp); it != dirty_sites_.end()) {
    *rec = it->second;
    return Status::OK();
  }
  if (auto it = site_cache_.find(site_fp); it != site_cache_.end()) {
    *rec = it->second;
    return Status::OK();
  }
  bdb::Cursor* c = nullptr;
  Status s = TxnCursor(t, &sites_, &cursors_.sites, &c);
  if (!s.ok()) return s;
  std::string value;
  s = c != nullptr ? c->Find(EncodeSiteKey(site_fp), &value)
                   : sites_.Get(t, EncodeSiteKey(site_fp), &value);
  if (!s.ok()) return s;
  if (!DecodeSiteRecord(value, rec)) {
    return Status::Corruption("undecodable site record");
  }
  if (site_cache_.size() >= kSiteCacheMax) site_cache_.clear();
  site_cache_[site_fp] = *rec;
  return Status::OK();
}

void FrontierImpl::StoreSite(uint64_t site_fp, const SiteRecord& rec) {
  dirty_sites_[site_fp] = rec;
}

Status FrontierImpl::StoredHeadOf(DbTxn* t, uint64_t site_fp,
                                  const SiteRecord& rec,
                                  std::optional<QueuePos>* head) {
  head->reset();
  if (rec.queued == 0 || !opts_.store_site_heads) return Status::OK();
  *head = KnownHead(site_fp);
  if (*head) return Status::OK();
  StatusOr<std::optional<QueuePos>> found = QueueHead(t, site_fp);
  if (!found.ok()) return found.status();
  *head = *found;
  return Status::OK();
}

Status FrontierImpl::WriteDirtySites(DbTxn* t) {
  Status s;
  // A site whose head moved with no count changing (a URL re-keyed in Q
  // by `order popularity`) is written too, so that its stored head stays
  // the first key of its queue.
  if (opts_.store_site_heads) {
    for (const auto& [site_fp, change] : head_changes_) {
      if (dirty_sites_.contains(site_fp)) continue;
      SiteRecord site;
      s = LoadSite(t, site_fp, &site);
      if (s.IsNotFound()) continue;
      if (!s.ok()) return s;
      std::optional<QueuePos> head;
      s = StoredHeadOf(t, site_fp, site, &head);
      if (!s.ok()) return s;
      if (head != site.head) StoreSite(site_fp, site);
    }
  }
  if (dirty_sites_.empty()) return Status::OK();
  bdb::Cursor* c = nullptr;
  s = TxnCursor(t, &sites_, &cursors_.sites, &c);
  for (auto& [site_fp, rec] : dirty_sites_) {
    if (!s.ok()) return s;
    s = StoredHeadOf(t, site_fp, rec, &rec.head);
    if (!s.ok()) return s;
    EncodeSiteRecord(rec, &record_buf_);
    s = c != nullptr ? c->Put(EncodeSiteKey(site_fp), record_buf_)
                     : sites_.Put(t, EncodeSiteKey(site_fp), record_buf_);
  }
  if (!s.ok()) return s;
  // Cached only once written: an aborted transaction leaves the cache as
  // the disk is.
  for (auto& [site_fp, rec] : dirty_sites_) {
    if (site_cache_.size() >= kSiteCacheMax) site_cache_.clear();
    site_cache_[site_fp] = std::move(rec);
  }
  return Status::OK();
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

std::optional<QueuePos> FrontierImpl::KnownHead(uint64_t site_fp) const {
  if (auto it = head_changes_.find(site_fp); it != head_changes_.end()) {
    return it->second;
  }
  return sched_.HeadOf(site_fp);
}

Status FrontierImpl::Enqueue(DbTxn* t, const UrlKey& key, UrlRecord* rec,
                             SiteRecord* site) {
  // Under `order date` a queued URL keeps its date in due_ms (PosOf).
  rec->due_ms = opts_.order == QueueOrder::kDate ? QueueDateOf(*rec) : 0;
  rec->state = StoredState::kQueued;
  const QueuePos pos = PosOf(*rec, key);
  if (site->queued == 0) {
    head_changes_[rec->site_fp] = pos;
  } else if (std::optional<QueuePos> head = KnownHead(rec->site_fp)) {
    if (pos < *head) head_changes_[rec->site_fp] = pos;
  } else {
    head_changes_[rec->site_fp] = std::nullopt;  // unknown: read it later
  }
  site->queued++;
  bdb::Cursor* c = nullptr;
  Status s = TxnCursor(t, &queue_, &cursors_.queue, &c);
  if (!s.ok()) return s;
  return c != nullptr ? c->Put(EncodeQueueKey(rec->site_fp, pos), "")
                      : queue_.Put(t, EncodeQueueKey(rec->site_fp, pos), "");
}

Status FrontierImpl::Dequeue(DbTxn* t, const UrlKey& key, const UrlRecord& rec,
                             SiteRecord* site) {
  if (site->queued > 0) site->queued--;
  const QueuePos pos = PosOf(rec, key);
  std::optional<QueuePos> head = KnownHead(rec.site_fp);
  const bool was_head = head && *head == pos;
  if (!head || was_head) head_changes_[rec.site_fp] = std::nullopt;
  bdb::Cursor* c = nullptr;
  Status s = TxnCursor(t, &queue_, &cursors_.queue, &c);
  if (!s.ok()) return s;
  if (c == nullptr) return queue_.Delete(t, EncodeQueueKey(rec.site_fp, pos));
  s = c->Find(EncodeQueueKey(rec.site_fp, pos), nullptr);
  if (s.ok()) s = c->DeleteCurrent();
  if (!s.ok() || !was_head || site->queued == 0) return s;
  // The head was the site's smallest key, so the next key, if it is the
  // same site's, is the new head: one step instead of a seek later.
  std::string next;
  Status ns = c->Next(&next, nullptr);
  uint64_t next_site = 0;
  QueuePos next_pos;
  if (ns.ok() && DecodeQueueKey(next, &next_site, &next_pos) &&
      next_site == rec.site_fp) {
    head_changes_[rec.site_fp] = next_pos;
  } else if (!ns.ok() && !ns.IsNotFound()) {
    return ns;
  }
  return Status::OK();
}

Status FrontierImpl::AddTimer(DbTxn* t, int64_t due_ms, const UrlKey& key) {
  if (!timer_min_ || due_ms < *timer_min_) timer_min_ = due_ms;
  bdb::Cursor* c = nullptr;
  Status s = TxnCursor(t, &timers_, &cursors_.timers, &c);
  if (!s.ok()) return s;
  return c != nullptr ? c->Put(EncodeTimerKey(due_ms, key), "")
                      : timers_.Put(t, EncodeTimerKey(due_ms, key), "");
}

Status FrontierImpl::RemoveTimer(DbTxn* t, int64_t due_ms, const UrlKey& key) {
  bdb::Cursor* c = nullptr;
  Status s = TxnCursor(t, &timers_, &cursors_.timers, &c);
  if (!s.ok()) return s;
  if (c == nullptr) return timers_.Delete(t, EncodeTimerKey(due_ms, key));
  s = c->Find(EncodeTimerKey(due_ms, key), nullptr);
  return s.ok() ? c->DeleteCurrent() : s;
}

Status FrontierImpl::EndLease(DbTxn* t, const UrlKey& key,
                              const UrlRecord& rec, SiteRecord* site) {
  if (site->leases > 0) site->leases--;
  return RemoveTimer(t, rec.due_ms, key);
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
      return RemoveTimer(t, rec.due_ms, key);
    case StoredState::kDone:
    case StoredState::kDead:
    case StoredState::kExcluded:
      break;
  }
  return Status::OK();
}

StatusOr<std::optional<QueuePos>> FrontierImpl::QueueHead(DbTxn* t,
                                                          uint64_t site_fp) {
  bdb::Cursor* c = nullptr;
  Status s = TxnCursor(t, &queue_, &cursors_.queue, &c);
  if (!s.ok()) return s;
  bdb::Cursor own;
  if (c == nullptr) {
    s = own.Open(&queue_, t);
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

SiteScheduler::Placement FrontierImpl::PlacementOf(
    const SiteRecord& site) const {
  SiteScheduler::Placement p;
  // A site at its cap on done URLs is held as one at its lease cap: out
  // of the ready and waiting sites until it is placed again under a new
  // cap (or after a recrawl lowered its done count).
  const bool held = AtDoneLimit(site);
  p.at_lease_cap = AtLeaseCap(site) || held;
  // A blocked site waits for the end of its block like a politeness delay.
  p.next_allowed_ms = std::max(site.next_allowed_ms, site.block_until_ms);
  p.partition = static_cast<uint32_t>(PartitionOf(site));
  // The partition's capacity (HINT's n): a ready site could run its
  // leases and queued URLs at once, up to its lease cap; any other site
  // runs its leases.
  const uint64_t cap = opts_.site_max_leases;
  const uint64_t could_run = site.leases + site.queued;
  p.slots_other = cap == 0 ? site.leases : std::min(cap, site.leases);
  p.slots_ready = held       ? p.slots_other
                  : cap == 0 ? could_run
                             : std::min(cap, could_run);
  return p;
}

Status FrontierImpl::PlaceSite(DbTxn* t, uint64_t site_fp,
                               const SiteRecord& site, int64_t now_ms) {
  touched_sites_.insert(site_fp);
  blocks_.Set(site_fp, site.block_until_ms);
  SiteScheduler::Placement p = PlacementOf(site);
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
    p.head = KnownHead(site_fp);
    if (!p.head) {
      StatusOr<std::optional<QueuePos>> head = QueueHead(t, site_fp);
      if (!head.ok()) return head.status();
      p.head = *head;
      head_changes_[site_fp] = p.head;
    }
  } else {
    head_changes_.erase(site_fp);
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
  PartitionCounts& part = part_counts_[PartitionOf(*site)];
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
