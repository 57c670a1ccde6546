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
#include "storage/frontier.h"

namespace frontier {

// INFO's "# Stats" counters, in its order: (INFO name, value).
using ServerCounterFields =
    std::array<std::pair<std::string_view, uint64_t>, 9>;
ServerCounterFields ServerCounters(const ServerStats& s);

// This process's resident set size in bytes (from /proc/self/statm); 0 if
// it cannot be read.
uint64_t ProcessRssBytes();

// Hits / (hits + misses), or 0 before the first lookup.
double HitRatio(uint64_t hits, uint64_t misses);

// The Berkeley DB cache as INFO's "# Memory", /metrics and /api/stats
// report it. hits, misses and pages count since the environment opened;
// misses_per_command is the misses since the last CONFIG RESETSTAT over
// the commands processed since then (total_commands_processed), 0 before
// the first command: what a command costs in page reads.
struct CacheReport {
  CacheCounters counters;
  double hit_ratio = 0;
  double misses_per_command = 0;
};
// The frontier's CacheStats() error if Berkeley DB cannot report them.
StatusOr<CacheReport> ReadCacheReport(const Frontier& frontier,
                                      const ServerStats& stats);

}  // namespace frontier
