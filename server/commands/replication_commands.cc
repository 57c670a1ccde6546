// Replication commands (docs/replication.md, docs/commands.md#replication):
// ROLE, READONLY, READWRITE and INFO's "# Replication", in Redis's formats
// so that Redis clients and tools read them unchanged.
#include <string>

#include "server/commands/commands.h"
#include "server/args.h"
#include "server/replication_config.h"
#include "server/replication_view.h"

namespace frontier::commands {
namespace {

void Field(std::string& out, std::string_view key, std::string_view value) {
  out.append(key).append(":").append(value).append("\r\n");
}

}  // namespace

// ROLE: ["master", offset, [[host, port, offset], ...]] on a master (and a
// single node, whose list is empty), ["slave", host, port, state, offset]
// on a replica. Addresses are where clients reach the sites (GroupView).
// Offsets are log ends in bytes (ReplicationState::log_offset): this
// site's own, and each replica's as it last reported it (ReplicaProgress;
// "0" before its first report).
void RoleCommand(CommandContext& ctx) {
  const GroupView group = ViewGroup(ctx.frontier, ctx.config, ctx.server);
  const auto offset = static_cast<int64_t>(group.state.log_offset);
  if (group.state.role == ReplicationRole::kReplica) {
    const GroupSite master = group.master.value_or(GroupSite{});
    const auto [host, port] = master.host_port();
    ctx.reply.Array(5);
    ctx.reply.Bulk("slave");
    ctx.reply.Bulk(host);
    ctx.reply.Int(port);
    ctx.reply.Bulk(master.up ? "connected" : "connect");
    ctx.reply.Int(offset);
    return;
  }
  size_t connected = 0;
  for (const GroupSite& site : group.replicas) connected += site.up;
  ctx.reply.Array(3);
  ctx.reply.Bulk("master");
  ctx.reply.Int(offset);
  ctx.reply.Array(connected);
  for (const GroupSite& site : group.replicas) {
    if (!site.up) continue;
    const auto [host, port] = site.host_port();
    ctx.reply.Array(3);
    ctx.reply.Bulk(host);
    ctx.reply.Bulk(std::to_string(port));
    ctx.reply.Bulk(std::to_string(site.lag.offset));
  }
}

// REPLICATION REMOVE host:port: takes a site out of the group, so that
// the quorum is counted without it (docs/replication.md, "Adding and
// removing sites"). REPLICATION ANNOUNCE: replication_announce.cc.
void Replication(CommandContext& ctx) {
  const std::string sub = ToLower(ctx.argv[1]);
  if (sub == "announce") {
    ReplicationAnnounce(ctx);
    return;
  }
  if (sub == "takeover") {
    ReplicationTakeover(ctx);
    return;
  }
  if (sub != "remove" || ctx.argv.size() != 3) {
    ctx.reply.Error(
        "ERR syntax error: REPLICATION REMOVE host:port (a site's "
        "repl-listen address)");
    return;
  }
  std::optional<ReplicationSite> site = ParseReplicationSite(ctx.argv[2]);
  if (!site) {
    ctx.reply.Error("ERR invalid replication address '" +
                    std::string(ctx.argv[2]) +
                    "': host:port or [ipv6]:port");
    return;
  }
  Status s = ctx.frontier.RemoveReplicationSite(*site);
  if (!s.ok()) {
    ctx.reply.Error("ERR " + s.message());
    return;
  }
  ctx.reply.Simple("OK");
}

// READONLY / READWRITE: as in Redis Cluster, whether this connection reads
// from a replica (whose data may lag the master's). Writes stay refused on
// a replica either way.
void ReadOnly(CommandContext& ctx) {
  ctx.client.reads_replica = true;
  ctx.reply.Simple("OK");
}

void ReadWrite(CommandContext& ctx) {
  ctx.client.reads_replica = false;
  ctx.reply.Simple("OK");
}

void ReplicationSection(const CommandContext& ctx, std::string& out) {
  const GroupView group = ViewGroup(ctx.frontier, ctx.config, ctx.server);
  const ReplicationState& st = group.state;
  out += "# Replication\r\n";
  const std::string offset = std::to_string(st.log_offset);
  if (st.role == ReplicationRole::kReplica) {
    const GroupSite master = group.master.value_or(GroupSite{});
    const auto [host, port] = master.host_port();
    Field(out, "role", "slave");
    Field(out, "master_host", host);
    Field(out, "master_port", std::to_string(port));
    Field(out, "master_link_status", master.up ? "up" : "down");
    Field(out, "slave_read_only", "1");
    Field(out, "slave_repl_offset", offset);
  } else {
    Field(out, "role", "master");
    size_t n = 0;
    std::string lines;
    for (const GroupSite& site : group.replicas) {
      if (!site.up) continue;
      const auto [host, port] = site.host_port();
      // Redis's fields (lag: seconds since the replica's last report,
      // -1 before the first), then frontierd's: the bytes it lacks.
      lines += "slave" + std::to_string(n++) + ":ip=" + host +
               ",port=" + std::to_string(port) +
               ",state=online,offset=" + std::to_string(site.lag.offset) +
               ",lag=" + std::to_string(site.lag.lag_seconds) +
               ",lag_bytes=" + std::to_string(site.lag.lag_bytes) + "\r\n";
    }
    Field(out, "connected_slaves", std::to_string(n));
    out += lines;
  }
  // Redis's: a FAILOVER of this site in progress, and how far.
  Field(out, "master_failover_state", ctx.server.HandoverState());
  Field(out, "master_repl_offset", offset);
  // frontierd's own: the group as this site knows it.
  Field(out, "repl_enabled", st.role == ReplicationRole::kNone ? "0" : "1");
  Field(out, "repl_sites", std::to_string(st.sites));
  Field(out, "repl_connected_peers", std::to_string(st.connected_peers));
  Field(out, "repl_perm_failed", std::to_string(st.perm_failed));
  Field(out, "repl_elections_won", std::to_string(st.elections_won));
  if (st.role == ReplicationRole::kNone) return;
  Field(out, "repl_name", ctx.config.repl_name);
  size_t i = 0;
  for (const GroupSite& peer : group.peers) {
    const bool is_master = group.master && group.master->repl == peer.repl;
    std::string line = "repl=" + peer.repl +
                       ",client=" + (peer.known() ? peer.address() : "?") +
                       ",role=" + (is_master ? "master" : "replica") +
                       ",link=" + (peer.up ? "up" : "down");
    if (st.role == ReplicationRole::kMaster) {  // a replica's report
      line += ",offset=" + std::to_string(peer.lag.offset) +
              ",lag=" + std::to_string(peer.lag.lag_seconds) +
              ",lag_bytes=" + std::to_string(peer.lag.lag_bytes);
    }
    Field(out, "repl_peer" + std::to_string(i++), line);
  }
}

}  // namespace frontier::commands
