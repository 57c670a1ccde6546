// ReplicaProgress: how far each replica of the group has got, as the
// master hears it (docs/replication.md, "Replica offsets and lag").
//
// Berkeley DB 5.3 keeps no position per peer that an application can
// read, but every replica knows the end of its own log, which is a copy
// of the master's, record for record at the same position. So each
// replica sends its position (ReplicationState::log_offset) with its
// announcement, once a second (REPLICATION ANNOUNCE ... offset), and the
// master keeps the latest one per site, with when it came, in memory
// only: a new master hears from every replica within a second.
//
// Not thread-safe: the loop thread's.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace frontier {

struct ReplicaReport {
  uint64_t offset = 0;  // the replica's log end, as log_offset counts it
  int64_t at_ms = 0;    // when the master received it (server/clock.h)
};

class ReplicaProgress {
 public:
  // Records that the site at `repl` (its replication address) reported
  // `offset` at `now_ms`; replaces what it reported before.
  void Note(std::string_view repl, uint64_t offset, int64_t now_ms);
  // Its latest report, nullopt if none came since it joined (or since
  // this site became master).
  std::optional<ReplicaReport> Find(std::string_view repl) const;
  // Forgets every site for which `keep(repl)` is false.
  template <typename Keep>
  void RetainIf(Keep keep) {
    std::erase_if(by_repl_,
                  [&](const auto& entry) { return !keep(entry.first); });
  }
  void Clear() { by_repl_.clear(); }

 private:
  std::map<std::string, ReplicaReport, std::less<>> by_repl_;
};

// What INFO's slaveN lines, ROLE, /metrics and the dashboard show of a
// replica whose report is `report`, on a master whose own log ends at
// `master_offset`, at `now_ms`: its offset, how many bytes of the
// master's log it lacks (0 once it has everything; never negative) and,
// as Redis's `lag`, the whole seconds since its last report. Without a
// report: offset 0, lag_bytes = master_offset, lag -1 (unknown).
struct ReplicaLag {
  uint64_t offset = 0;
  uint64_t lag_bytes = 0;
  int64_t lag_seconds = -1;
};
ReplicaLag LagOf(const std::optional<ReplicaReport>& report,
                 uint64_t master_offset, int64_t now_ms);

}  // namespace frontier
