// SitePolicy (site_policy.h): the per-site values a verb applies,
// derived from the options and the site record.
#include "storage/site_policy.h"

#include <algorithm>
#include <vector>

#include "robots/rules.h"

namespace frontier {

// Designated initializers: the compiler checks each field is named once
// and in order.
policy::PolitenessPolicy SitePolicy::Politeness() const {
  return {.delay_ms = opts_->politeness_delay_ms,
          .max_delay_ms = opts_->politeness_max_delay_ms,
          .delay_factor = opts_->politeness_delay_factor,
          .max_crawl_delay_ms = opts_->robots_max_crawl_delay_ms};
}

policy::RecrawlPolicy SitePolicy::Recrawl() const {
  return {.inc_rate = opts_->recrawl_inc_rate,
          .dec_rate = opts_->recrawl_dec_rate,
          .min_ms = opts_->recrawl_min_ms,
          .max_ms = opts_->recrawl_max_ms};
}

namespace {
// `robots`: whether robots.txt is obeyed (its Crawl-delay counts only then).
policy::SiteDelayInputs DelayInputsOf(const SiteRecord& site, bool robots) {
  policy::SiteDelayInputs in;
  if (site.delay_ms >= 0) in.set_ms = site.delay_ms;
  if (robots && site.robots_delay_ms >= 0) {
    in.crawl_delay_ms = site.robots_delay_ms;
  }
  return in;
}
}  // namespace

int64_t SitePolicy::DelayOf(const SiteRecord& site) const {
  if (site.delay_ms >= 0) return site.delay_ms;  // the common fast path
  if (site.robots_delay_ms < 0 || !opts_->robots) {
    return opts_->politeness_delay_ms;
  }
  return policy::SiteDelayAfterFetch(Politeness(),
                                     DelayInputsOf(site, opts_->robots))
      .ms;
}

int64_t SitePolicy::DelayAfterFetch(SiteRecord* site,
                                    std::optional<int64_t> fetch_ms) const {
  if (!fetch_ms || !(opts_->politeness_delay_factor > 0)) {
    return DelayOf(*site);
  }
  policy::SiteDelayInputs in = DelayInputsOf(*site, opts_->robots);
  in.fetch_ms = fetch_ms;
  const policy::SiteDelay d = policy::SiteDelayAfterFetch(Politeness(), in);
  site->adaptive_delay_ms =
      d.source == policy::DelaySource::kAdaptive ? d.ms : -1;
  return d.ms;
}

policy::SiteDelay SitePolicy::DelayInForce(const SiteRecord& site) const {
  if (opts_->politeness_delay_factor > 0 && site.adaptive_delay_ms >= 0) {
    return {site.adaptive_delay_ms, policy::DelaySource::kAdaptive};
  }
  return policy::SiteDelayAfterFetch(Politeness(),
                                     DelayInputsOf(site, opts_->robots));
}

int64_t SitePolicy::RobotsDelayOf(std::optional<int64_t> crawl_delay_ms) const {
  return crawl_delay_ms
             ? std::min(*crawl_delay_ms, opts_->robots_max_crawl_delay_ms)
             : -1;
}

Status SitePolicy::AdoptCrawlDelay(std::string_view rules,
                                   SiteRecord* site) const {
  std::optional<int64_t> delay;
  if (!robots::StoredCrawlDelay(rules, &delay)) {
    return Status::Corruption("undecodable robots rules");
  }
  site->robots_delay_ms = RobotsDelayOf(delay);
  return Status::OK();
}

policy::BackoffPolicy SitePolicy::BackoffSeries() const {
  policy::BackoffPolicy backoff;
  backoff.initial_ms = opts_->backoff_initial_ms;
  backoff.max_ms = opts_->backoff_max_ms;
  return backoff;
}

bool SitePolicy::IsBackoffStatus(std::optional<int> status) const {
  if (!status) return false;
  const std::vector<int>& codes = opts_->backoff_status_codes;
  return std::find(codes.begin(), codes.end(), *status) != codes.end();
}

SiteScheduler::Placement SitePolicy::PlacementOf(const SiteRecord& site) const {
  SiteScheduler::Placement p;
  // A site at its cap on done URLs is held as one at its lease cap: out
  // of the ready and waiting sites until it is placed again under a new
  // cap (or after a recrawl lowered its done count).
  const bool held = AtDoneLimit(site);
  p.at_lease_cap = AtLeaseCap(site) || held;
  // A blocked site waits for the end of its block like a politeness delay.
  p.next_allowed_ms = std::max(site.next_allowed_ms, site.block_until_ms);
  p.partition = static_cast<uint32_t>(PartitionOf(site));
  // The partition's capacity (HINT's n): a ready site could run its
  // leases and queued URLs at once, up to its lease cap; any other site
  // runs its leases.
  const uint64_t cap = opts_->site_max_leases;
  const uint64_t could_run = site.leases + site.queued;
  p.slots_other = cap == 0 ? site.leases : std::min(cap, site.leases);
  p.slots_ready = held       ? p.slots_other
                  : cap == 0 ? could_run
                             : std::min(cap, could_run);
  return p;
}

}  // namespace frontier
