// The adaptive recrawl period (issue 8 §3; Nutch's AdaptiveFetchSchedule):
// a page that did not change since the last fetch is fetched less often,
// one that did is fetched more often.
#pragma once

#include <cstdint>

namespace frontier::policy {

struct RecrawlPolicy {
  double inc_rate = 0.4;               // recrawl-inc-rate
  double dec_rate = 0.2;               // recrawl-dec-rate
  int64_t min_ms = 60 * 1000;          // recrawl-min
  int64_t max_ms = 31536000 * 1000LL;  // recrawl-max
};

// What the worker said about the page it fetched.
enum class ContentChange { kNotSaid, kChanged, kUnchanged };

// The URL's next recrawl period: period × (1 + inc_rate) when kUnchanged,
// period × (1 − dec_rate) when kChanged, rounded to the millisecond and
// kept within [min_ms, max_ms]; `period_ms` as it is for kNotSaid. A
// period <= 0 (the URL has no recrawl period) is returned as it is: only
// URLs that have a period change.
int64_t NextRecrawlPeriodMs(const RecrawlPolicy& policy, int64_t period_ms,
                            ContentChange change);

}  // namespace frontier::policy
