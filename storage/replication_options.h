// ReplicationOptions: how a Frontier takes part in a Berkeley DB
// Replication Manager group (docs/replication.md), part of FrontierOptions.
// With `enabled` false (the default) the environment opens as it always
// has: one process, no locking, no replication.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace frontier {

// A replication site's address: a host name or IP literal (IPv6 without
// brackets) and a TCP port 1..65535.
struct ReplicationSite {
  std::string host;
  uint16_t port = 0;

  bool operator==(const ReplicationSite&) const = default;
};

struct ReplicationOptions {
  bool enabled = false;
  ReplicationSite listen;               // this site's replication address
  std::vector<ReplicationSite> peers;   // the other sites it knows of
  // The one site that may start a new group; the others join one.
  bool group_creator = false;
  // Election priority: the most up-to-date site of highest priority wins;
  // 0 = never master.
  uint32_t priority = 100;
  // How long a commit waits for a quorum's acknowledgements before it is
  // reported as not acknowledged (DB_EVENT_REP_PERM_FAILED).
  int64_t ack_timeout_ms = 1000;
  // The master sends a heartbeat this often; a replica that hears nothing
  // from it for three times as long calls an election.
  int64_t heartbeat_ms = 1000;
  int64_t election_timeout_ms = 2000;
  // Bytes of log kept beyond what recovery needs, so that a lagging
  // replica can catch up from the log instead of a full copy.
  uint64_t log_retain_bytes = 1ull << 30;
};

}  // namespace frontier
