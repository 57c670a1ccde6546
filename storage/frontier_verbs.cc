// FrontierImpl: the verbs clients call (ADD, MADD, POP, CONFIRM, FAIL,
// RECRAWL, SEEN, URLINFO, DELAY).
#include <algorithm>
#include <cctype>
#include <limits>

#include "policy/recrawl.h"
#include "storage/frontier_impl.h"

namespace frontier {

namespace {
constexpr int kMaxStoredDepth = std::numeric_limits<uint16_t>::max();
// Heads one PopOne may hold back (robots.txt) before it gives up.
constexpr int kMaxHeldHeads = 64;
}  // namespace

const char* UrlStateName(UrlState state) {
  switch (state) {
    case UrlState::kQueued:
      return "queued";
    case UrlState::kLeased:
      return "leased";
    case UrlState::kDone:
      return "done";
    case UrlState::kScheduled:
      return "scheduled";
    case UrlState::kDead:
      return "dead";
    case UrlState::kExcluded:
      return "excluded";
  }
  return "unknown";
}

Status FrontierImpl::LoadRefContext(DbTxn* t, const Resolved& ref,
                                    RefContext* out) {
  out->depth_site_fp =
      site_names_.SiteFor(ref.norm.host, ref.key.host_fp, opts_.depth_scope).fp;
  UrlRecord rec;
  Status s = LoadUrl(t, ref.key, &rec);
  if (s.ok() && rec.url == ref.norm.url) {
    out->depth = rec.depth;
  } else if (!s.ok() && !s.IsNotFound()) {
    return s;
  }
  return Status::OK();
}

Status FrontierImpl::AddKnown(DbTxn* t, const Resolved& url,
                              const AddOptions& options, int64_t now_ms,
                              UrlRecord* rec, AddOutcome* out) {
  if (rec->url != url.norm.url) {
    // Two URLs of one host share a 64-bit fingerprint: refuse the new one
    // loudly rather than merge them.
    return Status::InvalidArgument(
        "invalid URL: fingerprint collides with stored URL " + rec->url);
  }
  stats_.duplicates++;
  *out = AddOutcome::kKnown;
  if (options.replace_data) {
    Status ds = values_.Set(t, url.key, rec, options.data);
    if (!ds.ok()) return ds;
  }
  // Under `order popularity` a queued URL's Q key holds its back-link
  // class: when the class grows (at 1, 3, 7, 15 ... back-links) the key
  // moves. Otherwise only the record changes (in the bench's crawl, 72%
  // of the links to known URLs; docs/design.md).
  const bool moves =
      opts_.order == QueueOrder::kPopularity &&
      rec->state == StoredState::kQueued &&
      PopularityClass(rec->backlinks + 1) != PopularityClass(rec->backlinks);
  if (!moves) {
    rec->backlinks++;
    return urls_.Store(t, url.key, *rec);
  }
  // The site's record comes out as it went in (one URL out of Q, the same
  // one back in): it is not written; only the site's head may change.
  SiteRecord site;
  Status s = sites_.Load(t, rec->site_fp, &site);
  if (s.ok()) s = Dequeue(t, url.key, *rec, &site);
  rec->backlinks++;
  if (s.ok()) s = Enqueue(t, url.key, rec, &site);
  if (s.ok()) s = urls_.Store(t, url.key, *rec);
  if (!s.ok()) return s;
  return PlaceSite(t, rec->site_fp, site, now_ms);
}

Status FrontierImpl::AddOne(DbTxn* t, const Resolved& url,
                            const RefContext* ref, const AddOptions& options,
                            int64_t now_ms, bool likely_new, AddOutcome* out) {
  UrlRecord rec;
  // A known URL is never refused: when a refusal is due, look first.
  auto known_or = [&](Status refusal_or_ok) -> Status {
    if (!likely_new) return refusal_or_ok;
    Status ls = LoadUrl(t, url.key, &rec);
    if (ls.ok()) return AddKnown(t, url, options, now_ms, &rec, out);
    if (!ls.IsNotFound()) return ls;
    return refusal_or_ok;
  };
  if (!likely_new) {
    Status s = LoadUrl(t, url.key, &rec);
    if (s.ok()) return AddKnown(t, url, options, now_ms, &rec, out);
    if (!s.IsNotFound()) return s;
  }

  int depth = 1;
  if (ref != nullptr && ref->depth &&
      site_names_.SiteFor(url.norm.host, url.key.host_fp, opts_.depth_scope)
              .fp == ref->depth_site_fp) {
    depth = std::min(*ref->depth + 1, kMaxStoredDepth);
  }
  if (opts_.max_depth > 0 && depth > opts_.max_depth) {
    *out = AddOutcome::kRefused;
    Status s = known_or(Status::OK());
    if (s.ok() && *out == AddOutcome::kRefused) stats_.refused++;
    return s;
  }

  const SiteRef site_of = site_names_.SiteFor(url.norm.host, url.key.host_fp,
                                              opts_.politeness_scope);
  const uint64_t site_fp = site_of.fp;
  if (tombstones_.Holds(site_fp)) {
    // Its old records still await Tick's removal, and a new record could
    // not be told from them: refused until the removal ends (SITE DELETE).
    *out = AddOutcome::kRefused;
    stats_.refused++;
    return Status::OK();
  }
  SiteRecord site;
  Status s = sites_.Load(t, site_fp, &site);
  const bool new_site = s.IsNotFound();
  if (!s.ok() && !new_site) return s;
  if (new_site) site.name.assign(site_of.name);
  if (const uint64_t cap = site_policy_.UrlCapOf(site);
      cap > 0 && site.urls >= cap) {
    *out = AddOutcome::kRefused;
    s = known_or(Status::OK());
    if (s.ok() && *out == AddOutcome::kRefused) stats_.refused++;
    return s;
  }

  rec = UrlRecord();
  rec.depth = static_cast<uint16_t>(depth);
  rec.priority =
      static_cast<uint16_t>(options.priority.value_or(opts_.default_priority));
  rec.site_fp = site_fp;
  rec.recrawl_ms = std::max<int64_t>(0, options.recrawl_ms.value_or(0));
  rec.url = url.norm.url;
  rec.state = StoredState::kQueued;  // what Enqueue() makes it
  rec.created_ms = now_ms;
  rec.has_data = options.data.has_value();
  if (likely_new) {
    bool inserted = false;
    s = urls_.Insert(t, url.key, rec, &inserted);
    if (!s.ok()) return s;
    if (!inserted) {
      s = LoadUrl(t, url.key, &rec);
      return s.ok() ? AddKnown(t, url, options, now_ms, &rec, out) : s;
    }
    s = Enqueue(t, url.key, &rec, &site);
  } else {
    s = Enqueue(t, url.key, &rec, &site);
    if (s.ok()) s = urls_.Store(t, url.key, rec);
  }
  if (s.ok() && options.data) s = values_.Set(t, url.key, &rec, options.data);
  if (!s.ok()) return s;
  site.urls++;
  CountMove(&site, std::nullopt, StoredState::kQueued);
  sites_.Store(site_fp, site);
  s = PlaceSite(t, site_fp, site, now_ms);
  if (!s.ok()) return s;
  if (new_site) CountNewSite(site);
  stats_.urls++;
  stats_.added++;
  *out = AddOutcome::kAdded;
  return Status::OK();
}

StatusOr<AddOutcome> FrontierImpl::Add(std::string_view url,
                                       std::string_view ref,
                                       const AddOptions& options,
                                       int64_t now_ms) {
  if (options.priority && (*options.priority < 0 || *options.priority > 9999)) {
    return Status::InvalidArgument("priority must be between 0 and 9999");
  }
  if (options.data) {
    Status ds = UrlValues::CheckSize(*options.data, opts_.max_url_data);
    if (!ds.ok()) return ds;
  }
  StatusOr<Resolved> target = resolver_.Url(url, "invalid URL");
  if (!target.ok()) return target.status();
  std::optional<Resolved> source;
  if (!ref.empty()) {
    StatusOr<Resolved> r = resolver_.Url(ref, "invalid ref URL");
    if (!r.ok()) return r.status();
    source = std::move(r).value();
  }
  if (OutOfScope(*target, source ? &*source : nullptr)) {
    return AddOutcome::kOutOfScope;
  }
  AddOutcome outcome = AddOutcome::kKnown;
  Status s = RunWrite([&](DbTxn* t) {
    RefContext ctx;
    if (source) {
      Status rs = LoadRefContext(t, *source, &ctx);
      if (!rs.ok()) return rs;
    }
    return AddOne(t, *target, source ? &ctx : nullptr, options, now_ms,
                  /*likely_new=*/true, &outcome);
  });
  if (!s.ok()) return s;
  return outcome;
}

Status FrontierImpl::PopOne(DbTxn* t, std::optional<size_t> partition,
                            int64_t lease_ms, int64_t now_ms,
                            std::vector<std::string>* out,
                            std::vector<std::optional<std::string>>* data,
                            bool* popped, std::optional<uint64_t> only_site) {
  *popped = false;
  std::optional<std::pair<uint64_t, QueuePos>> first;
  SiteRecord site;
  UrlRecord rec;
  Status s;
  bool robots_fetch = false;
  // With `robots`, a head may be held back (excluded, or waiting for its
  // origin's robots.txt) and the next ready site tried: a bounded number
  // of times per URL handed out, so one POP's work stays bounded.
  for (int turn = 0;; ++turn) {
    if (turn == kMaxHeldHeads) return Status::OK();
    sched_.Promote(now_ms);
    first = only_site   ? sched_.ReadyHead(*only_site)
            : partition ? sched_.FirstReadyIn(*partition)
                        : sched_.FirstReady();
    if (!first) return Status::OK();
    s = sites_.Load(t, first->first, &site);
    if (!s.ok()) return s;
    if (gate_on_ && GateHolds(first->first, site, now_ms)) {
      // Another crawl fetches from the site or waits its delay: this
      // crawl waits too (PlaceSite places it by the gate).
      s = PlaceSite(t, first->first, site, now_ms);
      if (!s.ok()) return s;
      continue;
    }
    s = LoadUrl(t, first->second.url, &rec);
    if (!s.ok()) return s;
    if (rec.state != StoredState::kQueued || rec.site_fp != first->first) {
      return Status::Corruption("queue entry for a URL that is not queued: " +
                                rec.url);
    }
    robots_fetch = IsRobotsFetch(rec);
    if (!opts_.robots || (robots_fetch && !gate_on_)) break;
    bool held = false;
    s = robots_fetch ? GateRobotsFetch(t, first->first, first->second.url,
                                       &rec, &site, now_ms, &held)
                     : GateHead(t, first->first, first->second.url, &rec,
                                &site, now_ms, &held);
    if (!s.ok()) return s;
    if (!held) break;
  }
  const auto [site_fp, pos] = *first;
  s = Dequeue(t, pos.url, rec, &site);
  if (!s.ok()) return s;
  rec.state = StoredState::kLeased;
  rec.due_ms = now_ms + lease_ms;
  // Held in memory (journal mode) or written to Qc (timer_table.h).
  s = timers_.AddLease(t, rec.due_ms, pos.url);
  if (s.ok()) s = urls_.Store(t, pos.url, rec);
  if (!s.ok()) return s;
  site.leases++;
  site.next_allowed_ms =
      std::max(site.next_allowed_ms, now_ms + site_policy_.DelayOf(site));
  if (site.block_until_ms <= now_ms) site.block_until_ms = 0;  // block over
  CountMove(&site, StoredState::kQueued, StoredState::kLeased);
  sites_.Store(site_fp, site);
  s = PlaceSite(t, site_fp, site, now_ms);
  if (s.ok() && robots_fetch && opts_.robots) s = NoteRobotsLeased(t, rec);
  if (!s.ok()) return s;
  if (data != nullptr) {
    s = values_.Load(t, pos.url, rec, &data->emplace_back());
    if (!s.ok()) return s;
  }
  stats_.popped++;
  part_counts_[site_policy_.PartitionOf(site)].popped++;
  out->push_back(std::move(rec.url));
  *popped = true;
  return Status::OK();
}

StatusOr<std::vector<std::string>> FrontierImpl::Pop(size_t count,
                                                     int64_t lease_ms,
                                                     int64_t now_ms) {
  return PopFrom(std::nullopt, count, lease_ms, now_ms);
}

StatusOr<std::vector<std::string>> FrontierImpl::PopFrom(
    std::optional<size_t> partition, size_t count, int64_t lease_ms,
    int64_t now_ms, std::vector<std::optional<std::string>>* data,
    std::optional<uint64_t> site_fp) {
  // A site just elected master must not answer from a replica's memory.
  if (Status p = CatchUpPromotion(); !p.ok()) return p;
  StatusOr<TickResult> tick = TickCrawl(now_ms);  // this crawl's timers
  if (!tick.ok()) return tick.status();
  std::vector<std::string> urls;
  if (paused_) return urls;  // SetPaused(): nothing is handed out
  sched_.Promote(now_ms);
  const size_t ready =
      site_fp     ? (sched_.ReadyHead(*site_fp) ? 1 : 0)
      : partition ? sched_.ready_count_in(*partition)
                  : sched_.ready_count();
  if (count == 0 || ready == 0) return urls;
  if (lease_ms <= 0) lease_ms = opts_.lease_timeout_ms;
  Status s = RunWrite([&](DbTxn* t) {
    urls.clear();
    if (data != nullptr) data->clear();
    for (size_t i = 0; i < count; ++i) {
      bool popped = false;
      Status ps =
          PopOne(t, partition, lease_ms, now_ms, &urls, data, &popped, site_fp);
      if (!ps.ok()) return ps;
      if (!popped) break;
    }
    return Status::OK();
  });
  if (!s.ok()) return s;
  return urls;
}

StatusOr<bool> FrontierImpl::Confirm(std::string_view url,
                                     const ConfirmOptions& options,
                                     int64_t now_ms) {
  StatusOr<Resolved> target = resolver_.Url(url, "invalid URL");
  if (!target.ok()) return target.status();
  if (options.body && !IsRobotsTxtUrl(target->norm)) {
    return Status::InvalidArgument(
        "BODY is only for robots.txt URLs (path /robots.txt, no query)");
  }
  const UrlKey& key = target->key;
  bool confirmed = false;
  Status s = RunWrite([&](DbTxn* t) {
    UrlRecord rec;
    Status ls = LoadUrl(t, key, &rec);
    if (ls.IsNotFound()) return Status::OK();
    if (!ls.ok()) return ls;
    if (rec.url != target->norm.url || rec.state == StoredState::kDone) {
      return Status::OK();
    }
    if (IsRobotsFetch(rec)) {
      ls = ReportRobotsFetch(t, key, &rec, options.status,
                             options.body.value_or(std::string_view()), now_ms);
      if (!ls.ok()) return ls;
      // Counted as every confirmation is: STATS' confirmed_2xx says "URLs
      // confirmed with a STATUS of 200-299", robots.txt URLs included.
      stats_.confirmed++;
      if (options.status) CountStatusClass(*options.status);
      confirmed = true;
      return Status::OK();
    }
    SiteRecord site;
    ls = sites_.Load(t, rec.site_fp, &site);
    if (!ls.ok()) return ls;
    const StoredState from = rec.state;
    switch (rec.state) {
      case StoredState::kQueued:
        ls = Dequeue(t, key, rec, &site);
        break;
      case StoredState::kLeased:
        ls = EndLease(t, key, rec, &site);
        break;
      case StoredState::kScheduledRetry:
      case StoredState::kScheduledRecrawl:
        ls = timers_.Remove(t, rec.due_ms, key);
        break;
      case StoredState::kDone:
      case StoredState::kDead:
      case StoredState::kExcluded:  // leaves the excluded index lazily
        break;
    }
    if (!ls.ok()) return ls;
    rec.last_fetch_ms = now_ms;
    rec.attempts = 0;
    if (opts_.recrawl_adaptive && options.changed) {
      rec.recrawl_ms = policy::NextRecrawlPeriodMs(
          site_policy_.Recrawl(), rec.recrawl_ms,
          *options.changed ? policy::ContentChange::kChanged
                           : policy::ContentChange::kUnchanged);
    }
    if (rec.recrawl_ms > 0) {
      rec.state = StoredState::kScheduledRecrawl;
      rec.due_ms = now_ms + rec.recrawl_ms;
      ls = timers_.Add(t, rec.due_ms, key);
      if (!ls.ok()) return ls;
    } else {
      rec.state = StoredState::kDone;
      rec.due_ms = 0;
    }
    site.backoffs = 0;  // the site answers again: its back-off series ends
    site.next_allowed_ms = std::max(
        site.next_allowed_ms,
        now_ms + site_policy_.DelayAfterFetch(&site, options.fetch_ms));
    ls = urls_.Store(t, key, rec);
    if (!ls.ok()) return ls;
    CountMove(&site, from, rec.state);
    sites_.Store(rec.site_fp, site);
    ls = PlaceSite(t, rec.site_fp, site, now_ms);
    if (!ls.ok()) return ls;
    stats_.confirmed++;
    if (options.status) CountStatusClass(*options.status);
    part_counts_[site_policy_.PartitionOf(site)].confirmed++;
    confirmed = true;
    return Status::OK();
  });
  if (!s.ok()) return s;
  return confirmed;
}

StatusOr<bool> FrontierImpl::Fail(std::string_view url,
                                  const FailOptions& options, int64_t now_ms) {
  const int64_t delay_ms = options.delay_ms;
  StatusOr<Resolved> target = resolver_.Url(url, "invalid URL");
  if (!target.ok()) return target.status();
  const UrlKey& key = target->key;
  bool failed = false;
  Status s = RunWrite([&](DbTxn* t) {
    UrlRecord rec;
    bool leased = false;
    Status ls = LoadLeased(t, *target, &rec, &leased);
    if (!ls.ok() || !leased) return ls;
    if (IsRobotsFetch(rec)) {
      // Unreachable (RFC 9309 §2.3.1.4): retried with back-off; it never
      // counts an attempt.
      ls = ReportRobotsFetch(t, key, &rec, kFailStatus, {}, now_ms);
      if (!ls.ok()) return ls;
      stats_.failed++;
      failed = true;
      return Status::OK();
    }
    SiteRecord site;
    ls = sites_.Load(t, rec.site_fp, &site);
    if (ls.ok()) ls = EndLease(t, key, rec, &site);
    if (!ls.ok()) return ls;
    // A back-off blocks the site instead of counting an attempt: a site
    // that rate-limits does not kill its URLs.
    const bool backoff = site_policy_.IsBackoffStatus(options.status);
    if (backoff) {
      BackOff(options, now_ms, &site);
    } else {
      rec.attempts++;
    }
    if (!backoff && rec.attempts >= opts_.max_attempts) {
      rec.state = StoredState::kDead;
      rec.due_ms = 0;
    } else {
      ls = Requeue(t, key, &rec, &site, delay_ms, now_ms);
    }
    site.next_allowed_ms =
        std::max(site.next_allowed_ms, now_ms + site_policy_.DelayOf(site));
    if (ls.ok()) ls = urls_.Store(t, key, rec);
    if (!ls.ok()) return ls;
    CountMove(&site, StoredState::kLeased, rec.state);
    sites_.Store(rec.site_fp, site);
    ls = PlaceSite(t, rec.site_fp, site, now_ms);
    if (!ls.ok()) return ls;
    stats_.failed++;
    failed = true;
    return Status::OK();
  });
  if (!s.ok()) return s;
  return failed;
}

StatusOr<bool> FrontierImpl::Recrawl(std::string_view url, int64_t period_ms,
                                     int64_t now_ms) {
  StatusOr<Resolved> target = resolver_.Url(url, "invalid URL");
  if (!target.ok()) return target.status();
  const UrlKey& key = target->key;
  bool known = false;
  Status s = RunWrite([&](DbTxn* t) {
    UrlRecord rec;
    Status ls = LoadUrl(t, key, &rec);
    if (ls.IsNotFound()) return Status::OK();
    if (!ls.ok()) return ls;
    if (rec.url != target->norm.url) return Status::OK();
    known = true;
    rec.recrawl_ms = std::max<int64_t>(0, period_ms);
    const StoredState from = rec.state;
    const bool waits_for_recrawl = rec.state == StoredState::kDone ||
                                   rec.state == StoredState::kScheduledRecrawl;
    if (!waits_for_recrawl) return urls_.Store(t, key, rec);

    SiteRecord site;
    ls = sites_.Load(t, rec.site_fp, &site);
    if (ls.ok() && rec.state == StoredState::kScheduledRecrawl) {
      ls = timers_.Remove(t, rec.due_ms, key);
    }
    if (!ls.ok()) return ls;
    if (rec.recrawl_ms == 0) {
      rec.state = StoredState::kDone;
      rec.due_ms = 0;
    } else if (rec.last_fetch_ms + rec.recrawl_ms <= now_ms) {
      ls = Enqueue(t, key, &rec, &site);
      stats_.recrawled++;
    } else {
      rec.state = StoredState::kScheduledRecrawl;
      rec.due_ms = rec.last_fetch_ms + rec.recrawl_ms;
      ls = timers_.Add(t, rec.due_ms, key);
    }
    if (ls.ok()) ls = urls_.Store(t, key, rec);
    if (!ls.ok()) return ls;
    CountMove(&site, from, rec.state);
    sites_.Store(rec.site_fp, site);
    return PlaceSite(t, rec.site_fp, site, now_ms);
  });
  if (!s.ok()) return s;
  return known;
}

StatusOr<bool> FrontierImpl::Seen(std::string_view url) {
  StatusOr<std::optional<UrlInfo>> info = Info(url);
  if (!info.ok()) return info.status();
  return info->has_value();
}

StatusOr<std::optional<UrlInfo>> FrontierImpl::Info(std::string_view url) {
  StatusOr<Resolved> target = resolver_.Url(url, "invalid URL");
  if (!target.ok()) return target.status();
  UrlRecord rec;
  Status s = LoadUrl(nullptr, target->key, &rec);
  if (s.IsNotFound() || (s.ok() && rec.url != target->norm.url)) {
    return std::optional<UrlInfo>();
  }
  if (!s.ok()) return s;
  UrlInfo info;
  s = values_.Load(nullptr, target->key, rec, &info.data);
  if (!s.ok()) return s;
  info.created_ms = rec.created_ms;
  info.url = rec.url;
  info.depth = rec.depth;
  info.priority = rec.priority;
  info.state = PublicState(rec.state);
  info.attempts = rec.attempts;
  info.backlinks = rec.backlinks;
  info.recrawl_ms = rec.recrawl_ms;
  info.due_ms = rec.due_ms;
  info.last_fetch_ms = rec.last_fetch_ms;
  return std::optional<UrlInfo>(std::move(info));
}

Status FrontierImpl::SetSiteDelay(std::string_view site_arg, int64_t delay_ms,
                                  int64_t now_ms) {
  StatusOr<std::string> name = resolver_.SiteName(site_arg);
  if (!name.ok()) return name.status();
  return UpdateSite(*name, now_ms, [&](SiteRecord* site) {
    site->delay_ms = delay_ms < 0 ? -1 : delay_ms;
    // A shorter delay takes effect now rather than after the old one ends.
    site->next_allowed_ms =
        std::min(site->next_allowed_ms, now_ms + site_policy_.DelayOf(*site));
  });
}

}  // namespace frontier
