// FrontierImpl::PurgeUrls: PURGE, the removal of the URLs first stored
// before a date (URL Frontier's PurgeURLs), one bounded slice of urls.db a
// call and one transaction a slice, so that a purge of millions of URLs
// runs between the server's passes and a crash between two slices leaves
// every count exact (docs/commands.md#purge).
#include "storage/frontier_impl.h"

namespace frontier {

Status FrontierImpl::PurgeOne(DbTxn* t, const UrlKey& key, UrlRecord* rec,
                              int64_t now_ms) {
  SiteRecord site;
  Status s = sites_.Load(t, rec->site_fp, &site);
  if (!s.ok()) return s;
  switch (rec->state) {
    case StoredState::kQueued:
      s = Dequeue(t, key, *rec, &site);
      break;
    case StoredState::kLeased:  // the lease ends, as SITE DELETE ends it
      s = EndLease(t, key, *rec, &site);
      break;
    case StoredState::kScheduledRetry:
    case StoredState::kScheduledRecrawl:
      s = timers_.Remove(t, rec->due_ms, key);
      break;
    case StoredState::kDone:
    case StoredState::kDead:
    // Its entry in the excluded index goes stale, which a re-check drops
    // when it meets it (frontier_robots.cc).
    case StoredState::kExcluded:
      break;
  }
  // An entry already gone is no error, as for SITE DELETE: the URL goes.
  if (s.IsNotFound()) s = Status::OK();
  if (s.ok()) s = values_.Set(t, key, rec, std::nullopt);
  if (!s.ok()) return s;
  CountMove(&site, rec->state, std::nullopt);
  if (site.urls > 0) site.urls--;
  if (stats_.urls > 0) stats_.urls--;
  sites_.Store(rec->site_fp, site);
  return PlaceSite(t, rec->site_fp, site, now_ms);
}

StatusOr<UrlPurgePage> FrontierImpl::PurgeUrls(std::string_view site,
                                               int64_t created_before_ms,
                                               std::string_view cursor,
                                               size_t count, int64_t now_ms) {
  StatusOr<UrlSlice> slice = StartUrlSlice(site, cursor);
  if (!slice.ok()) return slice.status();
  UrlPurgePage page;
  Status s = RunWrite([&](DbTxn* t) {
    page = UrlPurgePage();
    return WalkUrlSlice(
        t, *slice, count, &page.next_cursor,
        [&](bdb::Cursor& c, const UrlKey& key, UrlRecord& rec) {
          if (rec.created_ms >= created_before_ms) return Status::OK();
          Status ps = PurgeOne(t, key, &rec, now_ms);
          if (ps.ok()) ps = c.DeleteCurrent();
          if (ps.ok()) page.removed++;
          return ps;
        });
  });
  if (!s.ok()) return s;
  return page;
}

}  // namespace frontier
