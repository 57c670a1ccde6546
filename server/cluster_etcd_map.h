// The cluster map from etcd at start (docs/cluster.md, "The directory in
// etcd"): the directives' checks, the first read, and the copy of the last
// map taken that every node keeps in its data directory, so that it can
// start while etcd is unreachable.
#pragma once

#include <string>
#include <string_view>

#include "server/cluster_state.h"
#include "server/config.h"
#include "util/status.h"

namespace frontier {

// cluster-etcd's endpoints parse, cluster-name is a name of
// [A-Za-z0-9_.-], and not both cluster-etcd and cluster-config-file.
Status CheckClusterEtcdConfig(const Config& config);

// The cached copy's path: "<dir>/cluster/etcd-map".
std::string EtcdMapCachePath(const Config& config);

// The map at start, blocking (before the loop runs): etcd's, if an
// endpoint answers; if none does, the cached copy of the last map this
// node took (said in the log). InvalidArgument if etcd holds no map for
// cluster-name (create it with frontierd-cluster) or the map is not valid
// for this node; Unavailable if etcd is unreachable and there is no
// cached copy.
StatusOr<ClusterState> LoadEtcdClusterState(const Config& config);

// Replaces the cached copy with `text` (written aside, then renamed over
// it, so a crash leaves the old copy or the new one). IOError on failure.
Status SaveEtcdMapCache(const Config& config, std::string_view text);

}  // namespace frontier
