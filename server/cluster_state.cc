#include "server/cluster_state.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace frontier {

int ClusterPort(const Config& config) {
  return config.tls_cluster ? config.tls_port : config.port;
}

StatusOr<ClusterState> LoadClusterState(const std::string& path,
                                        const std::vector<std::string>& bind,
                                        int port) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::IOError("cannot read cluster-config-file '" + path +
                           "': " + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  StatusOr<ClusterState> state = ClusterStateFromText(
      text.str(), "cluster-config-file '" + path + "'", bind, port);
  if (state.ok()) state.value().path = path;
  return state;
}

StatusOr<ClusterState> ClusterStateFromText(
    std::string_view text, const std::string& origin,
    const std::vector<std::string>& bind, int port) {
  std::string error;
  std::optional<cluster::ClusterMap> map =
      cluster::ClusterMap::Parse(text, &error);
  if (!map) return Status::InvalidArgument(origin + ": " + error);
  ClusterState state;
  state.origin = origin;
  std::optional<size_t> self;
  for (const std::string& host : bind) {
    self = map->FindNode(cluster::Address{host, port});
    if (self) break;
  }
  if (!self) {
    std::string addresses;
    for (const std::string& host : bind) {
      if (!addresses.empty()) addresses += ", ";
      addresses += cluster::Address{host, port}.ToString();
    }
    return Status::InvalidArgument(
        origin + ": this node (" + addresses +
        ", from bind and port) is not a node of the map");
  }
  state.self = *self;
  for (const cluster::Shard& shard : map->shards()) {
    state.masters.push_back(shard.nodes.front());
  }
  state.map = std::make_shared<const cluster::ClusterMap>(std::move(*map));
  state.masters[state.self_shard()] = state.self;
  return state;
}

}  // namespace frontier
