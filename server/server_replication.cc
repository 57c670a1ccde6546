// The Server's side of replication (docs/replication.md): the Replication
// Manager's events, handled on the loop thread. Part of the Server class.
#include "server/log.h"
#include "server/server.h"

namespace frontier {

void Server::StartReplicationEvents() {
  if (!frontier_.options().replication.enabled) return;
  repl_role_ = frontier_.Replication().role;
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
      break;
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
}

}  // namespace frontier
