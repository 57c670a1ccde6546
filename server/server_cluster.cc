// The Server's side of the cluster (docs/cluster.md): the map it serves
// with, CLUSTER RELOAD, and routing each keyed command to its shard:
// here, a MOVED redirection for a Redis Cluster client, or forwarded to the
// shard's master (ClusterForwarder) with the reply relayed to the client,
// which waits for it unread, so its replies keep their order. Part of the
// Server class.
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
      verb, state.path.c_str(),
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
        base_.get(), stats_, [this](uint64_t client, std::string resp) {
          OnForwardReply(client, std::move(resp));
        });
  }
}

Status Server::ReloadCluster() {
  if (!cluster_) return Status::InvalidArgument(errors::kClusterDisabled);
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

void Server::OnForwardReply(uint64_t client, std::string resp) {
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
