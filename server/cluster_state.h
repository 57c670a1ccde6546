// ClusterState: the cluster map a node serves with (docs/cluster.md), which
// member of it the node is, and which member of each shard it takes for
// the shard's master. Loaded from `cluster-config-file` at start and by
// CLUSTER RELOAD; replaced whole, never edited in place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster_map.h"
#include "server/config.h"
#include "util/status.h"

namespace frontier {

struct ClusterState {
  std::string path;    // the file it was read from; "" from etcd
  std::string origin;  // where it came from, for the log and errors
  int64_t etcd_revision = 0;  // from etcd: the map key's mod_revision
  std::shared_ptr<const cluster::ClusterMap> map;
  size_t self = 0;  // this node: an index in map->nodes()
  // Per shard, the node (an index in map->nodes()) taken for its master:
  // the one commands are forwarded to and MOVED names. The map does not
  // say (the shard's replication group decides it); until a node learns
  // otherwise it is the shard's first member, and this node for its own
  // shard.
  std::vector<size_t> masters;

  size_t self_shard() const { return map->nodes()[self].shard; }
  const cluster::Node& master_of(size_t shard) const {
    return map->nodes()[masters[shard]];
  }
};

// The port a node is known by in the map: its tls-port with tls-cluster
// (the other nodes reach it over TLS), else its port.
int ClusterPort(const Config& config);

// Reads and parses the cluster file at `path` and finds this node in it by
// `bind` (its addresses) and `port`. IOError if the file cannot be read;
// InvalidArgument, with ClusterMap::Parse's sentence (naming the line or
// slot), if the map is not valid, or if no member has one of the `bind`
// addresses and `port`. Every message names the file.
StatusOr<ClusterState> LoadClusterState(const std::string& path,
                                        const std::vector<std::string>& bind,
                                        int port);

// The same for a map's `text` that came from `origin` ("etcd key /x/map",
// "the cached copy ..."), which every message names; `path` stays "".
StatusOr<ClusterState> ClusterStateFromText(
    std::string_view text, const std::string& origin,
    const std::vector<std::string>& bind, int port);

}  // namespace frontier
