// Counters the event loop keeps for INFO, /metrics and /api/stats (which
// read them through the same functions, server/stats_report.h). The loop
// owns one ServerStats and lends it read-only to command handlers and to
// the HTTP side.
#pragma once

#include <cstdint>

#include "server/command_stats.h"
#include "server/histogram.h"

namespace frontier::urlfrontier {
class RpcStats;
}  // namespace frontier::urlfrontier

namespace frontier {

struct ServerStats {
  int64_t start_ms = 0;     // wall clock at start
  int64_t recovery_ms = 0;  // how long Frontier::Open (recovery) took
  int tcp_port = 0;         // the port listened on

  // # Clients
  uint64_t connected_clients = 0;
  uint64_t blocked_clients = 0;

  // # Stats
  uint64_t total_connections_received = 0;
  uint64_t total_commands_processed = 0;
  uint64_t rejected_connections = 0;
  uint64_t protocol_errors = 0;
  // Clients closed by client-query-buffer-limit / client-output-buffer-limit
  // (Redis 7.2's names).
  uint64_t client_query_buffer_limit_disconnections = 0;
  uint64_t client_output_buffer_limit_disconnections = 0;
  uint64_t bpop_timeouts = 0;
  uint64_t passes = 0;  // event-loop passes (group commits possible)
  // Passes whose transaction failed (a full disk): their commands were
  // answered with the error and nothing of them happened.
  uint64_t failed_passes = 0;
  // Berkeley DB's cache misses at the last CONFIG RESETSTAT (its counter
  // cannot be reset): the base of cache_misses_per_command.
  uint64_t cache_misses_at_reset = 0;

  // # Persistence
  uint64_t log_flushes = 0;
  bool last_flush_ok = true;
  uint64_t checkpoints = 0;
  int64_t last_checkpoint_ms = 0;  // 0 = none yet
  bool last_checkpoint_ok = true;
  int64_t last_checkpoint_duration_ms = 0;  // how long the loop waited
  // Every log flush (fsync) the server made: how long it took, and how
  // many commits it made durable (the group-commit batch).
  Histogram log_flush_ns{kLatencyBoundsNs};
  Histogram commits_per_flush{kCountBounds};
  uint64_t last_flushed_seq = 0;  // commit_seq() the last flush covered

  // # Cluster (docs/cluster.md): commands forwarded to other shards, those
  // answered with an error of the forwarding (a timeout, a peer gone),
  // MOVED replies, and the bytes of forwarded commands in flight now.
  uint64_t cluster_forwarded = 0;
  uint64_t cluster_forward_errors = 0;
  uint64_t cluster_moved = 0;
  uint64_t cluster_forward_bytes_in_flight = 0;
  // Commands held for a shard with no reachable master (failover hold),
  // and the bytes of those held now.
  uint64_t cluster_forward_held = 0;
  uint64_t cluster_forward_held_bytes = 0;
  // MADDs' parts for other shards, and the MADDLINKS commands that carried
  // them (one per peer per pass, within the byte limit: MaddBatch).
  uint64_t cluster_madd_parts = 0;
  uint64_t cluster_madd_batches = 0;

  // # Commandstats
  CommandStats commands;

  // # URLFrontier: the gRPC door's counters (server/urlfrontier_door.h),
  // null without a urlfrontier-port.
  const urlfrontier::RpcStats* urlfrontier = nullptr;
};

}  // namespace frontier
