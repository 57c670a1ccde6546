// FrontierImpl: the operators' view of sites (SITE INFO, LIST, TOP, LIMIT,
// DELETE; frontier.h, "Sites, for operators").
#include <algorithm>
#include <set>
#include <unordered_set>

#include "storage/coding.h"
#include "storage/frontier_impl.h"

namespace frontier {

Status FrontierImpl::UpdateSite(
    const std::string& name, int64_t now_ms,
    const std::function<void(SiteRecord*)>& change) {
  const uint64_t site_fp = Fingerprint(name);
  return RunWrite([&](DbTxn* t) {
    SiteRecord site;
    Status s = sites_.Load(t, site_fp, &site);
    const bool new_site = s.IsNotFound();
    if (!s.ok() && !new_site) return s;
    if (new_site) site.name = name;
    change(&site);
    sites_.Store(site_fp, site);
    s = PlaceSite(t, site_fp, site, now_ms);
    if (s.ok() && new_site) CountNewSite(site);
    return s;
  });
}

StatusOr<std::optional<SiteInfo>> FrontierImpl::GetSiteInfo(
    std::string_view site_arg, int64_t now_ms) {
  StatusOr<std::string> name = resolver_.SiteName(site_arg);
  if (!name.ok()) return name.status();
  SiteRecord site;
  Status s = sites_.Load(nullptr, Fingerprint(*name), &site);
  if (s.IsNotFound() || (s.ok() && site.name != *name)) {
    return std::optional<SiteInfo>();
  }
  if (!s.ok()) return s;
  SiteInfo info;
  info.name = site.name;
  info.queued = site.queued;
  info.leased = site.leases;
  info.done = site.done;
  info.scheduled = site.scheduled;
  info.dead = site.dead;
  info.excluded = site.excluded;
  const policy::SiteDelay delay = site_policy_.DelayInForce(site);
  info.delay_ms = delay.ms;
  info.delay_source = delay.source;
  info.next_allowed_ms =
      site.next_allowed_ms > now_ms ? site.next_allowed_ms : 0;
  info.block_until_ms = site.block_until_ms > now_ms ? site.block_until_ms : 0;
  info.backoffs = site.backoffs;
  info.max_urls = site_policy_.UrlCapOf(site);
  info.done_limit = site.done_limit;
  if (!opts_.partitions.trivial()) {
    info.partition = opts_.partitions.name(site_policy_.PartitionOf(site));
  }
  return std::optional<SiteInfo>(std::move(info));
}

namespace {

// sites.db as a scan would read it once every pending site record were
// written back: its records in key order, merged with the site journal's
// (SiteTable::Unsettled: a newer record replaces the file's, an erased
// site is skipped). Call FrontierImpl::SettleSites() first.
class SettledScan {
 public:
  // `expected`: about how many sites the caller will read (a page's
  // count); the journal's sites are put in order that many at a time, so
  // that a short page does not sort all 64k of them.
  SettledScan(SiteTable* sites, size_t expected)
      : sites_(sites), chunk_(std::max<size_t>(expected, 64)) {}

  // Positions the scan before the first site whose fingerprint is at
  // least `from`.
  Status Start(uint64_t from) {
    unsettled_ = sites_->UnsettledFrom(from);
    next_ = 0;
    sorted_ = 0;
    Status s = cursor_.Open(&sites_->db(), nullptr);
    if (s.ok()) s = cursor_.Seek(EncodeSiteKey(from), &key_, &value_);
    return Read(s);
  }

  // The next site in fingerprint order; NotFound past the last.
  Status Next(uint64_t* site_fp, SiteRecord* rec) {
    while (next_ < unsettled_.size() || on_file_) {
      if (next_ == sorted_ && sorted_ < unsettled_.size()) SortMore();
      const bool from_journal =
          next_ < unsettled_.size() &&
          (!on_file_ || unsettled_[next_] <= file_fp_);
      if (!from_journal) {
        if (!DecodeSiteRecord(value_, rec)) {
          return Status::Corruption("undecodable site record");
        }
        *site_fp = file_fp_;
        return Read(cursor_.Next(&key_, &value_));
      }
      const uint64_t fp = unsettled_[next_++];
      if (on_file_ && fp == file_fp_) {  // the file's record is older
        if (Status s = Read(cursor_.Next(&key_, &value_)); !s.ok()) return s;
      }
      bool erased = false;
      const SiteRecord* newer = sites_->Unsettled(fp, &erased);
      if (newer == nullptr || erased) continue;
      *site_fp = fp;
      *rec = *newer;
      return Status::OK();
    }
    return Status::NotFound("end of sites");
  }

