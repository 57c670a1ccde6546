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

constexpr std::string_view kDeletingPrefix = "deleting:";

std::string DeletingKey(uint64_t site_fp) {
  std::string key(kDeletingPrefix);
  key.append(std::string_view(EncodeSiteKey(site_fp)));
  return key;
}

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
    Status s = DeleteIfPresent(&data_, t, EncodeUrlKey(key));
    if (!s.ok()) return s;
  }
  switch (rec.state) {
    case StoredState::kQueued:
      return DeleteIfPresent(&queue_.db(), t,
                             EncodeQueueKey(site_fp, PosOf(rec, key)));
    case StoredState::kLeased:
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

Status FrontierImpl::TombstoneSite(DbTxn* t, uint64_t site_fp,
                                   const SiteRecord& site) {
  (void)site;  // its counts leave with ForgetSite
  Status s = sites_.db().Delete(t, EncodeSiteKey(site_fp));
  if (s.ok()) s = meta_.Put(t, DeletingKey(site_fp), "");
  return s;
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
  if (deleting_.empty()) return Status::OK();
  const auto it = deleting_.begin();
  const uint64_t site_fp = it->first;
  const bool by_host = opts_.politeness_scope == SiteScope::kHost;
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
    if (ls.ok() && finished) ls = meta_.Delete(t, DeletingKey(site_fp));
    return ls;
  });
  if (!s.ok()) return s;
  if (finished) {
    deleting_.erase(it);
  } else {
    it->second = std::move(next);
  }
  result->more_due = result->more_due || !deleting_.empty();
  return Status::OK();
}

Status FrontierImpl::LoadDeleting() {
  deleting_.clear();
  bdb::Cursor c;
  Status s = c.Open(&meta_, nullptr);
  std::string key;
  if (s.ok()) s = c.Seek(kDeletingPrefix, &key, nullptr);
  const bool by_host = opts_.politeness_scope == SiteScope::kHost;
  while (s.ok() && key.starts_with(kDeletingPrefix)) {
    std::string_view fp_bytes =
        std::string_view(key).substr(kDeletingPrefix.size());
    if (fp_bytes.size() != 8)
      return Status::Corruption("undecodable tombstone");
    uint64_t site_fp = 0;
    for (char ch : fp_bytes)
      site_fp = (site_fp << 8) | static_cast<uint8_t>(ch);
    // The removal starts over: at the host's first key, or (domain
    // scope) at the first record of urls.db.
    deleting_[site_fp] = by_host ? std::string(fp_bytes) : std::string();
    s = c.Next(&key, nullptr);
  }
  if (!s.ok() && !s.IsNotFound()) return s;
  return c.Close();
}

}  // namespace frontier
