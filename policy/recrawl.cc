// The adaptive recrawl period: see recrawl.h.
#include "policy/recrawl.h"

#include <algorithm>
#include <cmath>

namespace frontier::policy {

int64_t NextRecrawlPeriodMs(const RecrawlPolicy& policy, int64_t period_ms,
                            ContentChange change) {
  if (period_ms <= 0 || change == ContentChange::kNotSaid) return period_ms;
  const double factor = change == ContentChange::kUnchanged
                            ? 1 + std::max(policy.inc_rate, 0.0)
                            : 1 - std::clamp(policy.dec_rate, 0.0, 1.0);
  const int64_t lo = std::max<int64_t>(policy.min_ms, 1);
  const int64_t hi = std::max(policy.max_ms, lo);
  const double next = static_cast<double>(period_ms) * factor;
  if (!(next > static_cast<double>(lo))) return lo;  // also NaN
  if (next >= static_cast<double>(hi)) return hi;
  return std::llround(next);
}

}  // namespace frontier::policy
