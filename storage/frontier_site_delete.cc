// FrontierImpl: SITE DELETE of a site too large for one transaction. The
// reply deletes the site record and leaves a tombstone; from then on its
// URL records read as absent (LoadUrl), and Tick removes them in bounded
// slices (docs/design.md, "Deleting a large site").
#include <set>

#include "storage/frontier_impl.h"

namespace frontier {

namespace {

// URL records one Tick examines for a deleting site: one short
// transaction. The server runs up to 8 Ticks per pass between polls of
// its connections; 1,000 per slice stalled a pass ~100 ms, 250 ~50 ms
// (docs/design.md).
constexpr size_t kDeleteSliceRecords = 250;

// `count` less `n`, never below 0.
void Drop(uint64_t* count, uint64_t n) { *count = *count > n ? *count - n : 0; }

// Deletes `key` from `db`; an entry already gone is no error (a timer
// that fired for a deleted URL dropped its own entry).
Status DeleteIfPresent(bdb::Database* db, DbTxn* t, std::string_view key) {
  Status s = db->Delete(t, key);
  return s.IsNotFound() ? Status::OK() : s;
}

}  // namespace

Status FrontierImpl::DeleteEntryOfUrl(DbTxn* t, uint64_t site_fp,
                                      const UrlKey& key, const UrlRecord& rec) {
  if (rec.has_data) {
    Status s = values_.Delete(t, key);
    if (!s.ok()) return s;
  }
  switch (rec.state) {
    case StoredState::kQueued:
      return DeleteIfPresent(&queue_.db(), t,
                             EncodeQueueKey(site_fp, PosOf(rec, key)));
    case StoredState::kLeased:
      if (timers_.leases().End(key)) return Status::OK();  // held in memory
      [[fallthrough]];
    case StoredState::kScheduledRetry:
    case StoredState::kScheduledRecrawl:
      return DeleteIfPresent(&timers_.db(), t, EncodeTimerKey(rec.due_ms, key));
    case StoredState::kDone:
    case StoredState::kDead:
    // Its entry in the excluded index goes stale, which a re-check drops
    // when it meets it (frontier_robots.cc).
    case StoredState::kExcluded:
      break;
  }
  return Status::OK();
}

Status FrontierImpl::DeleteOrigins(DbTxn* t,
                                   const std::set<uint64_t>& origins) {
  for (uint64_t origin_fp : origins) {
    Status s = robots_.Delete(t, origin_fp);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

void FrontierImpl::ForgetSite(uint64_t site_fp, const SiteRecord& site,
                              bool with_urls) {
  // Whatever the transaction buffered or cached for the site goes too;
  // an abort clears the cache and re-places the touched sites.
  sites_.Forget(site_fp);
  queue_.ForgetHead(site_fp);
  touched_sites_.insert(site_fp);
  sched_.Remove(site_fp);
  blocks_.Set(site_fp, 0);  // a deleted site is no longer blocked
  PartitionCounts& part = part_counts_[site_policy_.PartitionOf(site)];
  Drop(&stats_.sites, 1);
  Drop(&part.sites, 1);
  if (!with_urls) return;  // the caller counted each URL it removed
  Drop(&stats_.urls, site.urls);
  Drop(&stats_.queued, site.queued);
  Drop(&stats_.leased, site.leases);
  Drop(&stats_.done, site.done);
  Drop(&stats_.scheduled, site.scheduled);
  Drop(&stats_.dead, site.dead);
  Drop(&stats_.excluded, site.excluded);
  Drop(&part.queued, site.queued);
  Drop(&part.leased, site.leases);
  Drop(&part.done, site.done);
}

Status FrontierImpl::TickDeletes(TickResult* result) {
  if (tombstones_.empty()) return Status::OK();
  const auto it = tombstones_.Next();
  const uint64_t site_fp = it->first;
  const bool by_host = ByHost();
  std::string next;  // where the next slice starts
  bool finished = false;
  Status s = RunWrite([&](DbTxn* t) {
    next.clear();
    finished = false;
    bdb::Cursor c;
    Status ls = urls_.OpenScan(t, &c);
    std::string key, value;
    if (ls.ok()) {
      ls = it->second.empty() ? c.First(&key, &value)
                              : c.Seek(it->second, &key, &value);
    }
    std::set<uint64_t> origins;  // of the URLs removed: their robots.txt goes
    for (size_t examined = 0; ls.ok(); ++examined) {
      UrlKey url_key;
      UrlRecord rec;
      if (!DecodeUrlKey(key, &url_key) || !DecodeUrlRecord(value, &rec)) {
        return Status::Corruption("undecodable URL record");
      }
      if (by_host && url_key.host_fp != site_fp) break;  // past the host
      if (examined == kDeleteSliceRecords) {
        next = key;
        break;
      }
      if (rec.site_fp == site_fp) {
        ls = DeleteEntryOfUrl(t, site_fp, url_key, rec);
        if (ls.ok()) ls = c.DeleteCurrent();
        if (!ls.ok()) return ls;
        origins.insert(Fingerprint(OriginOf(rec.url)));
      }
      ls = c.Next(&key, &value);
    }
    if (!ls.ok() && !ls.IsNotFound()) return ls;
    finished = next.empty();
    ls = c.Close();
    if (ls.ok()) ls = DeleteOrigins(t, origins);
    if (ls.ok() && finished) ls = SiteTombstones::Remove(t, &meta_, site_fp);
    return ls;
  });
  if (!s.ok()) return s;
  if (finished) {
    tombstones_.Finish(it);
  } else {
    it->second = std::move(next);
  }
  result->more_due = result->more_due || !tombstones_.empty();
  return Status::OK();
}

}  // namespace frontier
