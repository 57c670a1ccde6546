// What the bench reads from the server around a run: INFO (memory, data
// size) and the frontier counters (STATS, or the Redis peer's fstats).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "client.h"

namespace bench {

struct ServerSnapshot {
  std::string error;  // non-empty if INFO could not be read
  std::map<std::string, std::string, std::less<>> info;
  std::map<std::string, int64_t, std::less<>> counters;  // STATS / fstats
  int64_t rss_bytes = -1;
  std::string rss_source;
  int64_t data_bytes = -1;
  std::string data_source;

  // A counter, or -1 if the server did not report it.
  int64_t Counter(std::string_view name) const;
};

// Reads INFO and the counters over conn. RSS comes from INFO
// (used_memory_rss, process_rss) or, when the server is on this machine,
// from /proc/<process_id>/status; data size from data_bytes (frontierd) or
// aof_current_size (Redis).
ServerSnapshot TakeSnapshot(Connection& conn, const Verbs& verbs,
                            bool server_is_local);

}  // namespace bench
