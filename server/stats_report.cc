#include "server/stats_report.h"

#include <unistd.h>

#include <cstdio>

namespace frontier {

ServerCounterFields ServerCounters(const ServerStats& s) {
  return {{
      {"total_connections_received", s.total_connections_received},
      {"total_commands_processed", s.total_commands_processed},
      {"rejected_connections", s.rejected_connections},
      {"protocol_errors", s.protocol_errors},
      {"client_query_buffer_limit_disconnections",
       s.client_query_buffer_limit_disconnections},
      {"client_output_buffer_limit_disconnections",
       s.client_output_buffer_limit_disconnections},
      {"bpop_timeouts", s.bpop_timeouts},
      {"event_loop_passes", s.passes},
      {"failed_passes", s.failed_passes},
  }};
}

uint64_t ProcessRssBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long size = 0, resident = 0;
  const int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  if (n != 2) return 0;
  const long page = sysconf(_SC_PAGESIZE);
  return resident * static_cast<uint64_t>(page > 0 ? page : 4096);
}

double HitRatio(uint64_t hits, uint64_t misses) {
  const uint64_t total = hits + misses;
  return total == 0 ? 0.0 : static_cast<double>(hits) / total;
}

StatusOr<CacheReport> ReadCacheReport(const Frontier& frontier,
                                      const ServerStats& stats) {
  auto counters = frontier.CacheStats();
  if (!counters.ok()) return counters.status();
  CacheReport r;
  r.counters = *counters;
  r.hit_ratio = HitRatio(r.counters.hits, r.counters.misses);
  // The baseline never exceeds the counter (Berkeley DB's only grows while
  // the environment is open), but a reset counter must not wrap.
  const uint64_t misses = r.counters.misses >= stats.cache_misses_at_reset
                              ? r.counters.misses - stats.cache_misses_at_reset
                              : 0;
  if (stats.total_commands_processed > 0) {
    r.misses_per_command = static_cast<double>(misses) /
                           static_cast<double>(stats.total_commands_processed);
  }
  return r;
}

}  // namespace frontier
