// The shard's own record of what it owns (cluster/shard_record.h), read
// and written through the Frontier's replicated meta data: the authority a
// map from etcd is checked against (docs/cluster.md, "What a shard owns").
// Loop thread (or the start, before the loop runs).
#pragma once

#include "server/cluster_state.h"
#include "storage/frontier.h"
#include "util/status.h"

namespace frontier {

// OK if this node may serve with `state`'s map: its shard has no record
// yet, or the map agrees with it (cluster::MapAgreesWithRecord).
// InvalidArgument with the reason otherwise; the storage's error if the
// record cannot be read; Corruption if it is not a record.
Status CheckClusterRecord(Frontier& frontier, const ClusterState& state);

// True if `state`'s map is newer than its shard's record (or there is
// none): SaveClusterRecord should write it. The storage's error if the
// record cannot be read.
StatusOr<bool> ClusterRecordBehind(Frontier& frontier,
                                   const ClusterState& state);

// Writes `state`'s map as its shard's record. A write: the caller commits
// the pass first; READONLY on a replica, NOREPLICAS or NOQUORUM as any
// write.
Status SaveClusterRecord(Frontier& frontier, const ClusterState& state);

}  // namespace frontier
