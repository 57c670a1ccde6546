// SitePolicy: what the options make of a site record: the delay before
// its next fetch (its DELAY, politeness-delay, its robots.txt Crawl-delay,
// adaptive politeness), its URL and lease caps, its partition and its
// place in the scheduler, the back-off series, the recrawl policy.
//
// Pure: it reads the options and the record it is given, never the
// databases or the clock. Owned by FrontierImpl; `opts` (FrontierImpl's
// options, which UpdateOptions reassigns in place) must outlive it, and
// every answer follows the options as they are at the call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "policy/backoff.h"
#include "policy/politeness.h"
#include "policy/recrawl.h"
#include "storage/frontier_options.h"
#include "storage/records.h"
#include "storage/site_scheduler.h"
#include "util/status.h"

namespace frontier {

class SitePolicy {
 public:
  explicit SitePolicy(const FrontierOptions* opts) : opts_(opts) {}

  // The delay in force before the site's next fetch: its DELAY, else the
  // larger of politeness-delay and its robots.txt Crawl-delay.
  int64_t DelayOf(const SiteRecord& site) const;
  // The delay after a fetch that took `fetch_ms` (CONFIRM FETCH-MS): with
  // politeness-delay-factor > 0, stretched as policy/politeness.h says,
  // and then remembered in site->adaptive_delay_ms (-1 when the fetch did
  // not raise it above DelayOf). Without a fetch time, DelayOf.
  int64_t DelayAfterFetch(SiteRecord* site,
                          std::optional<int64_t> fetch_ms) const;
  // The delay SITE INFO reports: the last adaptive delay while adaptive
  // politeness is on and one is remembered, else DelayOf's.
  policy::SiteDelay DelayInForce(const SiteRecord& site) const;
  // A robots.txt Crawl-delay as a site record keeps it: capped by
  // robots-max-crawl-delay; -1 for none.
  int64_t RobotsDelayOf(std::optional<int64_t> crawl_delay_ms) const;
  // Sets `site`'s robots delay to the Crawl-delay of `rules` (an origin's
  // stored rules). Corruption if `rules` do not decode.
  Status AdoptCrawlDelay(std::string_view rules, SiteRecord* site) const;

  policy::RecrawlPolicy Recrawl() const;
  // The series every back-off follows (backoff-initial, backoff-max; the
  // caller draws the ±10% jitter): a site's, and an unreachable
  // robots.txt's.
  policy::BackoffPolicy BackoffSeries() const;
  // Whether a FAIL's status backs its site off (backoff-status-codes).
  bool IsBackoffStatus(std::optional<int> status) const;

  // The site's URL cap: its SITE LIMIT, else site-max-urls; 0 = none.
  uint64_t UrlCapOf(const SiteRecord& site) const {
    return site.max_urls > 0 ? site.max_urls : opts_->site_max_urls;
  }
  bool AtLeaseCap(const SiteRecord& site) const {
    return opts_->site_max_leases > 0 && site.leases >= opts_->site_max_leases;
  }
  // The site's partition (index in the options' partitions).
  size_t PartitionOf(const SiteRecord& site) const {
    return opts_->partitions.Match(site.name);
  }
  // The site's place in the scheduler, all but its head.
  SiteScheduler::Placement PlacementOf(const SiteRecord& site) const;

 private:
  policy::PolitenessPolicy Politeness() const;

  const FrontierOptions* opts_;
};

}  // namespace frontier
