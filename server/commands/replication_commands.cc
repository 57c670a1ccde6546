// Replication commands (docs/replication.md, docs/commands.md#replication):
// ROLE, READONLY, READWRITE and INFO's "# Replication", in Redis's formats
// so that Redis clients and tools read them unchanged.
#include <string>

#include "server/commands/commands.h"

namespace frontier::commands {
namespace {

// "host:port" -> host and port; the port is 0 if there is none.
std::pair<std::string, int64_t> SplitAddress(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return {address, 0};
  return {address.substr(0, colon), std::stoll(address.substr(colon + 1))};
}

void Field(std::string& out, std::string_view key, std::string_view value) {
  out.append(key).append(":").append(value).append("\r\n");
}

}  // namespace

// ROLE: ["master", offset, [[host, port, offset], ...]] on a master (and a
// single node, whose list is empty), ["slave", host, port, state, offset]
// on a replica. Offsets are this site's log end as one number (file << 32
// | offset); a peer's is not known and is "0".
void RoleCommand(CommandContext& ctx) {
  const ReplicationState st = ctx.frontier.Replication();
  const auto offset = static_cast<int64_t>(st.log_offset);
  if (st.role == ReplicationRole::kReplica) {
    const auto [host, port] = SplitAddress(st.master);
    ctx.reply.Array(5);
    ctx.reply.Bulk("slave");
    ctx.reply.Bulk(host);
    ctx.reply.Int(port);
    ctx.reply.Bulk(st.master_link_up ? "connected" : "connect");
    ctx.reply.Int(offset);
    return;
  }
  size_t connected = 0;
  for (const ReplicationPeer& peer : st.peers) connected += peer.connected;
  ctx.reply.Array(3);
  ctx.reply.Bulk("master");
  ctx.reply.Int(offset);
  ctx.reply.Array(connected);
  for (const ReplicationPeer& peer : st.peers) {
    if (!peer.connected) continue;
    ctx.reply.Array(3);
    ctx.reply.Bulk(peer.host);
    ctx.reply.Bulk(std::to_string(peer.port));
    ctx.reply.Bulk("0");
  }
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
  const ReplicationState st = ctx.frontier.Replication();
  out += "# Replication\r\n";
  const std::string offset = std::to_string(st.log_offset);
  if (st.role == ReplicationRole::kReplica) {
    const auto [host, port] = SplitAddress(st.master);
    Field(out, "role", "slave");
    Field(out, "master_host", host);
    Field(out, "master_port", std::to_string(port));
    Field(out, "master_link_status", st.master_link_up ? "up" : "down");
    Field(out, "slave_read_only", "1");
    Field(out, "slave_repl_offset", offset);
  } else {
    Field(out, "role", "master");
    size_t n = 0;
    std::string lines;
    for (const ReplicationPeer& peer : st.peers) {
      if (!peer.connected) continue;
      lines += "slave" + std::to_string(n++) + ":ip=" + peer.host +
               ",port=" + std::to_string(peer.port) +
               ",state=online,offset=0,lag=0\r\n";
    }
    Field(out, "connected_slaves", std::to_string(n));
    out += lines;
  }
  Field(out, "master_repl_offset", offset);
  // frontierd's own: the group as this site knows it.
  Field(out, "repl_enabled", st.role == ReplicationRole::kNone ? "0" : "1");
  Field(out, "repl_sites", std::to_string(st.sites));
  Field(out, "repl_connected_peers", std::to_string(st.connected_peers));
  Field(out, "repl_perm_failed", std::to_string(st.perm_failed));
  Field(out, "repl_elections_won", std::to_string(st.elections_won));
}

}  // namespace frontier::commands
