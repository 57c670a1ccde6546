// The Server's side of replication (docs/replication.md): the Replication
// Manager's events, handled on the loop thread. Part of the Server class.
#include <algorithm>

#include "server/auth.h"
#include "server/clock.h"
#include "server/log.h"
#include "server/replication_config.h"
#include "server/server.h"

namespace frontier {
namespace {

// How often every site brings the group's directory up to date (the master
// saves its own address in it, replicas read it): about how soon a new
// master's client address is known everywhere.
constexpr int64_t kDirectoryIntervalMs = 1000;
// How long a replica waits for the master's answer to its announcement
// (sent at every directory sync: its client address and log position).
constexpr int64_t kAnnounceTimeoutMs = 2000;
// While reopening the handles after a rollback fails: how often it is tried.
constexpr int64_t kReopenRetryMs = 200;

// A replica's announcement logs in as cluster forwarding does.
ReplicaAnnouncer::Options AnnounceOptions(const Config& config) {
  ReplicaAnnouncer::Options options;
  options.timeout_ms = kAnnounceTimeoutMs;
  InternalLogin login = InternalCredentials(config);
  options.user = std::move(login.user);
  options.pass = std::move(login.pass);
  return options;
}

bool IsPeer(const ReplicationState& state, std::string_view repl) {
  return std::any_of(state.peers.begin(), state.peers.end(),
                     [&](const ReplicationPeer& peer) {
                       return FormatReplicationSite(ReplicationSite{
                                  peer.host, peer.port}) == repl;
                     });
}

}  // namespace

void Server::StartReplicationEvents() {
  if (!frontier_.options().replication.enabled) return;
  repl_role_ = frontier_.Replication().role;
  client_address_ = AnnouncedClientAddress(
      config_, config_.port != 0 ? config_.port : config_.tls_port);
  directory_timer_ = std::make_unique<Timer>(
      base_.get(), Timer::Kind::kPeriodic, [this] { SyncGroupDirectory(); });
  directory_timer_->Start(kDirectoryIntervalMs);
  announcer_ = std::make_unique<ReplicaAnnouncer>(base_.get());
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
  // The directory is first synced once Listen() knows the port clients
  // reach.
}

void Server::SyncReplicaLog() {
  if (repl_role_ != ReplicationRole::kReplica) return;
  Status s = frontier_.SyncReplicaLog();
  if (!s.ok()) {
    // Busy: Berkeley DB's lock-out while this replica syncs with a new
    // master; it passes within moments and the sync runs again.
    Log(s.IsBusy() ? LogLevel::kVerbose : LogLevel::kWarning,
        "Replication: syncing the replica's log failed: %s",
        s.ToString().c_str());
  }
}

void Server::SyncGroupDirectory() {
  // A replica's log reaches its disk at least once a second.
  SyncReplicaLog();
  StatusOr<std::string> stored = frontier_.GroupDirectory();
  if (!stored.ok()) {  // e.g. a read that met the log being applied
    Log(LogLevel::kVerbose, "Replication: group directory not read: %s",
        stored.status().ToString().c_str());
    return;
  }
  directory_.Load(*stored);
  if (repl_role_ == ReplicationRole::kReplica) {
    AnnounceToMaster();
    return;
  }
  if (repl_role_ != ReplicationRole::kMaster || WritesRefused()) return;
  // The master names itself and the replicas that announced themselves,
  // and forgets the sites that left the group.
  const ReplicationState state = frontier_.Replication();
  std::erase_if(announced_, [&](const auto& entry) {
    return !IsPeer(state, entry.first);
  });
  progress_.RetainIf([&](std::string_view repl) { return IsPeer(state, repl); });
  directory_.RetainIf([&](std::string_view repl) {
    return repl == config_.repl_listen || IsPeer(state, repl);
  });
  directory_.Set(config_.repl_listen, client_address_);
  for (const auto& [repl, client] : announced_) directory_.Set(repl, client);
  const std::string text = directory_.Encode();
  if (text == *stored) return;
  CommitPass();  // a write of its own, outside the clients' pass
  Status s = frontier_.PutGroupDirectory(text);
  if (!s.ok()) {  // no quorum now, say: tried again in a second
    Log(LogLevel::kVerbose, "Replication: group directory not saved: %s",
        s.ToString().c_str());
  }
}

void Server::AnnounceToMaster() {
  // Every time, even once the directory names this site: the master
  // learns how far this site's log is from it (ReplicaProgress).
  const ReplicationState state = frontier_.Replication();
  if (state.master.empty() || !state.master_link_up) return;
  const std::string master = directory_.ClientAddress(state.master);
  if (master.empty()) return;  // not named yet: it names itself first
  announcer_->Announce(master, config_.repl_listen, client_address_,
                       state.log_offset, AnnounceOptions(config_), NowMs());
}

std::optional<ReplicaReport> Server::ReplicaReportOf(
    std::string_view repl) const {
  if (repl_role_ != ReplicationRole::kMaster) return std::nullopt;
  return progress_.Find(repl);
}

Status Server::NoteReplicaAddress(std::string_view repl,
                                  std::string_view client,
                                  std::optional<uint64_t> offset) {
  if (repl_role_ != ReplicationRole::kMaster) {
    return Status::Unavailable(
        "this site is not the master of its replication group");
  }
  if (repl == config_.repl_listen ||
      !IsPeer(frontier_.Replication(), repl)) {
    return Status::InvalidArgument(
        "'" + std::string(repl) + "' is not another site of this group");
  }
  if (!ParseReplicationSite(client)) {
    return Status::InvalidArgument("invalid client address '" +
                                   std::string(client) +
                                   "': host:port or [ipv6]:port");
  }
  announced_.insert_or_assign(std::string(repl), std::string(client));
  if (offset) progress_.Note(repl, *offset, NowMs());
  return Status::OK();  // saved by the next SyncGroupDirectory
}

void Server::ReopenDeadHandles() {
  // While it fails (the site still syncing, say), a try every
  // kReopenRetryMs, not every pass.
  const int64_t now = handles_reopen_failing_ ? NowMs() : 0;
  if (handles_reopen_failing_ && now - last_reopen_try_ms_ < kReopenRetryMs) {
    return;
  }
  last_reopen_try_ms_ = now;
  StatusOr<bool> reopened = frontier_.ReopenDeadHandles();
  if (!reopened.ok()) {
    if (!handles_reopen_failing_) {
      Log(LogLevel::kWarning,
          "Replication: reopening the database handles after a rollback "
          "failed (%s); trying again",
          reopened.status().ToString().c_str());
    }
    handles_reopen_failing_ = true;
  } else if (*reopened) {
    handles_reopen_failing_ = false;
    Log(LogLevel::kNotice,
        "Replication: Berkeley DB rolled back writes the group had not "
        "acknowledged; the database handles were reopened and the "
        "in-memory state rebuilt from the data");
  }
}

std::string Server::ClientAddressOf(std::string_view repl) const {
  if (repl == config_.repl_listen) return client_address_;
  return directory_.ClientAddress(repl);
}

void Server::OnReplicationEvent(const ReplicationEvent& event) {
  using Kind = ReplicationEvent::Kind;
  switch (event.kind) {
    case Kind::kBecameMaster:
      if (repl_role_ != ReplicationRole::kMaster) {
        Log(LogLevel::kNotice,
            "Replication: this site is now the MASTER of its group");
        progress_.Clear();  // what an earlier term heard is stale
      }
      repl_role_ = ReplicationRole::kMaster;
      break;
    case Kind::kBecameReplica:
      if (repl_role_ != ReplicationRole::kReplica) {
        Log(LogLevel::kNotice, "Replication: this site is now a REPLICA");
      }
      repl_role_ = ReplicationRole::kReplica;
      SyncReplicaLog();  // also stops waiting out lock-outs at once
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
    case Kind::kSiteAdded:
      Log(LogLevel::kNotice, "Replication: a site joined the group (%u now)",
          frontier_.Replication().sites);
      SyncReplicaLog();  // a membership a restart must not forget
      break;
    case Kind::kSiteRemoved:
      Log(LogLevel::kNotice,
          "Replication: a site was removed from the group (%u now)",
          frontier_.Replication().sites);
      SyncReplicaLog();
      break;
    case Kind::kRemoved:
      Log(LogLevel::kWarning,
          "Replication: this site was REMOVED from its group: it takes no "
          "writes and receives no more of the group's; stop it");
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
  if (event.kind == Kind::kBecameMaster || event.kind == Kind::kBecameReplica ||
      event.kind == Kind::kNewMaster) {
    NoteOwnMaster();  // the cluster's view of this shard (server_cluster.cc)
  }
}

}  // namespace frontier
