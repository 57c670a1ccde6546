// The Server's side of the cluster (docs/cluster.md): the map it serves
// with, CLUSTER RELOAD, and routing each keyed command to its shard:
// here, a MOVED redirection for a Redis Cluster client, or forwarded to the
// shard's master (ClusterForwarder) with the reply relayed to the client,
// which waits for it unread, so its replies keep their order. Part of the
// Server class.
#include "server/args.h"
#include "server/cluster_route.h"
#include "server/errors.h"
#include "server/log.h"
#include "server/reply.h"
#include "server/server.h"

namespace frontier {
namespace {

ClusterForwarder::Options ForwardOptions(const Config& config) {
  ClusterForwarder::Options options;
  options.timeout_ms = config.cluster_forward_timeout_ms;
  options.max_bytes = config.cluster_forward_max_bytes;
  if (!config.cluster_auth_pass.empty()) {
    options.user = config.cluster_auth_user;
    options.pass = config.cluster_auth_pass;
  } else {
    options.pass = config.requirepass;
  }
  return options;
}

void LogMap(const ClusterState& state, const char* verb) {
  const cluster::Node& self = state.map->nodes()[state.self];
  Log(LogLevel::kNotice,
      "Cluster map %s from %s: epoch %llu, %zu shards, %zu nodes; this node "
      "is %s of shard %s",
      verb, state.origin.c_str(),
      static_cast<unsigned long long>(state.map->epoch()),
      state.map->shards().size(), state.map->nodes().size(),
      self.resp.ToString().c_str(),
      state.map->shards()[self.shard].name.c_str());
}

}  // namespace

void Server::UseCluster(ClusterState state) {
  LogMap(state, "loaded");
  cluster_ = std::move(state);
  NoteOwnMaster();
  if (!forwarder_) {
    forwarder_ = std::make_unique<ClusterForwarder>(
        base_.get(), stats_,
        [this](uint64_t client, uint32_t part, RelayedReply reply) {
          OnForwardReply(client, part, std::move(reply));
        });
  }
  if (!config_.cluster_etcd.empty()) FollowEtcd();
}

Status Server::ReloadCluster() {
  if (!cluster_) return Status::InvalidArgument(errors::kClusterDisabled);
  if (cluster_->path.empty()) {
    return Status::InvalidArgument(
        "this node follows the map in etcd (cluster-etcd): it takes each "
        "change by itself, there is no file to reload");
  }
  StatusOr<ClusterState> loaded =
      LoadClusterState(cluster_->path, config_.bind, config_.port);
  if (!loaded.ok()) {
    Log(LogLevel::kWarning,
        "CLUSTER RELOAD refused, the map in force stays: %s",
        loaded.status().message().c_str());
    return loaded.status();
  }
  LogMap(*loaded, "reloaded");
  cluster_ = std::move(loaded).value();
  NoteOwnMaster();
  return Status::OK();
}

bool Server::RouteCommand(const CommandSpec& spec, CommandContext& ctx) {
  if (!cluster_) return false;
  if (spec.name == "stats" && ctx.argv.size() == 2 &&
      EqualsIgnoreCase(ctx.argv[1], "CLUSTER")) {
    // Every shard's counters, this one's too (over this node's own link,
    // so that each part runs in the client's crawl the same way).
    std::vector<std::pair<size_t, std::vector<std::string>>> parts;
    for (size_t s = 0; s < cluster_->map->shards().size(); ++s) {
      parts.push_back({s, {"STATS"}});
    }
    const size_t n = parts.size();
    FanOut(ctx, std::move(parts), ClusterGather::Sum(n));
    return true;
  }
  const SiteRules rules{config_.politeness_scope, config_.max_url_length};
  RouteDecision decision = DecideRoute(spec, ctx.argv, *cluster_, rules);
  switch (decision.kind) {
    case RouteDecision::Kind::kHere:
      if (!decision.stripped.empty()) {
        route_argv_ = std::move(decision.stripped);
        ctx.argv = route_argv_;
      }
      return false;
    case RouteDecision::Kind::kMoved:
      ++stats_.cluster_moved;
      ctx.reply.Error(decision.error);
      return true;
    case RouteDecision::Kind::kError:
      ctx.reply.Error(decision.error);
      return true;
    case RouteDecision::Kind::kForward:
      break;
    case RouteDecision::Kind::kFanOut: {
      // MSEEN over several shards: one MSEEN per shard (this one's too,
      // over its own link), the answers put back in argument order. A
      // link's part spans shards only if two maps disagree: no fan-out
      // again.
      if (ctx.client.cluster_link) {
        ctx.reply.Error(errors::kCrossSlot);
        return true;
      }
      std::vector<std::pair<size_t, std::vector<std::string>>> parts;
      std::vector<std::vector<size_t>> positions;
      for (const auto& [shard, keys] : decision.parts) {
        std::vector<std::string> argv = {ctx.argv[0]};
        positions.emplace_back();
        for (size_t pos : keys) {
          argv.push_back(ctx.argv[pos]);
          positions.back().push_back(pos - 1);
        }
        parts.push_back({shard, std::move(argv)});
      }
      FanOut(ctx, std::move(parts),
             ClusterGather::Place(ctx.argv.size() - 1, std::move(positions)));
      return true;
    }
  }
  if (ctx.client.cluster_link) {  // forwarded once already: no loop
    ++stats_.cluster_moved;
    ctx.reply.Error(decision.error);
    return true;
  }
  forwarder_->set_options(ForwardOptions(config_));
  forwarder_->Forward(cluster_->master_of(decision.shard).resp, ctx.client.id,
                      ctx.client.crawl, ctx.argv, ctx.now_ms);
  ctx.effects.await_forward = true;
  return true;
}

void Server::NoteOwnMaster() {
  if (!cluster_) return;
  size_t& master = cluster_->masters[cluster_->self_shard()];
  if (repl_role_ != ReplicationRole::kReplica) {
    master = cluster_->self;
    return;
  }
  const std::string named = frontier_.Replication().master;
  for (size_t node : cluster_->map->shards()[cluster_->self_shard()].nodes) {
    const std::optional<cluster::Address>& repl =
        cluster_->map->nodes()[node].repl;
    if (repl && repl->ToString() == named) master = node;
  }
}

void Server::FanOut(
    CommandContext& ctx,
    std::vector<std::pair<size_t, std::vector<std::string>>> parts,
    ClusterGather gather) {
  forwarder_->set_options(ForwardOptions(config_));
  gathers_.insert_or_assign(ctx.client.id, std::move(gather));
  for (uint32_t i = 0; i < parts.size(); ++i) {
    forwarder_->Forward(cluster_->master_of(parts[i].first).resp, ctx.client.id,
                        ctx.client.crawl, parts[i].second, ctx.now_ms, i);
  }
  ctx.effects.await_forward = true;
}

void Server::OnForwardReply(uint64_t client, uint32_t part,
                            RelayedReply reply) {
  std::string resp;
  if (auto it = gathers_.find(client); it != gathers_.end()) {
    it->second.Add(part, reply);
    if (!it->second.done()) return;
    resp = it->second.Reply();
    gathers_.erase(it);
  } else {
    resp = std::move(reply.resp);
  }
  Connection* conn = Find(client);
  if (conn == nullptr || conn->state() != Connection::State::kBlocked) {
    return;  // the client left meanwhile
  }
  // The reply is no part of the pass's transaction: if this client ran
  // commands in the pass, commit them first, so a failing commit cannot
  // take this reply with theirs.
  if (conn->pass_commands().listed) CommitPass();
  conn->pending() += resp;
  conn->StartReading();
  Unblock(*conn);
}

}  // namespace frontier
