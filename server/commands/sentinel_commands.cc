// SENTINEL: the discovery part of Redis Sentinel's commands, answered by
// every site of a replication group for its own group (docs/replication.md,
// "Finding the master"). A client that knows the sites' RESP addresses
// uses them as its sentinels: redis-py's Sentinel(...).master_for(
// repl-name) and ioredis's `sentinels` option find the master (and the
// replicas) with these replies, in Sentinel's formats, and find the new
// one after a failover. Berkeley DB elects the master; the commands that
// would configure or steer a Sentinel are refused.
#include <string>
#include <string_view>

#include "server/commands/commands.h"
#include "server/replication_view.h"
#include "server/args.h"

namespace frontier::commands {
namespace {

// A Sentinel reply describes an instance as a flat list of field, value
// pairs, every value a bulk string.
class Fields {
 public:
  void Add(std::string_view key, std::string value) {
    pairs_.emplace_back(key, std::move(value));
  }
  void Write(ReplyWriter& reply) const {
    reply.Array(pairs_.size() * 2);
    for (const auto& [key, value] : pairs_) {
      reply.Bulk(key);
      reply.Bulk(value);
    }
  }

 private:
  std::vector<std::pair<std::string_view, std::string>> pairs_;
};

// Whether a client can use the master now: this site, or one whose client
// address is known and whose link to this site is up.
bool MasterUsable(const GroupView& group) {
  return group.master && group.master->known() && group.master->up;
}

void Common(Fields& f, const std::string& name, const GroupSite& site,
            const std::string& flags) {
  f.Add("name", name);
  f.Add("ip", site.host);
  f.Add("port", std::to_string(site.port));
  f.Add("runid", "");
  f.Add("flags", flags);
  f.Add("link-pending-commands", "0");
  f.Add("link-refcount", "1");
  f.Add("last-ping-sent", "0");
  f.Add("last-ok-ping-reply", "0");
  f.Add("last-ping-reply", "0");
}

void WriteMaster(const CommandContext& ctx, const GroupView& group) {
  const GroupSite master = group.master.value_or(GroupSite{});
  Fields f;
  Common(f, ctx.config.repl_name, master,
         MasterUsable(group) ? "master" : "master,s_down");
  f.Add("down-after-milliseconds",
        std::to_string(3 * ctx.config.repl_heartbeat_ms));
  f.Add("info-refresh", "0");
  f.Add("role-reported", "master");
  f.Add("role-reported-time", "0");
  f.Add("config-epoch", "0");
  f.Add("num-slaves", std::to_string(group.replicas.size()));
  size_t sentinels = 0;
  for (const GroupSite& peer : group.peers) sentinels += peer.up && peer.known();
  f.Add("num-other-sentinels", std::to_string(sentinels));
  f.Add("quorum", std::to_string(group.state.sites / 2 + 1));
  f.Add("failover-timeout",
        std::to_string(ctx.config.repl_election_timeout_ms));
  f.Add("parallel-syncs", "1");
  f.Write(ctx.reply);
}

void WriteReplicas(const CommandContext& ctx, const GroupView& group) {
  const GroupSite master = group.master.value_or(GroupSite{});
  size_t n = 0;
  for (const GroupSite& site : group.replicas) n += site.known();
  ctx.reply.Array(n);
  for (const GroupSite& site : group.replicas) {
    if (!site.known()) continue;
    Fields f;
    Common(f, site.address(), site, site.up ? "slave" : "slave,s_down");
    f.Add("master-link-down-time", "0");
    f.Add("master-link-status", site.up && master.up ? "ok" : "err");
    f.Add("master-host", master.host);
    f.Add("master-port", std::to_string(master.port));
    f.Add("slave-priority", std::to_string(ctx.config.repl_priority));
    f.Add("slave-repl-offset", std::to_string(site.lag.offset));
    f.Write(ctx.reply);
  }
}

void WriteSentinels(const CommandContext& ctx, const GroupView& group) {
  size_t n = 0;
  for (const GroupSite& peer : group.peers) n += peer.up && peer.known();
  ctx.reply.Array(n);
  for (const GroupSite& peer : group.peers) {
    if (!peer.up || !peer.known()) continue;
    Fields f;
    Common(f, peer.address(), peer, "sentinel");
    f.Add("last-hello-message", "0");
    f.Add("voted-leader", "?");
    f.Add("voted-leader-epoch", "0");
    f.Write(ctx.reply);
  }
}

}  // namespace

void Sentinel(CommandContext& ctx) {
  const std::string sub = ToLower(ctx.argv[1]);
  const GroupView group = ViewGroup(ctx.frontier, ctx.config, ctx.server);
  if (group.state.role == ReplicationRole::kNone) {
    ctx.reply.Error(
        "ERR SENTINEL needs replication yes: this server is a single node "
        "(docs/replication.md)");
    return;
  }
  const bool named = sub == "master" || sub == "get-master-addr-by-name" ||
                     sub == "replicas" || sub == "slaves" ||
                     sub == "sentinels" || sub == "ckquorum";
  if (sub == "masters") {
    if (ctx.argv.size() != 2) {
      ctx.reply.Error("ERR wrong number of arguments for 'sentinel|" + sub +
                      "' command");
      return;
    }
  } else if (named) {
    if (ctx.argv.size() != 3) {
      ctx.reply.Error("ERR wrong number of arguments for 'sentinel|" + sub +
                      "' command");
      return;
    }
    if (ctx.argv[2] != ctx.config.repl_name) {
      // As Sentinel: an unknown name has no address, and is an error
      // everywhere else.
      if (sub == "get-master-addr-by-name") {
        ctx.reply.NullArray();
      } else {
        ctx.reply.Error("ERR No such master with that name");
      }
      return;
    }
  }
  if (sub == "masters") {
    ctx.reply.Array(1);
    WriteMaster(ctx, group);
  } else if (sub == "master") {
    WriteMaster(ctx, group);
  } else if (sub == "get-master-addr-by-name") {
    if (!MasterUsable(group)) {
      ctx.reply.NullArray();
      return;
    }
    ctx.reply.Array(2);
    ctx.reply.Bulk(group.master->host);
    ctx.reply.Bulk(std::to_string(group.master->port));
  } else if (sub == "replicas" || sub == "slaves") {
    WriteReplicas(ctx, group);
  } else if (sub == "sentinels") {
    WriteSentinels(ctx, group);
  } else if (sub == "ckquorum") {
    if (!MasterUsable(group)) {
      ctx.reply.Error(
          "NOQUORUM this site knows no master it can reach: the group has "
          "no quorum, or is electing one");
      return;
    }
    ctx.reply.Simple("OK " +
                     std::to_string(group.state.connected_peers + 1) +
                     " usable Sentinels. Quorum and failover authorization "
                     "can be reached");
  } else {
    ctx.reply.Error(
        "ERR SENTINEL " + std::string(ctx.argv[1]) +
        " is not supported: a frontierd group is set up by its repl-* "
        "directives and elects its master itself; SENTINEL answers MASTERS, "
        "MASTER, GET-MASTER-ADDR-BY-NAME, REPLICAS, SLAVES, SENTINELS, "
        "and CKQUORUM (docs/replication.md)");
  }
}

}  // namespace frontier::commands
