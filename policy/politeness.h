// The delay between two fetches from one site (issue 8 §1 and §3).
//
// Three sources set it: the configured default (politeness-delay), an
// operator's DELAY for the site, and the site's robots.txt Crawl-delay.
// With politeness-delay-factor f > 0, the time the last fetch took (t)
// stretches it: clamp(f × t, base, politeness-max-delay), Heritrix's
// delayFactor, so that a slow site is visited less often and a fast one
// never more often than its base delay.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace frontier::policy {

struct PolitenessPolicy {
  int64_t delay_ms = 1000;                  // politeness-delay
  int64_t max_delay_ms = 30 * 1000;         // politeness-max-delay
  double delay_factor = 0;                  // politeness-delay-factor, 0 = off
  int64_t max_crawl_delay_ms = 300 * 1000;  // robots-max-crawl-delay
};

// Where the delay in force came from (SITE INFO's delay-source).
enum class DelaySource { kDefault, kAdaptive, kRobots, kSet };

// "default", "adaptive", "robots", "set".
std::string_view DelaySourceName(DelaySource source);

struct SiteDelayInputs {
  std::optional<int64_t> set_ms;          // DELAY for the site, if any
  std::optional<int64_t> crawl_delay_ms;  // robots.txt Crawl-delay, if any
  std::optional<int64_t> fetch_ms;        // FETCH-MS of the last CONFIRM
};

struct SiteDelay {
  int64_t ms = 0;
  DelaySource source = DelaySource::kDefault;

  bool operator==(const SiteDelay&) const = default;
};

// The delay before the site's next fetch.
//
// The base delay is the DELAY set for the site if any (an operator's
// choice wins over robots.txt, and may be below the default); otherwise
// the larger of politeness-delay and the Crawl-delay capped at
// max_crawl_delay_ms (robots.txt may slow a crawler down, never speed it
// up past its own default). With delay_factor > 0 and a fetch time, the
// delay is clamp(delay_factor × fetch_ms, base, max(max_delay_ms, base)):
// the base stays the lower bound even when above politeness-max-delay.
// Negative inputs count as 0. The source names what decided the result:
// kAdaptive when the fetch time raised it above the base.
SiteDelay SiteDelayAfterFetch(const PolitenessPolicy& policy,
                              const SiteDelayInputs& inputs);

}  // namespace frontier::policy
