// /metrics: the Prometheus text exposition format (version 0.0.4) of
// everything INFO and STATS report, plus per-command and log flush
// histograms. Metric names are frontierd_* in base units; the list is in
// docs/operations.md.
#pragma once

#include <cstdint>
#include <string>

#include "server/http/stats_sources.h"

namespace frontier {

// The content type Prometheus expects for RenderMetrics's output.
inline constexpr const char* kMetricsContentType =
    "text/plain; version=0.0.4; charset=utf-8";

// Renders every metric at wall-clock time `now_ms`.
std::string RenderMetrics(const StatsSources& src, int64_t now_ms);

}  // namespace frontier
