// The Server's side of replication (docs/replication.md): the Replication
// Manager's events, handled on the loop thread. Part of the Server class.
#include "server/clock.h"
#include "server/log.h"
#include "server/replication_config.h"
#include "server/server.h"

namespace frontier {
namespace {

// How often a site repeats its hello to the peers it is connected to (it
// also sends one as soon as a connection opens): the resolution of the
// peers' offsets and lag in ROLE, INFO and /metrics.
constexpr int64_t kHelloIntervalMs = 1000;

}  // namespace

void Server::StartReplicationEvents() {
  if (!frontier_.options().replication.enabled) return;
  repl_role_ = frontier_.Replication().role;
  client_address_ = AnnouncedClientAddress(
      config_, config_.port != 0 ? config_.port : config_.tls_port);
  hello_timer_ = std::make_unique<Timer>(base_.get(), Timer::Kind::kPeriodic,
                                         [this] { SendHello(); });
  hello_timer_->Start(kHelloIntervalMs);
  repl_events_ = std::make_unique<ReplicationEvents>(
      base_.get(), frontier_,
      [this](const ReplicationEvent& event) { OnReplicationEvent(event); });
  // A role change between Open and here is in Replication() already.
  const ReplicationState state = frontier_.Replication();
  repl_role_ = state.role;
  if (repl_role_ == ReplicationRole::kMaster) {
    Log(LogLevel::kNotice,
        "Replication: this site is the MASTER of its group (%u site(s))",
        state.sites);
  } else {
    Log(LogLevel::kNotice, "Replication: this site is a REPLICA of %s",
        state.master.empty() ? "an unknown master" : state.master.c_str());
  }
  SendHello();
}

void Server::SendHello() {
  const std::string hello = PeerDirectory::Encode(
      {config_.repl_name, config_.repl_listen, client_address_,
       frontier_.Replication().log_offset});
  Status s = frontier_.SendToPeers(hello);
  if (!s.ok()) {
    Log(LogLevel::kVerbose, "Replication: hello not sent: %s",
        s.ToString().c_str());
  }
}

ServerControl::PeerProgress Server::ProgressOf(std::string_view repl) const {
  return {peers_.Offset(repl), peers_.LastHeardMs(repl)};
}

std::string Server::ClientAddressOf(std::string_view repl) const {
  if (repl == config_.repl_listen) return client_address_;
  return peers_.ClientAddress(repl);
}

void Server::OnReplicationEvent(const ReplicationEvent& event) {
  using Kind = ReplicationEvent::Kind;
  switch (event.kind) {
    case Kind::kBecameMaster:
      if (repl_role_ != ReplicationRole::kMaster) {
        Log(LogLevel::kNotice,
            "Replication: this site is now the MASTER of its group");
      }
      repl_role_ = ReplicationRole::kMaster;
      break;
    case Kind::kBecameReplica:
      if (repl_role_ != ReplicationRole::kReplica) {
        Log(LogLevel::kNotice, "Replication: this site is now a REPLICA");
      }
      repl_role_ = ReplicationRole::kReplica;
      break;
    case Kind::kNewMaster:
      Log(LogLevel::kNotice, "Replication: the group's master is %s",
          frontier_.Replication().master.c_str());
      break;
    case Kind::kStartupDone:
      Log(LogLevel::kNotice, "Replication: caught up with the master");
      break;
    case Kind::kConnected:
      Log(LogLevel::kVerbose, "Replication: connected to site eid=%d",
          event.eid);
      SendHello();  // the new peer learns where clients reach this site
      break;
    case Kind::kSiteAdded:
      Log(LogLevel::kNotice, "Replication: a site joined the group (%u now)",
          frontier_.Replication().sites);
      break;
    case Kind::kSiteRemoved:
      Log(LogLevel::kNotice,
          "Replication: a site was removed from the group (%u now)",
          frontier_.Replication().sites);
      break;
    case Kind::kRemoved:
      Log(LogLevel::kWarning,
          "Replication: this site was REMOVED from its group: it takes no "
          "writes and receives no more of the group's; stop it");
      break;
    case Kind::kMessage: {
      std::optional<PeerDirectory::Hello> hello =
          PeerDirectory::Decode(event.message);
      if (!hello) break;  // not a hello: nothing else is sent
      const bool known = peers_.ClientAddress(hello->repl) == hello->client;
      peers_.Learn(*hello, NowMs());
      if (known) break;
      Log(LogLevel::kVerbose, "Replication: site %s serves clients on %s",
          hello->repl.c_str(), hello->client.c_str());
      if (hello->group != config_.repl_name) {
        Log(LogLevel::kWarning,
            "Replication: site %s calls its group %s, this one %s: "
            "repl-name should be the same on every site",
            hello->repl.c_str(), hello->group.c_str(),
            config_.repl_name.c_str());
      }
      break;
    }
    case Kind::kDisconnected:
      Log(LogLevel::kNotice, "Replication: lost the connection to site eid=%d",
          event.eid);
      break;
    case Kind::kElectionFailed:
      Log(LogLevel::kWarning,
          "Replication: no master could be elected (fewer than a quorum of "
          "the group's sites reachable)");
      break;
    case Kind::kPermFailed:
      Log(LogLevel::kVerbose,
          "Replication: a commit was not acknowledged by a quorum within "
          "repl-ack-timeout (NOQUORUM)");
      break;
    case Kind::kPanic:
      Log(LogLevel::kWarning,
          "Replication: the environment panicked; restart the server");
      break;
  }
  if (event.kind == Kind::kBecameMaster || event.kind == Kind::kBecameReplica ||
      event.kind == Kind::kNewMaster) {
    NoteOwnMaster();  // the cluster's view of this shard (server_cluster.cc)
  }
}

}  // namespace frontier
