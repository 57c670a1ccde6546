// Site delays: see politeness.h.
#include "policy/politeness.h"

#include <algorithm>
#include <cmath>

namespace frontier::policy {

std::string_view DelaySourceName(DelaySource source) {
  switch (source) {
    case DelaySource::kDefault:
      return "default";
    case DelaySource::kAdaptive:
      return "adaptive";
    case DelaySource::kRobots:
      return "robots";
    case DelaySource::kSet:
      return "set";
  }
  return "default";
}

SiteDelay SiteDelayAfterFetch(const PolitenessPolicy& policy,
                              const SiteDelayInputs& inputs) {
  SiteDelay base{std::max<int64_t>(policy.delay_ms, 0), DelaySource::kDefault};
  if (inputs.set_ms) {
    base = {std::max<int64_t>(*inputs.set_ms, 0), DelaySource::kSet};
  } else if (inputs.crawl_delay_ms) {
    const int64_t robots =
        std::clamp<int64_t>(*inputs.crawl_delay_ms, 0,
                            std::max<int64_t>(policy.max_crawl_delay_ms, 0));
    if (robots > base.ms) base = {robots, DelaySource::kRobots};
  }
  if (!(policy.delay_factor > 0) || !inputs.fetch_ms) return base;

  const double wanted =
      policy.delay_factor *
      static_cast<double>(std::max<int64_t>(*inputs.fetch_ms, 0));
  const int64_t ceiling = std::max(policy.max_delay_ms, base.ms);
  if (!(wanted > static_cast<double>(base.ms))) return base;  // also NaN
  const int64_t adaptive =
      wanted >= static_cast<double>(ceiling) ? ceiling : std::llround(wanted);
  if (adaptive <= base.ms) return base;
  return {adaptive, DelaySource::kAdaptive};
}

}  // namespace frontier::policy
