// FrontierImpl: robots.txt applied by the frontier (issue 8 §1): the gate
// POP puts in front of each site's head, the robots fetch's reports, the
// re-check of excluded URLs, and ROBOTS GET/SET/CHECK. docs/robots.md ("The
// server's robots policy") states each choice and the RFC 9309 section
// behind it.
#include <algorithm>

#include "policy/backoff.h"
#include "robots/agent_rules.h"
#include "robots/matcher.h"
#include "robots/rules.h"
#include "storage/frontier_impl.h"

namespace frontier {

namespace {

// The depth of the robots fetches the frontier queues itself: no URL a
// client adds has depth 0, and depth 0 with priority 0 is the first
// position of a site's queue in either order.
constexpr uint16_t kRobotsDepth = 0;
constexpr uint16_t kRobotsPriority = 0;
constexpr std::string_view kRobotsPath = "/robots.txt";

bool FreshRules(const PolicyRecord& p, int64_t now_ms) {
  return (p.state == RobotsState::kOk || p.state == RobotsState::kAllowAll) &&
         p.expires_ms > now_ms && !p.rules.empty();
}

}  // namespace

bool FrontierImpl::IsRobotsFetch(const UrlRecord& rec) const {
  if (rec.depth == kRobotsDepth) return true;
  return opts_.robots && PathAndQueryOf(rec.url) == kRobotsPath;
}

Status FrontierImpl::GateHead(DbTxn* t, uint64_t site_fp, const UrlKey& key,
                              UrlRecord* rec, SiteRecord* site, int64_t now_ms,
                              bool* held) {
  *held = false;
  const std::string origin = OriginOf(rec->url);
  if (origin.empty()) return Status::OK();
  const uint64_t origin_fp = Fingerprint(origin);
  PolicyRecord p;
  Status s = robots_.Load(t, origin_fp, &p);
  const bool found = s.ok();
  if (!found && !s.IsNotFound()) return s;

  std::string_view rules;  // the rules to apply; empty: none (wait)
  int64_t wait_until = 0;
  if (found && FreshRules(p, now_ms)) {
    rules = p.rules;
  } else if (found && p.state == RobotsState::kFetching &&
             p.until_ms > now_ms) {
    wait_until = p.until_ms;  // a worker holds the robots.txt
  } else if (found && p.state == RobotsState::kUnreachable &&
             p.until_ms > now_ms) {
    // RFC 9309 §2.3.1.4: earlier rules stay; without them, nothing goes.
    rules = p.rules;
    wait_until = p.until_ms;
  } else {
    std::optional<int64_t> busy_until;
    s = QueueRobotsFetch(t, origin, site_fp, site, now_ms, &busy_until);
    if (!s.ok()) return s;
    *held = true;
    if (!busy_until) return Status::OK();  // the robots.txt is the head now
    if (p.state == RobotsState::kUnreachable) rules = p.rules;
    wait_until = *busy_until;
  }

  if (!rules.empty()) {
    std::optional<bool> allowed =
        robots::AllowedStored(rules, PathAndQueryOf(rec->url));
    if (!allowed) {
      return Status::Corruption("undecodable robots rules for " +
                                std::string(origin));
    }
    if (*allowed) {
      *held = false;
      // Crawls share the site: this crawl's fetch holds it for the
      // origin's Crawl-delay too, whichever crawl stored the rules (the
      // record of the crawl that did has it already).
      if (gate_on_) return site_policy_.AdoptCrawlDelay(rules, site);
      return Status::OK();
    }
    // Disallowed: out of the queue, into the origin's excluded index.
    *held = true;
    s = Dequeue(t, key, *rec, site);
    if (!s.ok()) return s;
    rec->state = StoredState::kExcluded;
    rec->due_ms = 0;
    s = urls_.Store(t, key, *rec);
    if (s.ok()) s = excluded_.Put(t, EncodeExcludedKey(origin_fp, key), "");
    if (!s.ok()) return s;
    CountMove(site, StoredState::kQueued, StoredState::kExcluded);
    sites_.Store(site_fp, *site);
    return PlaceSite(t, site_fp, *site, now_ms);
  }
  // Nothing of this origin may go until its robots.txt is in: the site
  // waits (its head stays first). The robots report re-places it.
  *held = true;
  site->next_allowed_ms =
      std::max({site->next_allowed_ms, wait_until, now_ms + 1});
  sites_.Store(site_fp, *site);
  return PlaceSite(t, site_fp, *site, now_ms);
}

Status FrontierImpl::GateRobotsFetch(DbTxn* t, uint64_t site_fp,
                                     const UrlKey& key, UrlRecord* rec,
                                     SiteRecord* site, int64_t now_ms,
                                     bool* held) {
  *held = false;
  const std::string origin = OriginOf(rec->url);
  if (origin.empty()) return Status::OK();
  PolicyRecord p;
  Status s = robots_.Load(t, Fingerprint(origin), &p);
  if (s.IsNotFound()) return Status::OK();  // nobody fetched it yet
  if (!s.ok()) return s;
  if (FreshRules(p, now_ms)) {
    // A URL a client added (depth > 0) is fetched as asked.
    if (rec->depth != kRobotsDepth) return Status::OK();
    *held = true;
    s = Dequeue(t, key, *rec, site);
    if (!s.ok()) return s;
    rec->state = StoredState::kDone;
    rec->due_ms = 0;
    s = urls_.Store(t, key, *rec);
    if (!s.ok()) return s;
    CountMove(site, StoredState::kQueued, StoredState::kDone);
    sites_.Store(site_fp, *site);
    return PlaceSite(t, site_fp, *site, now_ms);
  }
  const bool busy = (p.state == RobotsState::kFetching ||
                     p.state == RobotsState::kUnreachable) &&
                    p.until_ms > now_ms;
  if (!busy) return Status::OK();
  // Another crawl's fetch is in flight (its report is not signalled here:
  // looked at again after HostGate::kRecheckMs), or its back-off runs.
  *held = true;
  const int64_t until =
      p.state == RobotsState::kFetching
          ? std::min(p.until_ms, now_ms + HostGate::kRecheckMs)
          : p.until_ms;
  site->next_allowed_ms = std::max(site->next_allowed_ms, until);
  sites_.Store(site_fp, *site);
  return PlaceSite(t, site_fp, *site, now_ms);
}

Status FrontierImpl::QueueRobotsFetch(DbTxn* t, std::string_view origin,
                                      uint64_t site_fp, SiteRecord* site,
                                      int64_t now_ms,
                                      std::optional<int64_t>* busy_until) {
  busy_until->reset();
  StatusOr<Resolved> target = resolver_.Url(
      std::string(origin) + std::string(kRobotsPath), "invalid URL");
  if (!target.ok()) return Status::Corruption(target.status().message());
  const UrlKey& key = target->key;
  UrlRecord rec;
  Status s = LoadUrl(t, key, &rec);
  std::optional<StoredState> from;
  if (s.IsNotFound()) {
    rec = UrlRecord();
    rec.site_fp = site_fp;
    rec.url = target->norm.url;
    rec.created_ms = now_ms;
    site->urls++;
    stats_.urls++;
  } else if (!s.ok()) {
    return s;
  } else if (rec.url != target->norm.url) {
    return Status::Corruption("robots.txt URL collides with stored URL " +
                              rec.url);
  } else {
    if (rec.state == StoredState::kLeased ||
        rec.state == StoredState::kScheduledRetry) {
      *busy_until = rec.due_ms;
      return Status::OK();
    }
    from = rec.state;
    s = Detach(t, key, rec, site);  // queued again at the top below
    if (!s.ok()) return s;
  }
  rec.depth = kRobotsDepth;
  rec.priority = kRobotsPriority;
  rec.attempts = 0;
  s = Enqueue(t, key, &rec, site);
  if (s.ok()) s = urls_.Store(t, key, rec);
  if (!s.ok()) return s;
  CountMove(site, from, StoredState::kQueued);
  sites_.Store(site_fp, *site);
  return PlaceSite(t, site_fp, *site, now_ms);
}

Status FrontierImpl::NoteRobotsLeased(DbTxn* t, const UrlRecord& rec) {
  const std::string origin = OriginOf(rec.url);
  const uint64_t origin_fp = Fingerprint(origin);
  PolicyRecord p;
  Status s = robots_.LoadOrNew(t, origin, origin_fp, &p);
  if (!s.ok()) return s;
  p.state = RobotsState::kFetching;
  p.until_ms = rec.due_ms;
  return robots_.Store(t, origin_fp, p);
}

Status FrontierImpl::ApplyRobotsReport(DbTxn* t, uint64_t origin_fp,
                                       PolicyRecord* p,
                                       std::optional<int> status,
                                       std::string_view body, SiteRecord* site,
                                       int64_t now_ms, bool* unreachable) {
  const int code = status.value_or(0);
  // §2.3.1.4: a server error, 429 (and FAIL: no answer at all) means
  // unreachable. A 1xx is no final answer either. Everything else is a
  // file (2xx) or its absence (3xx after the worker's redirects, 4xx:
  // §2.3.1.2, §2.3.1.3), and so is a CONFIRM without STATUS.
  *unreachable = status && (code == kFailStatus || code < 200 || code == 429 ||
                            code >= 500);
  p->status = code == kFailStatus ? 0 : code;
  if (*unreachable) {
    p->state = RobotsState::kUnreachable;
    p->failures++;
    // The operator's back-off series (issue 18 §2), as for a site's 503.
    std::uniform_real_distribution<double> random01(0.0, 1.0);
    p->until_ms =
        now_ms + policy::BackoffDelayMs(site_policy_.BackoffSeries(),
                                        p->failures, random01(robots_rng_));
    return robots_.Store(t, origin_fp, *p);
  }
  robots::Rules rules;  // 3xx, 4xx, no STATUS: no restrictions
  p->state = RobotsState::kAllowAll;
  if (status && code >= 200 && code < 300) {
    robots::ParseOptions options;
    options.max_bytes = opts_.robots_max_bytes;
    rules = robots::RulesForAgent(body, opts_.robots_agent, options);
    p->state = RobotsState::kOk;
  }
  std::string stored = rules.Serialize();
  if (stored != p->rules) {
    // New rules: URLs excluded under the old ones are checked again.
    p->recheck = true;
    p->recheck_started = false;
    p->rules = std::move(stored);
  }
  p->fetched_ms = now_ms;
  p->expires_ms = now_ms + opts_.robots_ttl_ms;
  p->until_ms = 0;
  p->failures = 0;
  if (site != nullptr) {
    // The site's delay in force follows the origin last fetched (with
    // politeness-scope domain a site may span several origins).
    site->robots_delay_ms = site_policy_.RobotsDelayOf(rules.crawl_delay_ms);
  }
  return robots_.Store(t, origin_fp, *p);
}

Status FrontierImpl::ReportRobotsFetch(DbTxn* t, const UrlKey& key,
                                       UrlRecord* rec,
                                       std::optional<int> status,
                                       std::string_view body, int64_t now_ms) {
  const std::string origin = OriginOf(rec->url);
  const uint64_t origin_fp = Fingerprint(origin);
  PolicyRecord p;
  Status s = robots_.LoadOrNew(t, origin, origin_fp, &p);
  if (!s.ok()) return s;
  SiteRecord site;
  s = sites_.Load(t, rec->site_fp, &site);
  if (!s.ok()) return s;
  const StoredState from = rec->state;
  s = Detach(t, key, *rec, &site);
  if (!s.ok()) return s;
  bool unreachable = false;
  s = ApplyRobotsReport(t, origin_fp, &p, status, body, &site, now_ms,
                        &unreachable);
  if (!s.ok()) return s;
  rec->depth = kRobotsDepth;
  rec->priority = kRobotsPriority;
  rec->last_fetch_ms = now_ms;
  if (unreachable) {
    // Retried at the back-off time; a robots fetch never dies of it.
    rec->state = StoredState::kScheduledRetry;
    rec->due_ms = p.until_ms;
    s = timers_.Add(t, rec->due_ms, key);
  } else {
    rec->state = StoredState::kDone;
    rec->due_ms = 0;
  }
  if (s.ok()) s = urls_.Store(t, key, *rec);
  if (!s.ok()) return s;
  // The site waited for this report (GateHead parked it): from now on it
  // is spaced by its delay from this fetch only.
  site.next_allowed_ms = now_ms + site_policy_.DelayOf(site);
  CountMove(&site, from, rec->state);
  sites_.Store(rec->site_fp, site);
  s = PlaceSite(t, rec->site_fp, site, now_ms);
  if (!s.ok()) return s;
  return StartRecheck(t, origin_fp, &p, now_ms);
}

// --- ROBOTS GET / SET / CHECK ------------------------------------------

StatusOr<bool> FrontierImpl::HoldsUrlOfOrigin(uint64_t host_fp,
                                             std::string_view origin) {
  // U is keyed by (host, URL) fingerprints: one descent finds the host's
  // first URL. Its other origins (scheme, port) are mixed in by URL
  // fingerprint, so the scan stops at the first match; past
  // kOriginScanMax records of other origins it answers true (docs/robots.md).
  constexpr int kOriginScanMax = 4096;
  bdb::Cursor c;
  Status s = c.Open(&urls_.db(), nullptr);
  if (!s.ok()) return s;
  std::string key, value;
  s = c.Seek(EncodeUrlKey(UrlKey{host_fp, 0}), &key, &value);
  for (int seen = 0; s.ok(); ++seen, s = c.Next(&key, &value)) {
    UrlKey k;
    UrlRecord rec;
    if (!DecodeUrlKey(key, &k) || k.host_fp != host_fp) return false;
    if (seen == kOriginScanMax) return true;
    if (!DecodeUrlRecord(value, &rec)) {
      return Status::Corruption("undecodable URL record");
    }
    if (OriginOf(rec.url) == origin) return true;
  }
  if (s.IsNotFound()) return false;
  return s;
}

StatusOr<std::optional<RobotsInfo>> FrontierImpl::RobotsGet(
    std::string_view origin_or_url) {
  StatusOr<Resolved> target = resolver_.Url(origin_or_url, "invalid URL");
  if (!target.ok()) return target.status();
  const std::string origin = OriginOf(target->norm);
  PolicyRecord p;
  Status s = robots_.Load(nullptr, Fingerprint(origin), &p);
  if (s.IsNotFound()) {
    // No fetch yet: an origin the frontier holds URLs of is "unknown".
    StatusOr<bool> held = HoldsUrlOfOrigin(target->key.host_fp, origin);
    if (!held.ok()) return held.status();
    if (!*held) return std::optional<RobotsInfo>();
    RobotsInfo info;
    info.origin = origin;
    info.state = RobotsStateName(RobotsState::kUnknown);
    return std::optional<RobotsInfo>(std::move(info));
  }
  if (!s.ok()) return s;
  RobotsInfo info;
  info.origin = p.origin;
  info.state = RobotsStateName(p.state);
  info.status = p.status;
  info.fetched_ms = p.fetched_ms;
  info.expires_ms = p.expires_ms;
  if (!p.rules.empty()) {
    std::optional<robots::Rules> rules = robots::Rules::Parse(p.rules);
    if (!rules) return Status::Corruption("undecodable robots rules");
    info.crawl_delay_ms = rules->crawl_delay_ms;
    info.groups = rules->groups;
    for (const robots::Rule& r : rules->rules) {
      info.rules.push_back((r.allow ? "allow " : "disallow ") + r.pattern);
    }
    info.sitemaps = std::move(rules->sitemaps);
  }
  return std::optional<RobotsInfo>(std::move(info));
}

Status FrontierImpl::RobotsSet(std::string_view origin_arg, int status,
                               std::string_view body, int64_t now_ms) {
  if (status < 100 || status > 599) {
    return Status::InvalidArgument("status must be between 100 and 599");
  }
  StatusOr<Resolved> target = resolver_.Url(origin_arg, "invalid origin");
  if (!target.ok()) return target.status();
  const std::string origin = OriginOf(target->norm);
  if (target->norm.url != origin + "/") {
    return Status::InvalidArgument(
        "invalid origin '" + std::string(origin_arg) +
        "': expected scheme://host[:port] with no path, query or fragment");
  }
  const uint64_t origin_fp = Fingerprint(origin);
  const SiteRef site_of = site_names_.SiteFor(
      target->norm.host, target->key.host_fp, opts_.politeness_scope);
  const uint64_t site_fp = site_of.fp;
  const std::string site_name(site_of.name);
  return RunWrite([&](DbTxn* t) {
    PolicyRecord p;
    Status s = robots_.LoadOrNew(t, origin, origin_fp, &p);
    if (!s.ok()) return s;
    SiteRecord site;
    s = sites_.Load(t, site_fp, &site);
    const bool new_site = s.IsNotFound();
    if (!s.ok() && !new_site) return s;
    if (new_site) site.name = site_name;
    bool unreachable = false;
    s = ApplyRobotsReport(t, origin_fp, &p, status, body, &site, now_ms,
                          &unreachable);
    if (!s.ok()) return s;
    // A site parked for this origin's robots.txt may go now.
    site.next_allowed_ms =
        std::min(site.next_allowed_ms, now_ms + site_policy_.DelayOf(site));
    sites_.Store(site_fp, site);
    if (new_site) CountNewSite(site);
    s = PlaceSite(t, site_fp, site, now_ms);
    if (!s.ok()) return s;
    return StartRecheck(t, origin_fp, &p, now_ms);
  });
}

StatusOr<std::optional<bool>> FrontierImpl::RobotsCheck(std::string_view url) {
  StatusOr<Resolved> target = resolver_.Url(url, "invalid URL");
  if (!target.ok()) return target.status();
  const std::string origin = OriginOf(target->norm);
  // A site being deleted keeps its policy records until Tick removes
  // them; it is unknown already.
  const SiteRef site = site_names_.SiteFor(
      target->norm.host, target->key.host_fp, opts_.politeness_scope);
  const bool deleted = tombstones_.Holds(site.fp);
  PolicyRecord p;
  Status s = deleted ? Status::NotFound("site deleted")
                     : robots_.Load(nullptr, Fingerprint(origin), &p);
  if (s.IsNotFound() || (s.ok() && p.rules.empty())) {
    return std::optional<bool>();
  }
  if (!s.ok()) return s;
  std::optional<bool> allowed =
      robots::AllowedStored(p.rules, PathAndQueryOf(target->norm.url));
  if (!allowed) return Status::Corruption("undecodable robots rules");
  return allowed;
}

}  // namespace frontier
