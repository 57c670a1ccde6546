// FrontierImpl: lease control (issue 8 §4): EXTEND moves a lease's
// deadline, RELEASE hands a lease back without counting an attempt.
#include "storage/frontier_impl.h"

namespace frontier {

Status FrontierImpl::LoadLeased(DbTxn* t, const Resolved& url, UrlRecord* rec,
                                bool* leased) {
  *leased = false;
  Status s = LoadUrl(t, url.key, rec);
  if (s.IsNotFound()) return Status::OK();
  if (!s.ok()) return s;
  *leased = rec->url == url.norm.url && rec->state == StoredState::kLeased;
  return Status::OK();
}

Status FrontierImpl::Requeue(DbTxn* t, const UrlKey& key, UrlRecord* rec,
                             SiteRecord* site, int64_t delay_ms,
                             int64_t now_ms) {
  if (delay_ms <= 0) return Enqueue(t, key, rec, site);
  rec->state = StoredState::kScheduledRetry;
  rec->due_ms = now_ms + delay_ms;
  return timers_.Add(t, rec->due_ms, key);
}

StatusOr<bool> FrontierImpl::Extend(std::string_view url, int64_t lease_ms,
                                    int64_t now_ms) {
  if (lease_ms <= 0) {
    return Status::InvalidArgument("a lease must last more than 0 seconds");
  }
  StatusOr<Resolved> target = resolver_.Url(url, "invalid URL");
  if (!target.ok()) return target.status();
  const UrlKey& key = target->key;
  bool extended = false;
  Status s = RunWrite([&](DbTxn* t) {
    UrlRecord rec;
    bool leased = false;
    Status ls = LoadLeased(t, *target, &rec, &leased);
    if (!ls.ok() || !leased) return ls;
    // The lease's deadline moves, in memory or in Qc.
    ls = timers_.MoveLease(t, rec.due_ms, now_ms + lease_ms, key);
    if (!ls.ok()) return ls;
    rec.due_ms = now_ms + lease_ms;
    ls = urls_.Store(t, key, rec);
    if (!ls.ok()) return ls;
    extended = true;
    return Status::OK();
  });
  if (!s.ok()) return s;
  return extended;
}

StatusOr<bool> FrontierImpl::Release(std::string_view url, int64_t delay_ms,
                                     int64_t now_ms) {
  if (delay_ms < 0) {
    return Status::InvalidArgument("a release delay must be 0 or more seconds");
  }
  StatusOr<Resolved> target = resolver_.Url(url, "invalid URL");
  if (!target.ok()) return target.status();
  const UrlKey& key = target->key;
  bool released = false;
  Status s = RunWrite([&](DbTxn* t) {
    UrlRecord rec;
    bool leased = false;
    Status ls = LoadLeased(t, *target, &rec, &leased);
    if (!ls.ok() || !leased) return ls;
    SiteRecord site;
    ls = sites_.Load(t, rec.site_fp, &site);
    if (ls.ok()) ls = EndLease(t, key, rec, &site);
    if (ls.ok()) ls = Requeue(t, key, &rec, &site, delay_ms, now_ms);
    if (ls.ok()) ls = urls_.Store(t, key, rec);
    if (!ls.ok()) return ls;
    // Not a fetch: the attempts and the site's next-allowed time stay.
    CountMove(&site, StoredState::kLeased, rec.state);
    sites_.Store(rec.site_fp, site);
    ls = PlaceSite(t, rec.site_fp, site, now_ms);
    if (!ls.ok()) return ls;
    released = true;
    return Status::OK();
  });
  if (!s.ok()) return s;
  return released;
}

}  // namespace frontier
