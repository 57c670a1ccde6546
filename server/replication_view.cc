#include "server/replication_view.h"

#include "server/clock.h"
#include "server/replication_config.h"

namespace frontier {
namespace {

GroupSite Describe(const ServerControl& server, const std::string& repl,
                   bool up, bool self) {
  GroupSite site{repl, "", 0, up, self, {}};
  if (auto client = ParseReplicationSite(server.ClientAddressOf(repl))) {
    site.host = client->host;
    site.port = client->port;
  }
  return site;
}

}  // namespace

std::string GroupSite::address() const {
  if (!known()) return repl;
  return FormatReplicationSite(
      ReplicationSite{host, static_cast<uint16_t>(port)});
}

std::pair<std::string, int> GroupSite::host_port() const {
  if (known()) return {host, port};
  std::optional<ReplicationSite> site = ParseReplicationSite(repl);
  if (!site) return {repl, 0};
  return {site->host, site->port};
}

GroupView ViewGroup(const Frontier& frontier, const Config& config,
                    const ServerControl& server) {
  GroupView view;
  view.state = frontier.Replication();
  const ReplicationState& st = view.state;
  if (st.role == ReplicationRole::kNone) return view;
  GroupSite self =
      Describe(server, config.repl_listen, /*up=*/true, /*self=*/true);
  self.lag = ReplicaLag{st.log_offset, 0, 0};
  const int64_t now = NowMs();
  if (st.role == ReplicationRole::kMaster) {
    view.master = self;
  } else {
    view.replicas.push_back(self);
  }
  for (const ReplicationPeer& peer : st.peers) {
    const std::string repl =
        FormatReplicationSite(ReplicationSite{peer.host, peer.port});
    GroupSite site = Describe(server, repl, peer.connected, /*self=*/false);
    if (st.role == ReplicationRole::kMaster) {
      site.lag = LagOf(server.ReplicaReportOf(repl), st.log_offset, now);
    }
    view.peers.push_back(site);
    if (st.role == ReplicationRole::kReplica && repl == st.master) {
      // A replica's view of its master's link is the replication link.
      site.up = st.master_link_up;
      view.master = site;
    } else {
      view.replicas.push_back(site);
    }
  }
  return view;
}

}  // namespace frontier
