// FrontierImpl: the per-site policy values a verb applies (politeness
// delay, adaptive delay, recrawl policy, URL and lease caps), derived from
// the options and the site record, and the status-class counters.
#include "policy/politeness.h"
#include "storage/frontier_impl.h"

namespace frontier {

policy::PolitenessPolicy FrontierImpl::PolitenessPolicyOf() const {
  policy::PolitenessPolicy p;
  p.delay_ms = opts_.politeness_delay_ms;
  p.max_delay_ms = opts_.politeness_max_delay_ms;
  p.delay_factor = opts_.politeness_delay_factor;
  p.max_crawl_delay_ms = opts_.robots_max_crawl_delay_ms;
  return p;
}

policy::RecrawlPolicy FrontierImpl::RecrawlPolicyOf() const {
  policy::RecrawlPolicy p;
  p.inc_rate = opts_.recrawl_inc_rate;
  p.dec_rate = opts_.recrawl_dec_rate;
  p.min_ms = opts_.recrawl_min_ms;
  p.max_ms = opts_.recrawl_max_ms;
  return p;
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

int64_t FrontierImpl::DelayOf(const SiteRecord& site) const {
  if (site.delay_ms >= 0) return site.delay_ms;  // the common fast path
  if (site.robots_delay_ms < 0 || !opts_.robots) {
    return opts_.politeness_delay_ms;
  }
  return policy::SiteDelayAfterFetch(PolitenessPolicyOf(), DelayInputsOf(site, opts_.robots))
      .ms;
}

int64_t FrontierImpl::DelayAfterFetch(SiteRecord* site,
                                      std::optional<int64_t> fetch_ms) const {
  if (!fetch_ms || !(opts_.politeness_delay_factor > 0)) return DelayOf(*site);
  policy::SiteDelayInputs in = DelayInputsOf(*site, opts_.robots);
  in.fetch_ms = fetch_ms;
  const policy::SiteDelay d =
      policy::SiteDelayAfterFetch(PolitenessPolicyOf(), in);
  site->adaptive_delay_ms =
      d.source == policy::DelaySource::kAdaptive ? d.ms : -1;
  return d.ms;
}

policy::SiteDelay FrontierImpl::DelayInForce(const SiteRecord& site) const {
  if (opts_.politeness_delay_factor > 0 && site.adaptive_delay_ms >= 0) {
    return {site.adaptive_delay_ms, policy::DelaySource::kAdaptive};
  }
  return policy::SiteDelayAfterFetch(PolitenessPolicyOf(), DelayInputsOf(site, opts_.robots));
}

uint64_t FrontierImpl::UrlCapOf(const SiteRecord& site) const {
  return site.max_urls > 0 ? site.max_urls : opts_.site_max_urls;
}

void FrontierImpl::CountStatusClass(int status) {
  switch (status / 100) {
    case 2:
      stats_.confirmed_2xx++;
      break;
    case 3:
      stats_.confirmed_3xx++;
      break;
    case 4:
      stats_.confirmed_4xx++;
      break;
    case 5:
      stats_.confirmed_5xx++;
      break;
    default:
      break;
  }
}

bool FrontierImpl::AtLeaseCap(const SiteRecord& site) const {
  return opts_.site_max_leases > 0 && site.leases >= opts_.site_max_leases;
}

}  // namespace frontier
