// FrontierImpl::Import: loads the URLs, sites and robots.txt origins of an
// exported frontier (frontier.h; docs/operations.md, "Export and import").
//
// Every item is checked before the transaction starts (a pass's
// transaction is doomed by any error inside it, and a bad line must change
// nothing); the valid ones are then written in one RunWrite, through the
// same helpers the verbs use (Enqueue, timers_.Add, CountMove, PlaceSite), so
// that counters, queue heads and the scheduler agree as after any verb.
#include <algorithm>
#include <variant>

#include "robots/matcher.h"
#include "storage/frontier_impl.h"

namespace frontier {
namespace {

bool IsScheduled(StoredState s) {
  return s == StoredState::kScheduledRetry ||
         s == StoredState::kScheduledRecrawl;
}

}  // namespace

StatusOr<std::vector<StatusOr<ImportOutcome>>> FrontierImpl::Import(
    const ImportBatch& batch, int64_t now_ms) {
  if (closed_) return Status::IOError("frontier is closed");
  const size_t n = batch.items.size();
  std::vector<StatusOr<ImportOutcome>> out(n, ImportOutcome::kKept);
  std::vector<std::optional<Resolved>> resolved(n);
  // Checks, before any write.
  for (size_t i = 0; i < n; ++i) {
    const ImportItem& item = batch.items[i];
    if (const ImportUrl* u = std::get_if<ImportUrl>(&item)) {
      StatusOr<Resolved> r = resolver_.Url(u->url, "invalid URL");
      if (!r.ok()) {
        out[i] = r.status();
        continue;
      }
      if (u->state == StoredState::kLeased) {
        out[i] = Status::InvalidArgument("a leased URL imports as queued");
        continue;
      }
      if (IsScheduled(u->state) && u->due_ms <= 0) {
        out[i] = Status::InvalidArgument("a scheduled URL needs a due date");
        continue;
      }
      if (u->depth < 1 || u->priority > 9999) {
        out[i] = Status::InvalidArgument("depth or priority out of range");
        continue;
      }
      if (u->data) {
        if (Status s = UrlValues::CheckSize(*u->data, opts_.max_url_data);
            !s.ok()) {
          out[i] = s;
          continue;
        }
      }
      const SiteRef site = site_names_.SiteFor(r->norm.host, r->key.host_fp,
                                               opts_.politeness_scope);
      if (tombstones_.Holds(site.fp)) {
        out[i] = Status::InvalidArgument("its site is being deleted");
        continue;
      }
      resolved[i] = std::move(r).value();
    } else if (const ImportSite* site = std::get_if<ImportSite>(&item)) {
      StatusOr<std::string> name = resolver_.SiteName(site->name);
      if (!name.ok()) {
        out[i] = name.status();
      } else if (tombstones_.Holds(Fingerprint(*name))) {
        out[i] = Status::InvalidArgument("site '" + *name +
                                         "' is being deleted");
      } else if (*name != site->name) {
        out[i] = Status::InvalidArgument("site '" + site->name +
                                         "' is not a site under this server's "
                                         "politeness-scope (it would be '" +
                                         *name + "')");
      }
    } else {
      const ImportRobots& p = std::get<ImportRobots>(item);
      StatusOr<Resolved> r = resolver_.Url(p.origin + "/", "invalid origin");
      if (!r.ok()) {
        out[i] = r.status();
      } else if (OriginOf(r->norm) != p.origin) {
        out[i] = Status::InvalidArgument("'" + p.origin +
                                         "' is not a normalised origin");
      } else if (!p.rules.empty() && !robots::AllowedStored(p.rules, "/")) {
        out[i] = Status::InvalidArgument("undecodable robots rules");
      }
    }
  }

  Status s = RunWrite([&](DbTxn* t) {
    for (size_t i = 0; i < n; ++i) {
      if (!out[i].ok()) continue;
      const ImportItem& item = batch.items[i];
      ImportOutcome outcome = ImportOutcome::kApplied;
      Status ws;
      if (const ImportUrl* u = std::get_if<ImportUrl>(&item)) {
        ws = ImportUrlRecord(t, *u, *resolved[i], now_ms, &outcome);
      } else if (const ImportSite* site = std::get_if<ImportSite>(&item)) {
        ws = ImportSiteRecord(t, *site, now_ms);
      } else {
        ws = ImportPolicy(t, std::get<ImportRobots>(item), &outcome);
      }
      if (!ws.ok()) return ws;
      out[i] = outcome;
    }
    return Status::OK();
  });
  if (!s.ok()) return s;
  return out;
}

Status FrontierImpl::ImportUrlRecord(DbTxn* t, const ImportUrl& in,
                                     const Resolved& url, int64_t now_ms,
                                     ImportOutcome* out) {
  UrlRecord rec;
  Status s = LoadUrl(t, url.key, &rec);
  if (s.ok()) {
    *out = ImportOutcome::kKept;  // the merge rule: what is known stays
    return Status::OK();
  }
  if (!s.IsNotFound()) return s;

  const SiteRef site_of = site_names_.SiteFor(url.norm.host, url.key.host_fp,
                                              opts_.politeness_scope);
  const uint64_t site_fp = site_of.fp;
  SiteRecord site;
  s = sites_.Load(t, site_fp, &site);
  const bool new_site = s.IsNotFound();
  if (!s.ok() && !new_site) return s;
  if (new_site) site.name.assign(site_of.name);
  s = Status::OK();

  rec = UrlRecord();
  rec.depth = in.depth;
  rec.priority = in.priority;
  rec.attempts = in.attempts;
  rec.backlinks = in.backlinks;
  rec.site_fp = site_fp;
  rec.recrawl_ms = in.recrawl_ms > 0 ? in.recrawl_ms : 0;
  rec.last_fetch_ms = in.last_fetch_ms;
  rec.created_ms = in.created_ms > 0 ? in.created_ms : now_ms;
  rec.url = url.norm.url;
  rec.state = in.state;
  if (in.state == StoredState::kQueued) {
    // A queued URL's date under `order date` (QueueDateOf); the other
    // orders clear it.
    rec.due_ms = std::max<int64_t>(0, in.due_ms);
    s = Enqueue(t, url.key, &rec, &site);
  } else if (IsScheduled(in.state)) {
    rec.due_ms = in.due_ms;
    s = timers_.Add(t, in.due_ms, url.key);
  } else if (in.state == StoredState::kExcluded) {
    s = excluded_.Put(
        t, EncodeExcludedKey(Fingerprint(OriginOf(url.norm)), url.key), "");
  }
  if (s.ok() && in.data) s = values_.Set(t, url.key, &rec, in.data);
  if (s.ok()) s = urls_.Store(t, url.key, rec);
  if (!s.ok()) return s;
  site.urls++;
  CountMove(&site, std::nullopt, rec.state);
  sites_.Store(site_fp, site);
  s = PlaceSite(t, site_fp, site, now_ms);
  if (!s.ok()) return s;
  if (new_site) CountNewSite(site);
  stats_.urls++;
  *out = ImportOutcome::kApplied;
  return Status::OK();
}

Status FrontierImpl::ImportSiteRecord(DbTxn* t, const ImportSite& in,
                                      int64_t now_ms) {
  const uint64_t site_fp = Fingerprint(in.name);
  SiteRecord site;
  Status s = sites_.Load(t, site_fp, &site);
  const bool new_site = s.IsNotFound();
  if (!s.ok() && !new_site) return s;
  if (new_site) site.name = in.name;
  site.delay_ms = in.delay_ms;
  site.next_allowed_ms = in.next_allowed_ms;
  site.block_until_ms = in.block_until_ms;
  site.backoffs = in.backoffs;
  site.max_urls = in.max_urls;
  site.robots_delay_ms = in.robots_delay_ms;
  site.adaptive_delay_ms = in.adaptive_delay_ms;
  sites_.Store(site_fp, site);
  s = PlaceSite(t, site_fp, site, now_ms);
  if (s.ok() && new_site) CountNewSite(site);
  return s;
}

Status FrontierImpl::ImportPolicy(DbTxn* t, const ImportRobots& in,
                                  ImportOutcome* out) {
  const uint64_t origin_fp = Fingerprint(in.origin);
  PolicyRecord rec;
  Status s = robots_.Load(t, origin_fp, &rec);
  if (s.ok()) {
    *out = ImportOutcome::kKept;
    return Status::OK();
  }
  if (!s.IsNotFound()) return s;
  rec = in;
  if (rec.state == RobotsState::kFetching) {
    // Its fetch belongs to a worker of the old server.
    rec.state = RobotsState::kUnknown;
    rec.until_ms = 0;
  }
  rec.recheck = false;
  rec.recheck_started = false;
  rec.recheck_after = UrlKey();
  *out = ImportOutcome::kApplied;
  return robots_.Store(t, origin_fp, rec);
}

}  // namespace frontier
