// The Server's side of the cluster (docs/cluster.md): the map it serves
// with, CLUSTER RELOAD, and routing each keyed command to its shard:
// here, a MOVED redirection for a Redis Cluster client, or forwarded to the
// shard's master (ClusterForwarder) with the reply relayed to the client,
// which waits for it unread, so its replies keep their order. Part of the
// Server class.
#include <algorithm>

#include "server/args.h"
#include "server/auth.h"
#include "server/clock.h"
#include "server/cluster_route.h"
#include "server/errors.h"
#include "server/log.h"
#include "server/reply.h"
#include "server/server.h"

namespace frontier {
namespace {

ClusterForwarder::Options ForwardOptions(const Config& config, SSL_CTX* tls) {
  ClusterForwarder::Options options;
  options.timeout_ms = config.cluster_forward_timeout_ms;
  options.max_bytes = config.cluster_forward_max_bytes;
  options.hold_ms = config.cluster_failover_hold_ms;
  options.tls = tls;
  InternalLogin login = InternalCredentials(config);
  options.user = std::move(login.user);
  options.pass = std::move(login.pass);
  return options;
}

// `argv` for each of `shards` shards (a command every shard answers).
std::vector<std::pair<size_t, std::vector<std::string>>> EveryShard(
    size_t shards, const std::vector<std::string>& argv) {
  std::vector<std::pair<size_t, std::vector<std::string>>> parts;
  for (size_t s = 0; s < shards; ++s) parts.push_back({s, argv});
  return parts;
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

Status Server::UseCluster(ClusterState state) {
  if (config_.tls_cluster && !link_tls_) {
    StatusOr<LinkTlsContext> tls = NewLinkTlsContext(config_);
    if (!tls.ok()) return tls.status();
    link_tls_ = std::move(tls).value();
  }
  LogMap(state, "loaded");
  cluster_ = std::move(state);
  NoteOwnMaster();
  if (!forwarder_) {
    forwarder_ = std::make_unique<ClusterForwarder>(
        base_.get(), stats_, ForwarderShards(),
        [this](uint64_t client, uint32_t part, RelayedReply reply) {
          if ((client & kMaddBatchId) != 0) {
            OnMaddBatchReply(client, std::move(reply));
          } else {
            OnForwardReply(client, part, std::move(reply));
          }
        });
  }
  if (!config_.cluster_etcd.empty()) FollowEtcd();
  return Status::OK();
}

ClusterForwarder::Shards Server::ForwarderShards() {
  ClusterForwarder::Shards shards;
  shards.master_of =
      [this](size_t shard) -> std::optional<cluster::Address> {
    if (shard >= cluster_->map->shards().size()) return std::nullopt;
    return cluster_->master_of(shard).resp;
  };
  shards.pass_over = [this](size_t shard, const std::string& from) {
    PassOverMaster(shard, from);
  };
  shards.redirect = [this](size_t shard, const cluster::Address& to) {
    if (shard >= cluster_->map->shards().size()) return false;
    const std::optional<size_t> node = cluster_->map->FindNode(to);
    if (!node || cluster_->map->nodes()[*node].shard != shard) return false;
    cluster_->masters[shard] = *node;
    return true;
  };
  shards.name_of = [this](size_t shard) {
    return shard < cluster_->map->shards().size()
               ? cluster_->map->shards()[shard].name
               : std::to_string(shard);
  };
  return shards;
}

void Server::PassOverMaster(size_t shard, const std::string& from) {
  if (shard >= cluster_->map->shards().size()) return;
  size_t& master = cluster_->masters[shard];
  if (cluster_->map->nodes()[master].resp.ToString() != from) {
    return;  // another member is tried already
  }
  // The next member of the shard, round the list: the one that serves
  // answers, a replica answers READONLY and is passed over in turn. The
  // master key in etcd, when it changes, names the master directly.
  const std::vector<size_t>& members = cluster_->map->shards()[shard].nodes;
  const auto at = std::find(members.begin(), members.end(), master);
  if (at == members.end()) {
    master = members.front();
    return;
  }
  master = members[(at - members.begin() + 1) % members.size()];
}

Status Server::ReloadCluster() {
  if (!cluster_) return Status::InvalidArgument(errors::kClusterDisabled);
  if (cluster_->path.empty()) {
    return Status::InvalidArgument(
        "this node follows the map in etcd (cluster-etcd): it takes each "
        "change by itself, there is no file to reload");
  }
  StatusOr<ClusterState> loaded =
      LoadClusterState(cluster_->path, config_.bind,
                       ClusterPort(config_));
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

bool Server::RouteClusterWide(const CommandSpec& spec, CommandContext& ctx) {
  const std::span<const std::string> argv = ctx.argv;
  if (argv.size() < 2 || !EqualsIgnoreCase(argv.back(), "CLUSTER")) {
    return false;
  }
  const size_t shards = cluster_->map->shards().size();
  // The command without its CLUSTER, as each shard runs it.
  std::vector<std::string> each(argv.begin(), argv.end() - 1);
  if (spec.name == "stats" && argv.size() == 2) {
    // Every shard's counters, this one's too (over this node's own link,
    // so that each part runs in the client's crawl the same way).
    FanOut(ctx, EveryShard(shards, each), ClusterGather::Sum(shards));
    return true;
  }
  if (spec.name == "site" && (argv.size() == 3 || argv.size() == 4) &&
      EqualsIgnoreCase(argv[1], "TOP")) {
    // SITE TOP [n] CLUSTER: every shard's SITE TOP n (each checks n),
    // merged; a site lives on one shard, so no two lists name it.
    const size_t n =
        argv.size() == 4
            ? static_cast<size_t>(ParseInt64(argv[2]).value_or(0))
            : 10;
    FanOut(ctx, EveryShard(shards, each), ClusterGather::Top(shards, n));
    return true;
  }
  if (spec.name == "site" && EqualsIgnoreCase(argv[1], "LIST")) {
    // SITE LIST ... CLUSTER: the shards one after the other, each scanned
    // with its own cursor; the cluster's cursor says which shard and
    // where in it (ParseClusterCursor).
    std::string cursor = "0";
    size_t at = 0;
    for (size_t i = 2; i + 1 < each.size(); ++i) {
      if (EqualsIgnoreCase(each[i], "CURSOR")) at = i + 1;
    }
    if (at != 0) cursor = each[at];
    const auto place = ParseClusterCursor(cursor);
    if (!place || place->first >= shards) {
      ctx.reply.Error(errors::kInvalidCursor);
      return true;
    }
    if (at != 0) each[at] = place->second;
    FanOut(ctx, {{place->first, std::move(each)}},
           ClusterGather::Page(place->first, shards));
    return true;
  }
  if (spec.name == "partition" && argv.size() == 4 &&
      EqualsIgnoreCase(argv[1], "INFO")) {
    FanOut(ctx, EveryShard(shards, each), ClusterGather::Sum(shards));
    return true;
  }
  if (spec.name == "hint" && (argv.size() == 2 || argv.size() == 4)) {
    FanOut(ctx, EveryShard(shards, each), ClusterGather::Hint(shards));
    return true;
  }
  return false;
}

bool Server::RouteCommand(const CommandSpec& spec, CommandContext& ctx) {
  if (!cluster_) return false;
  if (RouteClusterWide(spec, ctx)) return true;
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
  forwarder_->set_options(ForwardOptions(config_, link_tls_.get()));
  forwarder_->ForwardToShard(decision.shard, ctx.client.id, ctx.client.crawl,
                             ctx.argv, ctx.now_ms);
  ctx.effects.await_forward = true;
  return true;
}

void Server::NoteOwnMaster() {
  if (!cluster_) return;
  // The master key follows the role at once, so that the other shards
  // stop holding this shard's commands as soon as etcd says who serves it.
  HoldOwnMasterKey();
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
    ClusterGather gather, uint32_t first_part, int64_t timeout_ms) {
  ClusterForwarder::Options options = ForwardOptions(config_, link_tls_.get());
  if (timeout_ms > 0) options.timeout_ms = timeout_ms;
  forwarder_->set_options(std::move(options));
  gathers_.insert_or_assign(ctx.client.id, std::move(gather));
  // The parts of a command that came over another node's link are not
  // held: that node waits for the whole reply within its own timeout.
  const bool hold = !ctx.client.cluster_link;
  for (uint32_t i = 0; i < parts.size(); ++i) {
    forwarder_->ForwardToShard(parts[i].first, ctx.client.id, ctx.client.crawl,
                               parts[i].second, ctx.now_ms, first_part + i,
                               hold);
  }
  ctx.effects.await_forward = true;
}

void Server::SpreadLinks(
    CommandContext& ctx, RelayedReply local,
    std::vector<std::pair<size_t, std::vector<std::string>>> parts,
    ClusterGather gather) {
  pass_local_parts_.emplace_back(ctx.client.id, std::move(local));
  // A MADD another node forwarded here waits there for this reply, under
  // the same timeout: its parts get two thirds of it, so that a shard that
  // does not answer costs its own links only, not the whole MADD. Its
  // parts are not held: that node holds the MADD.
  const bool from_link = ctx.client.cluster_link;
  const int64_t timeout_ms =
      from_link
          ? std::max<int64_t>(1, config_.cluster_forward_timeout_ms * 2 / 3)
          : 0;
  gathers_.insert_or_assign(ctx.client.id, std::move(gather));
  for (uint32_t i = 0; i < parts.size(); ++i) {
    pass_madd_parts_.push_back(MaddPart{ctx.client.id, i + 1, parts[i].first,
                                        ctx.client.crawl, !from_link,
                                        timeout_ms,
                                        std::move(parts[i].second)});
  }
  stats_.cluster_madd_parts += parts.size();
  ctx.effects.await_forward = true;
}

void Server::SendMaddParts() {
  std::vector<MaddPart> parts;
  parts.swap(pass_madd_parts_);
  const ClusterForwarder::Options base = ForwardOptions(config_, link_tls_.get());
  // The parts for one peer that travel alike, in the order their MADDs
  // ran: one batch while the byte limit allows.
  std::vector<bool> sent(parts.size(), false);
  for (size_t first = 0; first < parts.size(); ++first) {
    if (sent[first]) continue;
    const MaddPart& key = parts[first];
    MaddBatch batch;
    for (size_t i = first; i < parts.size(); ++i) {
      MaddPart& one = parts[i];
      if (sent[i] || one.shard != key.shard || one.crawl != key.crawl ||
          one.hold != key.hold || one.timeout_ms != key.timeout_ms) {
        continue;
      }
      size_t bytes = 0;
      for (const std::string& arg : one.argv) bytes += arg.size();
      if (!batch.empty() && batch.bytes() + bytes > base.max_bytes) continue;
      batch.Add(one.client, one.part, std::move(one.argv));
      sent[i] = true;
    }
    ClusterForwarder::Options options = base;
    if (key.timeout_ms > 0) options.timeout_ms = key.timeout_ms;
    forwarder_->set_options(std::move(options));
    const uint64_t id = kMaddBatchId | ++next_madd_batch_;
    forwarder_->ForwardToShard(key.shard, id, key.crawl, batch.Argv(),
                               NowMs(), 0, key.hold);
    ++stats_.cluster_madd_batches;
    madd_batches_.emplace(id, std::move(batch));
  }
}

void Server::OnMaddBatchReply(uint64_t batch, RelayedReply reply) {
  auto it = madd_batches_.find(batch);
  if (it == madd_batches_.end()) return;
  const MaddBatch done = std::move(it->second);
  madd_batches_.erase(it);
  std::vector<RelayedReply> replies = done.Split(reply);
  for (size_t m = 0; m < replies.size(); ++m) {
    OnForwardReply(done.members()[m].client, done.members()[m].part,
                   std::move(replies[m]));
  }
}

void Server::SettleLocalParts(const Status& committed) {
  std::vector<std::pair<uint64_t, RelayedReply>> parts;
  parts.swap(pass_local_parts_);
  for (auto& [client, reply] : parts) {
    if (!committed.ok()) {
      reply.elements.clear();
      reply.resp.clear();
      ReplyWriter writer(&reply.resp);
      ReplyStatus(writer, committed);
      reply.error = true;
    }
    OnForwardReply(client, 0, std::move(reply));
  }
}

void Server::PopElsewhere(CommandContext& ctx, std::vector<std::string> argv,
                          bool with_count,
                          std::optional<BlockRequest> then_wait) {
  PopChain chain;
  const size_t shards = cluster_->map->shards().size();
  for (size_t k = 0; k < shards; ++k) {
    const size_t shard = (pop_next_shard_ + k) % shards;
    if (shard != cluster_->self_shard()) chain.shards.push_back(shard);
  }
  pop_next_shard_ = (pop_next_shard_ + 1) % shards;
  const auto write_empty = [with_count](ReplyWriter& out) {
    if (with_count) {
      out.Array(0);
    } else {
      out.Null();
    }
  };
  if (chain.shards.empty()) {  // a cluster of one shard: nothing more
    if (then_wait) {
      ctx.effects.block = std::move(then_wait);
    } else {
      write_empty(ctx.reply);
    }
    return;
  }
  chain.then_wait = std::move(then_wait);
  ReplyWriter empty(&chain.empty);
  write_empty(empty);
  chain.argv = std::move(argv);
  chain.crawl = ctx.client.crawl;
  const size_t first = chain.shards.front();
  chain.shards.erase(chain.shards.begin());
  forwarder_->set_options(ForwardOptions(config_, link_tls_.get()));
  forwarder_->Forward(cluster_->master_of(first).resp, ctx.client.id,
                      ctx.client.crawl, chain.argv, ctx.now_ms);
  pop_chains_.insert_or_assign(ctx.client.id, std::move(chain));
  ctx.effects.await_forward = true;
}

bool Server::PopGoesOn(uint64_t client, const RelayedReply& reply) {
  auto it = pop_chains_.find(client);
  if (it == pop_chains_.end()) return false;
  PopChain& chain = it->second;
  // A URL (or several): the answer. An empty reply, or a shard that
  // cannot answer: the next shard.
  const bool empty = reply.error || reply.resp == chain.empty;
  if (!empty || chain.shards.empty() || Find(client) == nullptr) {
    return false;
  }
  const size_t next = chain.shards.front();
  chain.shards.erase(chain.shards.begin());
  forwarder_->Forward(cluster_->master_of(next).resp, client, chain.crawl,
                      chain.argv, NowMs());
  return true;
}

void Server::WaitAfterAll(uint64_t client, BlockRequest request) {
  Connection* conn = Find(client);
  if (conn == nullptr || conn->state() != Connection::State::kBlocked) {
    return;  // the client left meanwhile
  }
  conn->StartReading();
  blocked_.Add(conn->id(), std::move(request));
  UpdateClientCounts();
}

void Server::OnForwardReply(uint64_t client, uint32_t part,
                            RelayedReply reply) {
  if (PopGoesOn(client, reply)) return;
  if (auto it = pop_chains_.find(client); it != pop_chains_.end()) {
    // The last shard asked: its URL, or the empty reply (an error of a
    // shard that could not answer is not the POP's answer), or a BPOP
    // waits on this shard after all.
    PopChain chain = std::move(it->second);
    pop_chains_.erase(it);
    const bool empty = reply.error || reply.resp == chain.empty;
    if (empty && chain.then_wait) {
      WaitAfterAll(client, std::move(*chain.then_wait));
      return;
    }
    if (reply.error) reply.resp = chain.empty;
  }
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
