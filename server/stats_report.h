// The numbers that INFO, /metrics and /api/stats all report, gathered by
// the functions here so that the three never disagree: each reads the
// ServerStats the loop keeps and the Frontier's own accessors through
// them (STATS's and INFO's frontier fields come from FrontierStatsFields,
// server/commands/commands.h).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

#include "server/server_stats.h"

namespace frontier {

// INFO's "# Stats" counters, in its order: (INFO name, value).
using ServerCounterFields =
    std::array<std::pair<std::string_view, uint64_t>, 8>;
ServerCounterFields ServerCounters(const ServerStats& s);

// This process's resident set size in bytes (from /proc/self/statm); 0 if
// it cannot be read.
uint64_t ProcessRssBytes();

// Hits / (hits + misses), or 0 before the first lookup.
double HitRatio(uint64_t hits, uint64_t misses);

}  // namespace frontier
