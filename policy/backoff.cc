// The back-off series: see backoff.h.
#include "policy/backoff.h"

#include <algorithm>
#include <cmath>

namespace frontier::policy {

int64_t BackoffDelayMs(const BackoffPolicy& policy, uint32_t backoffs_in_row,
                       double random01) {
  const int64_t max_ms = std::max<int64_t>(policy.max_ms, 0);
  int64_t base = std::clamp<int64_t>(policy.initial_ms, 0, max_ms);
  for (uint32_t i = 1; i < backoffs_in_row && base < max_ms; ++i) {
    base = base > max_ms / 2 ? max_ms : base * 2;
  }
  if (!(random01 >= 0)) random01 = 0;  // also NaN
  if (random01 >= 1) random01 = 1;
  const double jitter = std::clamp(policy.jitter, 0.0, 1.0);
  const double scaled =
      static_cast<double>(base) * (1 + jitter * (2 * random01 - 1));
  return std::clamp<int64_t>(std::llround(scaled), 0, max_ms);
}

int64_t BlockDelayMs(const BackoffPolicy& policy, uint32_t backoffs_in_row,
                     std::optional<int64_t> retry_after_ms, double random01) {
  if (retry_after_ms) {
    return std::clamp<int64_t>(*retry_after_ms, 0,
                               std::max<int64_t>(policy.max_ms, 0));
  }
  return BackoffDelayMs(policy, backoffs_in_row, random01);
}

}  // namespace frontier::policy
