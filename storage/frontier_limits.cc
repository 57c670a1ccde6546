// FrontierImpl: the two hold-backs URL Frontier's API asks for
// (docs/urlfrontier.md): a site's cap on done URLs (SetCrawlLimit, SITE
// CRAWLLIMIT), kept in the site record and applied by
// SitePolicy::PlacementOf(), and the node-wide pause of hand-outs
// (SetActive, PAUSE), kept in the default crawl's meta.db.
#include "storage/frontier_impl.h"

namespace frontier {
namespace {
// meta.db's key for the pause; present (value "1") only while paused.
constexpr std::string_view kPausedKey = "paused";
}  // namespace

Status FrontierImpl::SetSiteDoneLimit(std::string_view site_arg, uint64_t limit,
                                      int64_t now_ms) {
  StatusOr<std::string> name = resolver_.SiteName(site_arg);
  if (!name.ok()) return name.status();
  // UpdateSite places the site again: at its cap it leaves the ready and
  // waiting sites, under it (or with none) it comes back.
  return UpdateSite(*name, now_ms,
                    [&](SiteRecord* site) { site->done_limit = limit; });
}

Status FrontierImpl::SetPaused(bool paused) {
  if (closed_) return Status::IOError("frontier is closed");
  if (Status s = EndOpenPass(); !s.ok()) return s;
  // The default crawl's meta.db: the current member while it is current,
  // its CrawlSpace's otherwise.
  bdb::Database& meta = current_->id == 0
                            ? meta_
                            : crawls_.find(Frontier::kDefaultCrawl)->second->meta;
  // A transaction of its own, committed here (RunWrite outside a pass),
  // so the switch in memory never runs ahead of the one on disk: the pass
  // EndOpenPass() began has no transaction yet, and goes on after it.
  const bool in_pass = in_pass_;
  in_pass_ = false;
  Status s = RunWrite([&](DbTxn* t) {
    if (paused) return meta.Put(t, kPausedKey, "1");
    Status ds = meta.Delete(t, kPausedKey);
    return ds.IsNotFound() ? Status::OK() : ds;
  });
  in_pass_ = in_pass;
  if (s.ok()) paused_ = paused;
  return s;
}

Status FrontierImpl::LoadPaused() {
  std::string value;
  Status s = meta_.Get(nullptr, kPausedKey, &value);
  paused_ = s.ok();
  return s.IsNotFound() ? Status::OK() : s;
}

}  // namespace frontier
