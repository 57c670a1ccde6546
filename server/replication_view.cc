#include "server/replication_view.h"

#include "server/replication_config.h"

namespace frontier {
namespace {

GroupSite Describe(const ServerControl& server, const std::string& repl,
                   bool up, bool self) {
  GroupSite site{repl, "", 0, up, self};
  const ServerControl::PeerProgress progress = server.ProgressOf(repl);
  site.offset = progress.offset;
  site.heard_ms = progress.heard_ms;
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

GroupView ViewGroup(const Frontier& frontier, const Config& config,
                    const ServerControl& server) {
  GroupView view;
  view.state = frontier.Replication();
  const ReplicationState& st = view.state;
  if (st.role == ReplicationRole::kNone) return view;
  GroupSite self =
      Describe(server, config.repl_listen, /*up=*/true, /*self=*/true);
  self.offset = view.state.log_offset;
  if (st.role == ReplicationRole::kMaster) {
    view.master = self;
  } else {
    view.replicas.push_back(self);
  }
  for (const ReplicationPeer& peer : st.peers) {
    const std::string repl =
        FormatReplicationSite(ReplicationSite{peer.host, peer.port});
    GroupSite site = Describe(server, repl, peer.connected, /*self=*/false);
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
