// CLUSTER INFO|MYID|SLOTS|SHARDS|NODES|KEYSLOT|RELOAD|LINK|HELP, ASKING and
// INFO's "# Cluster" (docs/cluster.md), in Redis Cluster's formats so that
// its clients (redis-py's RedisCluster, ioredis's Cluster) read the map
// unchanged. Which member of a shard is its master is the node's belief
// (ClusterState::masters); every slot has one owner, so the cluster is
// "ok" whenever a map is loaded.
#include <string>

#include "cluster/key_slot.h"
#include "server/args.h"
#include "server/cluster_route.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/reply.h"

namespace frontier::commands {
namespace {

constexpr std::string_view kClusterHelp[] = {
    "CLUSTER <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "INFO",
    "    Return information about the cluster.",
    "MYID",
    "    Return this node's id.",
    "SLOTS",
    "    Return the slot ranges and the nodes that serve them.",
    "SHARDS",
    "    Return the shards: their slot ranges and nodes.",
    "NODES",
    "    Return the cluster's nodes, in Redis's CLUSTER NODES format.",
    "KEYSLOT <key>",
    "    Return the slot of a key: of a URL or a site, its site's.",
    "RELOAD",
    "    Re-read the cluster-config-file (a bad file changes nothing).",
    "LINK",
    "    Mark this connection as another node's: never forwarded again.",
    "HELP",
    "    Print this help.",
};

bool IsMaster(const ClusterState& state, size_t node) {
  return state.masters[state.map->nodes()[node].shard] == node;
}

// A shard's members, its master first.
std::vector<size_t> MembersMasterFirst(const ClusterState& state,
                                       size_t shard) {
  std::vector<size_t> members = {state.masters[shard]};
  for (size_t node : state.map->shards()[shard].nodes) {
    if (node != state.masters[shard]) members.push_back(node);
  }
  return members;
}

void ClusterSlots(CommandContext& ctx, const ClusterState& state) {
  const cluster::ClusterMap& map = *state.map;
  size_t ranges = 0;
  for (const cluster::Shard& shard : map.shards())
    ranges += shard.ranges.size();
  ctx.reply.Array(ranges);
  for (size_t s = 0; s < map.shards().size(); ++s) {
    const std::vector<size_t> members = MembersMasterFirst(state, s);
    for (const cluster::SlotRange& range : map.shards()[s].ranges) {
      ctx.reply.Array(2 + members.size());
      ctx.reply.Int(range.first);
      ctx.reply.Int(range.last);
      for (size_t node : members) {
        const cluster::Node& n = map.nodes()[node];
        ctx.reply.Array(3);
        ctx.reply.Bulk(n.resp.host);
        ctx.reply.Int(n.resp.port);
        ctx.reply.Bulk(n.id);
      }
    }
  }
}

// Redis 7's map replies, flattened into arrays as in RESP2.
void ClusterShards(CommandContext& ctx, const ClusterState& state) {
  const cluster::ClusterMap& map = *state.map;
  ctx.reply.Array(map.shards().size());
  for (size_t s = 0; s < map.shards().size(); ++s) {
    const cluster::Shard& shard = map.shards()[s];
    ctx.reply.Array(4);
    ctx.reply.Bulk("slots");
    ctx.reply.Array(2 * shard.ranges.size());
    for (const cluster::SlotRange& range : shard.ranges) {
      ctx.reply.Int(range.first);
      ctx.reply.Int(range.last);
    }
    ctx.reply.Bulk("nodes");
    const std::vector<size_t> members = MembersMasterFirst(state, s);
    ctx.reply.Array(members.size());
    for (size_t node : members) {
      const cluster::Node& n = map.nodes()[node];
      ctx.reply.Array(14);
      ctx.reply.Bulk("id");
      ctx.reply.Bulk(n.id);
      ctx.reply.Bulk("port");
      ctx.reply.Int(n.resp.port);
      ctx.reply.Bulk("ip");
      ctx.reply.Bulk(n.resp.host);
      ctx.reply.Bulk("endpoint");
      ctx.reply.Bulk(n.resp.host);
      ctx.reply.Bulk("role");
      ctx.reply.Bulk(IsMaster(state, node) ? "master" : "replica");
      ctx.reply.Bulk("replication-offset");
      ctx.reply.Int(0);
      ctx.reply.Bulk("health");
      ctx.reply.Bulk("online");
    }
  }
}

// One line per node: id ip:port@cport flags master ping-sent pong-recv
// config-epoch link-state slot... (no cluster bus: cport 0).
void ClusterNodes(CommandContext& ctx, const ClusterState& state) {
  const cluster::ClusterMap& map = *state.map;
  const std::string epoch = std::to_string(map.epoch());
  std::string out;
  for (size_t node = 0; node < map.nodes().size(); ++node) {
    const cluster::Node& n = map.nodes()[node];
    const bool master = IsMaster(state, node);
    out += n.id + " " + n.resp.ToString() + "@0 ";
    if (node == state.self) out += "myself,";
    out += master ? "master - "
                  : "slave " + map.nodes()[state.masters[n.shard]].id + " ";
    out += "0 0 " + epoch + " connected";
    if (master) {
      for (const cluster::SlotRange& range : map.shards()[n.shard].ranges) {
        out += " " + std::to_string(range.first);
        if (range.last != range.first) out += "-" + std::to_string(range.last);
      }
    }
    out += "\n";
  }
  ctx.reply.Bulk(out);
}

std::string ClusterInfoText(const ClusterState& state) {
  const cluster::ClusterMap& map = *state.map;
  const std::string epoch = std::to_string(map.epoch());
  std::string out;
  out += "cluster_state:ok\r\n";
  out += "cluster_slots_assigned:16384\r\n";
  out += "cluster_slots_ok:16384\r\n";
  out += "cluster_slots_pfail:0\r\n";
  out += "cluster_slots_fail:0\r\n";
  out += "cluster_known_nodes:" + std::to_string(map.nodes().size()) + "\r\n";
  out += "cluster_size:" + std::to_string(map.shards().size()) + "\r\n";
  out += "cluster_current_epoch:" + epoch + "\r\n";
  out += "cluster_my_epoch:" + epoch + "\r\n";
  out += "cluster_stats_messages_sent:0\r\n";
  out += "cluster_stats_messages_received:0\r\n";
  out += "total_cluster_links_buffer_limit_exceeded:0\r\n";
  return out;
}

}  // namespace

// CLUSTER subcommand [args]
void ClusterCommand(CommandContext& ctx) {
  const std::string& sub = ctx.argv[1];
  const size_t argc = ctx.argv.size();
  if (EqualsIgnoreCase(sub, "HELP") && argc == 2) {
    ctx.reply.Array(std::size(kClusterHelp));
    for (std::string_view line : kClusterHelp) ctx.reply.Simple(line);
    return;
  }
  if (EqualsIgnoreCase(sub, "KEYSLOT") && argc == 3) {
    // Answered in or out of a cluster, as the slot is a pure function.
    const SiteRules rules{ctx.config.politeness_scope,
                          ctx.config.max_url_length};
    ctx.reply.Int(SlotOfKey(ctx.argv[2], rules));
    return;
  }
  const bool known =
      EqualsIgnoreCase(sub, "INFO") || EqualsIgnoreCase(sub, "MYID") ||
      EqualsIgnoreCase(sub, "SLOTS") || EqualsIgnoreCase(sub, "SHARDS") ||
      EqualsIgnoreCase(sub, "NODES") || EqualsIgnoreCase(sub, "RELOAD") ||
      EqualsIgnoreCase(sub, "LINK");
  if (!known) {
    if (EqualsIgnoreCase(sub, "KEYSLOT") || EqualsIgnoreCase(sub, "HELP")) {
      ReplyWrongArity(ctx.reply, "cluster|" + ToLower(sub));
    } else {
      ReplyUnknownSubcommand(ctx.reply, "cluster", sub);
    }
    return;
  }
  if (argc != 2) {
    ReplyWrongArity(ctx.reply, "cluster|" + ToLower(sub));
    return;
  }
  const ClusterState* state = ctx.server.cluster();
  if (state == nullptr) {
    ctx.reply.Error(errors::kClusterDisabled);
    return;
  }
  if (EqualsIgnoreCase(sub, "INFO")) {
    ctx.reply.Bulk(ClusterInfoText(*state));
  } else if (EqualsIgnoreCase(sub, "MYID")) {
    ctx.reply.Bulk(state->map->nodes()[state->self].id);
  } else if (EqualsIgnoreCase(sub, "SLOTS")) {
    ClusterSlots(ctx, *state);
  } else if (EqualsIgnoreCase(sub, "SHARDS")) {
    ClusterShards(ctx, *state);
  } else if (EqualsIgnoreCase(sub, "NODES")) {
    ClusterNodes(ctx, *state);
  } else if (EqualsIgnoreCase(sub, "LINK")) {
    ctx.client.cluster_link = true;
    ctx.reply.Ok();
  } else {  // RELOAD
    if (Status s = ctx.server.ReloadCluster(); !s.ok()) {
      ReplyStatus(ctx.reply, s);
      return;
    }
    ctx.reply.Ok();
  }
}

// ASKING: no slot ever migrates yet (docs/cluster.md), so it only says OK.
void Asking(CommandContext& ctx) { ctx.reply.Ok(); }

void ClusterSection(const CommandContext& ctx, std::string& out) {
  out += "# Cluster\r\n";
  const ClusterState* state = ctx.server.cluster();
  out += state == nullptr ? "cluster_enabled:0\r\n" : "cluster_enabled:1\r\n";
  if (state == nullptr) return;
  // frontierd's own: the routing's counters (server_stats.h).
  const ServerStats& s = ctx.stats;
  out += "cluster_forwarded:" + std::to_string(s.cluster_forwarded) + "\r\n";
  out += "cluster_forward_errors:" + std::to_string(s.cluster_forward_errors) +
         "\r\n";
  out += "cluster_moved:" + std::to_string(s.cluster_moved) + "\r\n";
  out += "cluster_forward_bytes_in_flight:" +
         std::to_string(s.cluster_forward_bytes_in_flight) + "\r\n";
  out += "cluster_forward_held:" + std::to_string(s.cluster_forward_held) +
         "\r\n";
  out += "cluster_forward_held_bytes:" +
         std::to_string(s.cluster_forward_held_bytes) + "\r\n";
  out += "cluster_madd_parts:" + std::to_string(s.cluster_madd_parts) +
         "\r\n";
  out += "cluster_madd_batches:" + std::to_string(s.cluster_madd_batches) +
         "\r\n";
}

}  // namespace frontier::commands
