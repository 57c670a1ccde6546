// GroupView: this site's replication group as the replication commands
// (ROLE, INFO's "# Replication", SENTINEL) and /metrics report it, each site with the
// address clients reach it on (the group's directory: server/peer_directory.h), not
// the replication address Berkeley DB knows it by.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/command_context.h"

namespace frontier {

struct GroupSite {
  std::string repl;  // replication address, "host:port"
  std::string host;  // where clients reach it ("" while not heard from)
  int port = 0;
  bool up = false;    // this site, or a peer with a live connection
  bool self = false;  // this site
  // On a master, a replica's position as it last reported it
  // (ReplicaProgress; lag_seconds -1 before its first report); on a
  // replica, its own (this site) from its log.
  ReplicaLag lag;
  bool known() const { return !host.empty(); }
  // "host:port" for clients, or the replication address while unknown.
  std::string address() const;
  // Its client host and port, or its replication ones while unknown.
  std::pair<std::string, int> host_port() const;
};

struct GroupView {
  ReplicationState state;
  // The master: this site, or the one the Replication Manager names;
  // nullopt while none is known.
  std::optional<GroupSite> master;
  // Every site of the group but the master (this one too, if a replica).
  std::vector<GroupSite> replicas;
  // Every other site of the group.
  std::vector<GroupSite> peers;
};

// With replication no: role kNone, no master, no sites. `server` knows the
// client addresses (ServerControl::ClientAddressOf) and, on a master, the
// replicas' positions (ServerControl::ReplicaReportOf).
GroupView ViewGroup(const Frontier& frontier, const Config& config,
                    const ServerControl& server);

}  // namespace frontier
