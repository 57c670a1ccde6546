// The back-off series for a site that answers 429 or 503 (issue 8 §2).
//
// The first back-off of a site blocks it for `initial_ms`; each further
// back-off in a row doubles that, up to `max_ms`; a successful fetch ends
// the series (the caller resets its count). Each block is spread by a
// random ±jitter so that many sites blocked together do not all come back
// at the same moment. A Retry-After from the server replaces the series'
// delay (capped at `max_ms`, without jitter: the server named a time).
//
// The randomness is a plain argument, a number in [0, 1) that the caller
// draws from its own source; tests pass fixed values and get fixed delays.
#pragma once

#include <cstdint>
#include <optional>

namespace frontier::policy {

struct BackoffPolicy {
  int64_t initial_ms = 60 * 1000;   // backoff-initial
  int64_t max_ms = 86400 * 1000LL;  // backoff-max
  double jitter = 0.10;             // ±10%
};

// The block for the `backoffs_in_row`-th back-off of a series (1 for the
// first; 0 is read as 1): initial_ms × 2^(backoffs_in_row − 1), at most
// max_ms, then scaled by 1 + jitter × (2 × random01 − 1) and kept within
// [0, max_ms]. random01 = 0.5 gives the delay without jitter; values
// outside [0, 1) are clamped into it.
int64_t BackoffDelayMs(const BackoffPolicy& policy, uint32_t backoffs_in_row,
                       double random01);

// How long to block a site for one back-off: `retry_after_ms` (from
// RetryAfterDelayMs) capped at max_ms when the server sent one, else
// BackoffDelayMs.
int64_t BlockDelayMs(const BackoffPolicy& policy, uint32_t backoffs_in_row,
                     std::optional<int64_t> retry_after_ms, double random01);

}  // namespace frontier::policy
