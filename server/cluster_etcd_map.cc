#include "server/cluster_etcd_map.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "server/cluster_etcd.h"
#include "server/etcd_client.h"
#include "server/log.h"

namespace frontier {
namespace {

constexpr int kStartTimeoutMs = 2000;

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

}  // namespace

Status CheckClusterEtcdConfig(const Config& config) {
  for (char c : config.cluster_name) {
    if (!IsNameChar(c)) {
      return Status::InvalidArgument(
          "cluster-name '" + config.cluster_name +
          "' may only have letters, digits, '_', '-' and '.'");
    }
  }
  if (config.cluster_etcd.empty()) return Status::OK();
  if (!config.cluster_config_file.empty()) {
    return Status::InvalidArgument(
        "cluster-etcd and cluster-config-file are both set: the map comes "
        "from one of them");
  }
  return ParseEtcdEndpoints(config.cluster_etcd).status();
}

std::string EtcdMapCachePath(const Config& config) {
  // In a directory of its own: Berkeley DB looks at every file of the data
  // directory when it copies it to a new replica, and complains of those
  // that are not databases.
  return config.dir + "/cluster/etcd-map";
}

StatusOr<ClusterState> LoadEtcdClusterState(const Config& config) {
  StatusOr<std::vector<EtcdEndpoint>> endpoints =
      ParseEtcdEndpoints(config.cluster_etcd);
  if (!endpoints.ok()) return endpoints.status();
  StatusOr<EtcdView> view =
      ReadEtcdView(*endpoints, config.cluster_name, kStartTimeoutMs);
  const std::string key = EtcdMapKey(config.cluster_name);
  if (view.ok()) {
    if (!view->map) {
      return Status::InvalidArgument(
          "etcd holds no cluster map at " + key +
          " (cluster-name " + config.cluster_name +
          "): create it with frontierd-cluster create");
    }
    StatusOr<ClusterState> state = ClusterStateFromText(
        view->map->value,
        "etcd key " + key + " (revision " +
            std::to_string(view->map->mod_revision) + ")",
        config.bind, ClusterPort(config));
    if (!state.ok()) return state;
    state.value().etcd_revision = view->map->mod_revision;
    if (Status s = SaveEtcdMapCache(config, view->map->value); !s.ok()) {
      Log(LogLevel::kWarning, "Cluster: the map's cached copy not saved: %s",
          s.message().c_str());
    }
    return state;
  }
  const std::string cache = EtcdMapCachePath(config);
  std::ifstream in(cache, std::ios::binary);
  if (!in) {
    return Status::Unavailable(
        view.status().message() + "; and there is no cached map at " + cache +
        " (this node never took a map from etcd): cannot start without a "
        "map");
  }
  std::ostringstream text;
  text << in.rdbuf();
  Log(LogLevel::kWarning,
      "Cluster: etcd unreachable (%s): starting with the cached copy of "
      "the last map taken, %s, and following etcd once it answers",
      view.status().message().c_str(), cache.c_str());
  return ClusterStateFromText(text.str(), "the cached map " + cache,
                              config.bind, ClusterPort(config));
}

Status SaveEtcdMapCache(const Config& config, std::string_view text) {
  const std::string path = EtcdMapCachePath(config);
  const std::string aside = path + ".new";
  std::error_code ec;
  std::filesystem::create_directories(config.dir + "/cluster", ec);
  if (ec) {
    return Status::IOError("cannot create " + config.dir + "/cluster: " +
                           ec.message());
  }
  {
    std::ofstream out(aside, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) {
      return Status::IOError("cannot write " + aside + ": " +
                             std::strerror(errno));
    }
  }
  if (std::rename(aside.c_str(), path.c_str()) != 0) {
    return Status::IOError("cannot rename " + aside + " to " + path + ": " +
                           std::strerror(errno));
  }
  return Status::OK();
}

}  // namespace frontier