 private:
  // Takes the outcome of a cursor move: the file's current site, or its
  // end (OK), or the error.
  Status Read(Status s) {
    on_file_ = s.ok();
    if (s.IsNotFound()) return Status::OK();
    if (!s.ok()) return s;
    std::string_view k = key_;
    if (!coding::GetU64(&k, &file_fp_) || !k.empty()) {
      return Status::Corruption("undecodable site key");
    }
    return Status::OK();
  }

  // Puts the next chunk_ of unsettled_ in order (the chunks double).
  void SortMore() {
    const size_t n = std::min(chunk_, unsettled_.size() - sorted_);
    const auto first = unsettled_.begin() + static_cast<std::ptrdiff_t>(sorted_);
    std::partial_sort(first, first + static_cast<std::ptrdiff_t>(n),
                      unsettled_.end());
    sorted_ += n;
    if (chunk_ <= unsettled_.size()) chunk_ *= 2;
  }

  SiteTable* sites_;
  size_t chunk_;
  bdb::Cursor cursor_;
  // The journal's sites from the start on: [0, sorted_) ascending and
  // below every later one; next_ is the next to merge.
  std::vector<uint64_t> unsettled_;
  size_t sorted_ = 0;
  size_t next_ = 0;
  bool on_file_ = false;
  uint64_t file_fp_ = 0;
  std::string key_, value_;
};

// SITE LIST's filter, decided from the record alone (docs/commands.md).
// A site at its cap on done URLs (`at_done_limit`) is neither ready nor
// waiting: nothing of it will be handed out until the cap changes.
bool PassesFilter(SiteFilter filter, const SiteRecord& site, bool at_cap,
                  bool at_done_limit, int64_t now_ms) {
  const bool blocked = site.block_until_ms > now_ms;
  const bool ready = site.queued > 0 && !blocked && !at_cap &&
                     !at_done_limit && site.next_allowed_ms <= now_ms;
  switch (filter) {
    case SiteFilter::kAll:
      return true;
    case SiteFilter::kBlocked:
      return blocked;
    case SiteFilter::kReady:
      return ready;
    case SiteFilter::kWaiting:
      return site.queued > 0 && !blocked && !ready && !at_done_limit;
  }
  return false;
}

}  // namespace

StatusOr<SitePage> FrontierImpl::ListSites(SiteFilter filter, uint64_t cursor,
                                           size_t count, int64_t now_ms) {
  SitePage page;
  Status s = SettleSites();
  if (!s.ok()) return s;
  SettledScan scan(&sites_, count + 1);
  s = scan.Start(cursor);
  uint64_t site_fp = 0;
  SiteRecord site;
  if (s.ok()) s = scan.Next(&site_fp, &site);
  for (size_t examined = 0; s.ok(); ++examined) {
    if (examined == count) {
      // The next page starts here. A site whose fingerprint is 0 can only
      // be the very first record, which "0" reads anyway.
      page.next_cursor = site_fp;
      return page;
    }
    if (PassesFilter(filter, site, site_policy_.AtLeaseCap(site),
                     AtDoneLimit(site), now_ms)) {
      page.sites.push_back(std::move(site.name));
    }
    s = scan.Next(&site_fp, &site);
  }
  if (!s.IsNotFound()) return s;
  page.next_cursor = 0;  // the scan is complete
  return page;
}

StatusOr<std::vector<SiteSize>> FrontierImpl::TopSites(size_t n) {
  struct Candidate {
    uint64_t fp;
    SiteSize size;
  };
  std::vector<Candidate> top;  // a min-heap of the n largest so far
  if (n == 0) return std::vector<SiteSize>();
  auto larger = [](const Candidate& a, const Candidate& b) {
    return a.size.queued != b.size.queued ? a.size.queued > b.size.queued
                                          : a.size.name < b.size.name;
  };
  auto offer = [&](Candidate&& site) {
    if (top.size() == n && !larger(site, top.front())) return;
    if (top.size() == n) {
      std::pop_heap(top.begin(), top.end(), larger);
      top.pop_back();
    }
    top.push_back(std::move(site));
    std::push_heap(top.begin(), top.end(), larger);
  };
  Status s = SettleSites();  // as in ListSites
  if (!s.ok()) return s;
  SettledScan scan(&sites_, kTopSitesScanMax);
  s = scan.Start(0);
  uint64_t site_fp = 0;
  SiteRecord site;
  if (s.ok()) s = scan.Next(&site_fp, &site);
  for (size_t examined = 0; s.ok() && examined < kTopSitesScanMax;
       ++examined) {
    if (site.queued > 0) {
      offer({site_fp, SiteSize{std::move(site.name), site.urls, site.queued,
                               site.leases}});
    }
    s = scan.Next(&site_fp, &site);
  }
  if (!s.ok() && !s.IsNotFound()) return s;
  if (s.ok()) {
    // The scan stopped at its bound: the cached records (the sites the
    // crawl works on, which the scan may have missed) compete too. One
    // the scan kept already is the same site, not another candidate.
    std::unordered_set<uint64_t> kept;
    for (const Candidate& cand : top) kept.insert(cand.fp);
    sites_.ForEachInMemory([&](uint64_t fp, const SiteRecord& rec) {
      if (rec.queued > 0 && !kept.contains(fp)) {
        offer({fp, SiteSize{rec.name, rec.urls, rec.queued, rec.leases}});
      }
    });
  }
  std::sort_heap(top.begin(), top.end(), larger);
  std::vector<SiteSize> out;
  out.reserve(top.size());
  for (Candidate& cand : top) out.push_back(std::move(cand.size));
  return out;
}

Status FrontierImpl::SetSiteLimit(std::string_view site_arg, uint64_t max_urls,
                                  int64_t now_ms) {
  StatusOr<std::string> name = resolver_.SiteName(site_arg);
  if (!name.ok()) return name.status();
  return UpdateSite(*name, now_ms,
                    [&](SiteRecord* site) { site->max_urls = max_urls; });
}

StatusOr<uint64_t> FrontierImpl::DeleteSite(std::string_view site_arg,
                                            int64_t now_ms) {
  (void)now_ms;  // nothing of a deleted site waits for a time
  StatusOr<std::string> name = resolver_.SiteName(site_arg);
  if (!name.ok()) return name.status();
  const uint64_t site_fp = Fingerprint(*name);
  const bool by_host = opts_.politeness_scope == SiteScope::kHost;
  uint64_t removed = 0;
  bool tombstoned = false;
  Status s = RunWrite([&](DbTxn* t) {
    removed = 0;
    tombstoned = false;
    SiteRecord site;
    Status ls = sites_.Load(t, site_fp, &site);
    if (ls.IsNotFound()) return Status::OK();
    if (!ls.ok()) return ls;
    if (site.name != *name) return Status::OK();  // a fingerprint collision
    // Under host scope the site is one host: its URLs are the host's key
    // range of U (site_fp is the host's fingerprint). A domain's hosts
    // have no index, so under domain scope every URL record is read.
    const uint64_t to_read = by_host ? site.urls : stats_.urls;
    if (to_read > delete_site_bound_) {
      // Too many for one transaction: Tick removes the records later.
      removed = site.urls;
      tombstoned = true;
      ls = sites_.Erase(t, site_fp);
      if (ls.ok()) ls = SiteTombstones::Put(t, &meta_, site_fp);
      if (ls.ok()) ForgetSite(site_fp, site, /*with_urls=*/true);
      return ls;
    }
    bdb::Cursor c;
    ls = urls_.OpenScan(t, &c);
    std::set<uint64_t> origins;  // of the URLs removed: their robots.txt goes

    std::string key, value;
    if (ls.ok()) {
      ls = by_host ? c.Seek(EncodeSiteKey(site_fp), &key, &value)
                   : c.First(&key, &value);
    }
    while (ls.ok()) {
      UrlKey url_key;
      UrlRecord rec;
      if (!DecodeUrlKey(key, &url_key) || !DecodeUrlRecord(value, &rec)) {
        return Status::Corruption("undecodable URL record");
      }
      if (by_host && url_key.host_fp != site_fp) break;  // past the host
      if (rec.site_fp == site_fp) {
        ls = DeleteEntryOfUrl(t, site_fp, url_key, rec);
        if (ls.ok()) ls = c.DeleteCurrent();
        if (!ls.ok()) return ls;
        origins.insert(Fingerprint(OriginOf(rec.url)));
        CountMove(&site, rec.state, std::nullopt);
        if (stats_.urls > 0) stats_.urls--;
        removed++;
      }
      ls = c.Next(&key, &value);
    }
    if (!ls.IsNotFound() && !ls.ok()) return ls;
    ls = c.Close();
    if (ls.ok()) ls = sites_.Erase(t, site_fp);
    if (!ls.ok()) return ls;
    // The site's robots.txt rules and fetch state (policy.db): an origin
    // belongs to one host, so to one site. An origin known only through
    // ROBOTS SET, with no URL stored, keeps its record.
    ls = DeleteOrigins(t, origins);
    if (!ls.ok()) return ls;
    ForgetSite(site_fp, site, /*with_urls=*/false);
    return Status::OK();
  });
  if (!s.ok()) return s;
  if (tombstoned) {
    tombstones_.Add(site_fp, by_host);
  }
  return removed;
}

}  // namespace frontier
