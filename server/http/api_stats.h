// /api/stats: one JSON object with what the dashboard page shows, read
// through the same functions as INFO, STATS and /metrics. Its fields are
// listed in docs/operations.md; a client may rely on them.
#pragma once

#include <cstdint>
#include <string>

#include "server/http/stats_sources.h"

namespace frontier {

// How many clients and sites /api/stats lists at most.
inline constexpr size_t kApiMaxClients = 50;
inline constexpr size_t kApiLargestSites = 10;

// Renders the JSON document at wall-clock time `now_ms`.
std::string RenderApiStats(const StatsSources& src, int64_t now_ms);

// `s` as a JSON string literal, quotes included; bytes that are not valid
// UTF-8 become U+FFFD.
std::string JsonString(std::string_view s);

}  // namespace frontier
