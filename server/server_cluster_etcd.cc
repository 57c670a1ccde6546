// The Server's side of the cluster's directory in etcd (docs/cluster.md,
// "The directory in etcd"): what the EtcdDirectory thread reads is handed
// here, on the loop thread, where a new map replaces the one in force the
// way CLUSTER RELOAD does, once it is checked against the shard's own
// record; and once a second the node keeps its master key and the shard's
// record up to date. Part of the Server class.
#include "server/cluster_etcd_map.h"
#include "server/cluster_record.h"
#include "server/log.h"
#include "server/server.h"

namespace frontier {
namespace {

// How often the loop tells the directory thread whether this node holds
// its shard's master key, and saves the shard's record if it must.
constexpr int64_t kEtcdTickMs = 1000;

}  // namespace

void Server::FollowEtcd() {
  if (etcd_) return;
  StatusOr<std::vector<EtcdEndpoint>> endpoints =
      ParseEtcdEndpoints(config_.cluster_etcd);
  if (!endpoints.ok()) return;  // checked with the configuration
  EtcdDirectory::Options options;
  options.endpoints = std::move(endpoints).value();
  options.name = config_.cluster_name;
  etcd_ = std::make_unique<EtcdDirectory>(
      base_.get(), std::move(options),
      [this](EtcdView view) { OnEtcdView(std::move(view)); },
      [this](const std::string& why) { OnEtcdTrouble(why); });
  etcd_timer_ = std::make_unique<Timer>(base_.get(), Timer::Kind::kPeriodic,
                                        [this] { TickEtcd(); });
  etcd_timer_->Start(kEtcdTickMs);  // the first tick runs in the loop
}

void Server::LeavePass() {
  CommitPass();
  frontier_.EndPass();
}

void Server::OnEtcdTrouble(const std::string& why) {
  if (why.empty()) {
    Log(LogLevel::kNotice, "Cluster: etcd answers again");
  } else {
    Log(LogLevel::kWarning,
        "Cluster: etcd does not answer (%s): serving with the map in force "
        "(epoch %llu), retrying with back-off",
        why.c_str(), static_cast<unsigned long long>(cluster_->map->epoch()));
  }
}

void Server::OnEtcdView(EtcdView view) {
  if (!view.map) {
    Log(LogLevel::kWarning,
        "Cluster: etcd holds no map at %s: serving with the map in force",
        EtcdMapKey(config_.cluster_name).c_str());
  } else if (view.map->mod_revision != cluster_->etcd_revision) {
    TakeEtcdMap(*view.map);
  }
  etcd_masters_ = std::move(view.masters);
  ApplyEtcdMasters();
}

void Server::TakeEtcdMap(const cluster::EtcdKeyValue& kv) {
  const std::string origin = "etcd key " + kv.key + " (revision " +
                             std::to_string(kv.mod_revision) + ")";
  StatusOr<ClusterState> state =
      ClusterStateFromText(kv.value, origin, config_.bind,
                           ClusterPort(config_));
  Status s = state.status();
  if (s.ok()) {
    LeavePass();
    s = CheckClusterRecord(frontier_, *state);
    frontier_.BeginPass();
  }
  etcd_retry_.reset();
  if (!s.ok() && !s.IsInvalidArgument()) {
    // The record could not be read (a replica applying its master's log,
    // say): the map is tried again at the next tick.
    Log(LogLevel::kVerbose, "Cluster: map of %s not checked yet: %s",
        origin.c_str(), s.ToString().c_str());
    etcd_retry_ = kv;
    return;
  }
  // Not taken again until it changes.
  cluster_->etcd_revision = kv.mod_revision;
  if (!s.ok()) {
    Log(LogLevel::kWarning, "Cluster: map refused, the map in force stays: %s",
        s.message().c_str());
    return;
  }
  state.value().etcd_revision = kv.mod_revision;
  Log(LogLevel::kNotice,
      "Cluster map taken from %s: epoch %llu, %zu shards, %zu nodes",
      origin.c_str(), static_cast<unsigned long long>(state->map->epoch()),
      state->map->shards().size(), state->map->nodes().size());
  cluster_ = std::move(state).value();
  NoteOwnMaster();
  if (Status saved = SaveEtcdMapCache(config_, kv.value); !saved.ok()) {
    Log(LogLevel::kWarning, "Cluster: the map's cached copy not saved: %s",
        saved.message().c_str());
  }
}

void Server::ApplyEtcdMasters() {
  const cluster::ClusterMap& map = *cluster_->map;
  for (const auto& [name, address] : etcd_masters_) {
    const std::optional<size_t> shard = map.FindShard(name);
    if (!shard || *shard == cluster_->self_shard()) continue;  // own: NoteOwnMaster
    cluster::Address resp;
    std::string error;
    if (!cluster::ParseAddress(address, &resp, &error)) continue;
    const std::optional<size_t> node = map.FindNode(resp);
    if (node && map.nodes()[*node].shard == *shard) {
      cluster_->masters[*shard] = *node;
    }
  }
}

bool Server::HoldOwnMasterKey() {
  const bool master = repl_role_ != ReplicationRole::kReplica;
  if (etcd_) {
    etcd_->HoldMasterKey(
        master ? cluster_->map->shards()[cluster_->self_shard()].name
               : std::string(),
        cluster_->map->nodes()[cluster_->self].resp.ToString());
  }
  return master;
}

void Server::TickEtcd() {
  if (etcd_retry_) {
    const cluster::EtcdKeyValue kv = *etcd_retry_;
    TakeEtcdMap(kv);
  }
  const size_t shard = cluster_->self_shard();
  const bool master = HoldOwnMasterKey();
  if (!master || WritesRefused()) return;
  LeavePass();  // the record is written in a transaction of its own
  StatusOr<bool> behind = ClusterRecordBehind(frontier_, *cluster_);
  Status s = behind.status();
  if (s.ok() && *behind) s = SaveClusterRecord(frontier_, *cluster_);
  frontier_.BeginPass();
  if (behind.ok() && !*behind) return;
  if (!s.ok()) {  // no quorum now, say: tried again at the next tick
    Log(LogLevel::kVerbose, "Cluster: the shard's record not saved: %s",
        s.ToString().c_str());
    return;
  }
  Log(LogLevel::kNotice,
      "Cluster: shard %s recorded that it owns its slots of epoch %llu",
      cluster_->map->shards()[shard].name.c_str(),
      static_cast<unsigned long long>(cluster_->map->epoch()));
}

}  // namespace frontier
