// The advice the frontier publishes to a partition's workers on
// `frontier:hints:<partition>` (WEB-SAILOR's slow-down / hurry-up), as a
// pure function of what the partition holds and what its workers do.
// docs/commands.md (HINT) states the same rule for users.
#pragma once

#include <cstdint>
#include <string_view>

namespace frontier::partition {

enum class Advice { kHurryUp, kSteady, kSlowDown };

// "hurry-up", "steady", "slow-down".
std::string_view AdviceName(Advice advice);

struct HintInputs {
  // n: how many fetches the partition could have running at once under
  // its politeness rules now: over its sites with URLs ready or leased,
  // each site's ready and leased URLs counted up to its lease cap.
  uint64_t capacity = 0;
  uint64_t ready_sites = 0;  // sites a POP could take a URL from now
  uint64_t leased = 0;       // URLs of the partition leased to workers
  uint64_t waiting = 0;      // BPOP clients waiting on this partition
};

// The rule, first match wins:
//   slow-down  if waiting > 0 and ready_sites == 0 (workers idle in BPOP
//              with nothing to give them), or leased > capacity (workers
//              hold more than politeness allows, e.g. after the lease cap
//              was lowered);
//   hurry-up   if ready_sites > 0, waiting == 0 and 4 * leased <
//              3 * capacity (ready sites stay unserved while the workers
//              hold under three quarters of what could run);
//   steady     otherwise.
Advice Advise(const HintInputs& in);

}  // namespace frontier::partition
