#include "server/replica_progress.h"

namespace frontier {

void ReplicaProgress::Note(std::string_view repl, uint64_t offset,
                           int64_t now_ms) {
  auto it = by_repl_.find(repl);
  if (it == by_repl_.end()) {
    by_repl_.emplace(std::string(repl), ReplicaReport{offset, now_ms});
  } else {
    it->second = ReplicaReport{offset, now_ms};
  }
}

std::optional<ReplicaReport> ReplicaProgress::Find(
    std::string_view repl) const {
  auto it = by_repl_.find(repl);
  if (it == by_repl_.end()) return std::nullopt;
  return it->second;
}

ReplicaLag LagOf(const std::optional<ReplicaReport>& report,
                 uint64_t master_offset, int64_t now_ms) {
  if (!report) return ReplicaLag{0, master_offset, -1};
  ReplicaLag lag;
  lag.offset = report->offset;
  // A replica that reported after the master read its own end (or one
  // rolled back since) is not ahead: it lacks nothing.
  lag.lag_bytes =
      master_offset > report->offset ? master_offset - report->offset : 0;
  lag.lag_seconds = now_ms > report->at_ms ? (now_ms - report->at_ms) / 1000 : 0;
  return lag;
}

}  // namespace frontier
