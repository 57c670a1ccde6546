#include "storage/replicator.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "storage/bdb.h"

namespace frontier {
namespace {

db_timeout_t Micros(int64_t ms) { return static_cast<db_timeout_t>(ms * 1000); }

// "host:port", "[ipv6]:port": as repl-listen and repl-peers are written.
std::string Address(const std::string& host, u_int port) {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

// How often a broken connection to a peer is tried again. Berkeley DB's
// default, 30 s, would leave a restarted replica out of the quorum that
// long.
constexpr int64_t kConnectionRetryMs = 1000;
// Message-processing threads: one applies the log on a replica, the others
// answer requests (acknowledgements, elections) meanwhile.
constexpr int kRepmgrThreads = 3;

Status Configure(DbEnv* env, const ReplicationSite& site, u_int32_t which) {
  DbSite* handle = nullptr;
  Status s = bdb::FromDb(
      env->repmgr_site(site.host.c_str(), site.port, &handle, 0),
      "repmgr_site " + site.host + ":" + std::to_string(site.port));
  if (!s.ok()) return s;
  s = bdb::FromDb(handle->set_config(which, 1), "repmgr site set_config");
  Status closed = bdb::FromDb(handle->close(), "repmgr site close");
  return s.ok() ? closed : s;
}

}  // namespace

const char* ReplicationRoleName(ReplicationRole role) {
  switch (role) {
    case ReplicationRole::kNone:
      return "none";
    case ReplicationRole::kMaster:
      return "master";
    case ReplicationRole::kReplica:
      return "replica";
  }
  return "?";
}

Replicator::Replicator(const ReplicationOptions& options)
    : options_(options) {}

Status Replicator::Configure(DbEnv* env) {
  env->set_app_private(this);
  Status s = bdb::FromDb(env->set_event_notify(&Replicator::OnEvent),
                         "set_event_notify");
  // Diagnostics (docs/replication.md, "Diagnosing elections"): Berkeley
  // DB's own account of elections and connections, and of the deadlock
  // detector's runs (a lock cycle, unlike the API lock-out that is
  // reported as DB_LOCK_DEADLOCK too), on stderr.
  if (const char* v = std::getenv("FRONTIERD_REPL_VERBOSE");
      s.ok() && v != nullptr && *v != '\0' && *v != '0') {
    env->set_msgfile(stderr);
    for (u_int32_t which : {DB_VERB_REP_ELECT, DB_VERB_REPMGR_CONNFAIL,
                            DB_VERB_REPMGR_MISC, DB_VERB_REP_MISC,
                            DB_VERB_DEADLOCK, DB_VERB_WAITSFOR}) {
      if (s.ok()) s = bdb::FromDb(env->set_verbose(which, 1), "set_verbose");
    }
  }

  // Replicas read while the Replication Manager's threads apply the log:
  // a deadlock between them is broken at once, the reader failing.
  if (s.ok()) s = bdb::FromDb(env->set_lk_detect(DB_LOCK_DEFAULT), "set_lk_detect");
  if (s.ok()) {
    DbSite* local = nullptr;
    s = bdb::FromDb(env->repmgr_site(options_.listen.host.c_str(),
                                     options_.listen.port, &local, 0),
                    "repmgr_site (repl-listen)");
    if (s.ok()) {
      s = bdb::FromDb(local->set_config(DB_LOCAL_SITE, 1), "repl-listen");
      if (s.ok() && options_.group_creator) {
        s = bdb::FromDb(local->set_config(DB_GROUP_CREATOR, 1),
                        "repl-group-creator");
      }
      Status closed = bdb::FromDb(local->close(), "repmgr site close");
      if (s.ok()) s = closed;
    }
  }
  for (const ReplicationSite& peer : options_.peers) {
    if (s.ok()) s = frontier::Configure(env, peer, DB_BOOTSTRAP_HELPER);
  }
  if (s.ok()) {
    s = bdb::FromDb(env->repmgr_set_ack_policy(DB_REPMGR_ACKS_QUORUM),
                    "repmgr_set_ack_policy");
  }
  if (s.ok()) {
    s = bdb::FromDb(env->rep_set_priority(options_.priority),
                    "rep_set_priority");
  }
  // The log records of a transaction go out in one message, at its
  // commit, instead of one message each.
  if (s.ok()) {
    s = bdb::FromDb(env->rep_set_config(DB_REP_CONF_BULK, 1),
                    "rep_set_config(DB_REP_CONF_BULK)");
  }
  const std::pair<int, int64_t> timeouts[] = {
      {DB_REP_ACK_TIMEOUT, options_.ack_timeout_ms},
      {DB_REP_ELECTION_TIMEOUT, options_.election_timeout_ms},
      {DB_REP_ELECTION_RETRY, options_.election_timeout_ms},
      {DB_REP_HEARTBEAT_SEND, options_.heartbeat_ms},
      {DB_REP_HEARTBEAT_MONITOR, 3 * options_.heartbeat_ms},
      {DB_REP_CONNECTION_RETRY, kConnectionRetryMs},
      // Berkeley DB's default makes a master's checkpoint wait 30 s for
      // the replicas' own; a replica checkpoints when the record comes.
      {DB_REP_CHECKPOINT_DELAY, 0},
  };
  for (const auto& [which, ms] : timeouts) {
    if (s.ok()) {
      s = bdb::FromDb(env->rep_set_timeout(which, Micros(ms)),
                      "rep_set_timeout");
    }
  }
  return s;
}

Status Replicator::Start(DbEnv* env, int64_t wait_ms) {
  Status s = bdb::FromDb(env->repmgr_start(kRepmgrThreads, DB_REP_ELECTION),
                         "repmgr_start");
  if (!s.ok()) return s;
  std::unique_lock<std::mutex> lock(mu_);
  const bool ready = changed_.wait_for(
      lock, std::chrono::milliseconds(wait_ms), [this] {
        return join_failed_ || panicked_ ||
               (master_seen_ && (role_ == ReplicationRole::kMaster ||
                                 startup_done_));
      });
  if (join_failed_) {
    return Status::IOError(
        "this site could not join the replication group (another group "
        "creator, or a peer refused it): see the Berkeley DB messages above");
  }
  if (panicked_) return Status::IOError("the replication environment panicked");
  if (!ready) {
    return Status::IOError(
        "no replication master found within " +
        std::to_string(wait_ms / 1000) +
        " s: start a quorum of the group's sites (the group creator first, "
        "for a new group) and check repl-listen/repl-peers");
  }
  started_ = true;
  return Status::OK();
}

Status Replicator::NotAcknowledged() {
  return Status::NotAcknowledged(
      "the write was not acknowledged by a quorum of the replication group "
      "within repl-ack-timeout: it may or may not survive a failover, and "
      "retrying it is safe");
}

Status Replicator::RetryAfterAbort(const Status& busy) {
  return Status::TryAgain(
      "the replication group was busy (" + busy.message() +
      "): nothing of this command was stored, and retrying it is safe");
}

bool Replicator::CountPeers(DbEnv* env, uint32_t* connected, uint32_t* sites,
                            std::vector<ReplicationPeer>* peers,
                            bool* master_up) const {
  u_int nsites = 0;
  if (env->rep_get_nsites(&nsites) != 0) return false;
  u_int count = 0;
  DB_REPMGR_SITE* list = nullptr;
  if (env->repmgr_site_list(&count, &list) != 0) return false;
  *connected = 0;
  for (u_int i = 0; i < count; ++i) {
    const bool self = options_.listen.host == list[i].host &&
                      options_.listen.port == list[i].port;
    if (self) continue;
    const bool up = list[i].status == DB_REPMGR_CONNECTED;
    if (up) ++*connected;
    if (peers != nullptr) {
      peers->push_back(ReplicationPeer{
          list[i].host, static_cast<uint16_t>(list[i].port), up});
    }
    if (master_up != nullptr && list[i].eid == master_eid_.load()) {
      *master_up = up;
    }
  }
  std::free(list);
  *sites = nsites;
  return true;
}

Status Replicator::CheckWritable(DbEnv* env) const {
  if (!is_master()) {
    return Status::ReadOnly(
        "this site is a replica of its replication group: write to the "
        "master");
  }
  uint32_t connected = 0, sites = 0;
  if (!CountPeers(env, &connected, &sites)) return Status::OK();
  // QUORUM: a majority of the group, this site included.
  const uint32_t needed = sites / 2;
  if (connected < needed) {
    return Status::NoReplicas(
        "Not enough good replicas to write: this master reaches " +
        std::to_string(connected) + " of the " + std::to_string(needed) +
        " peer(s) a quorum of " + std::to_string(sites) +
        " site(s) needs; nothing was written");
  }
  return Status::OK();
}

Status Replicator::FollowRole(DbEnv* env) {
  return SetNoWait(env, !is_master());
}

Status Replicator::SetNoWait(DbEnv* env, bool no_wait) {
  if (no_wait == no_wait_) return Status::OK();
  Status s =
      bdb::FromDb(env->rep_set_config(DB_REP_CONF_NOWAIT, no_wait ? 1 : 0),
                  "rep_set_config(DB_REP_CONF_NOWAIT)");
  if (s.ok()) no_wait_ = no_wait;
  return s;
}

Status Replicator::SyncReplicaLog(DbEnv* env) {
  if (is_master()) return Status::OK();
  DB_LOG_STAT* log = nullptr;
  Status s = bdb::FromDb(env->log_stat(&log, 0), "log_stat");
  if (!s.ok()) return s;
  const uint64_t end =
      (static_cast<uint64_t>(log->st_cur_file) << 32) | log->st_cur_offset;
  std::free(log);
  if (end == replica_log_synced_) return Status::OK();
  s = bdb::FromDb(env->log_flush(nullptr), "log_flush (replica)");
  if (s.ok()) replica_log_synced_ = end;
  return s;
}

ReplicationState Replicator::State(DbEnv* env) const {
  ReplicationState st;
  st.role = role();
  st.perm_failed = perm_failed();
  st.elections_won = elections_won_.load();
  (void)CountPeers(env, &st.connected_peers, &st.sites, &st.peers,
                   &st.master_link_up);
  // Every site's log is a copy of the master's, record for record at the
  // same LSN, so one formula gives numbers the sites can compare: bytes
  // before the LSN if every earlier file were full (a file switch skips
  // the unused tail of the last one; the number only grows).
  DB_LOG_STAT* log = nullptr;
  u_int32_t file_bytes = 0;
  if (env->get_lg_max(&file_bytes) == 0 && env->log_stat(&log, 0) == 0) {
    st.log_offset =
        static_cast<uint64_t>(log->st_cur_file - 1) * file_bytes +
        log->st_cur_offset;
    std::free(log);
  }
  if (is_master()) {
    st.master = Address(options_.listen.host, options_.listen.port);
  } else if (int eid = master_eid_.load(); eid != DB_EID_INVALID) {
    DbSite* site = nullptr;
    if (env->repmgr_site_by_eid(eid, &site) == 0) {
      const char* host = nullptr;
      u_int port = 0;
      if (site->get_address(&host, &port) == 0) {
        st.master = Address(host, port);
      }
      site->close();
    }
  }
  return st;
}

Status Replicator::RemoveSite(DbEnv* env, const ReplicationSite& site) const {
  if (site == options_.listen) {
    return Status::InvalidArgument(
        "that is this site's own repl-listen address: remove it from another "
        "site of the group");
  }
  u_int count = 0;
  DB_REPMGR_SITE* list = nullptr;
  Status s = bdb::FromDb(env->repmgr_site_list(&count, &list),
                         "repmgr_site_list");
  if (!s.ok()) return s;
  bool known = false;
  for (u_int i = 0; i < count; ++i) {
    known |= site.host == list[i].host && site.port == list[i].port;
  }
  std::free(list);
  if (!known) {
    return Status::InvalidArgument("no site " + Address(site.host, site.port) +
                                   " in this replication group");
  }
  DbSite* handle = nullptr;
  s = bdb::FromDb(env->repmgr_site(site.host.c_str(), site.port, &handle, 0),
                  "repmgr_site");
  if (!s.ok()) return s;
  // remove() closes the handle, whatever it returns.
  return bdb::FromDb(handle->remove(), "removing " +
                                           Address(site.host, site.port) +
                                           " from the group");
}

void Replicator::SetListener(ReplicationListener listener) {
  std::lock_guard<std::mutex> lock(mu_);
  listener_ = std::move(listener);
}

void Replicator::OnEvent(DbEnv* env, u_int32_t event, void* info) {
  auto* self = static_cast<Replicator*>(env->get_app_private());
  if (self != nullptr) self->Handle(event, info);
}

void Replicator::Handle(u_int32_t event, void* info) {
  using Kind = ReplicationEvent::Kind;
  const int eid = info != nullptr && (event == DB_EVENT_REP_NEWMASTER ||
                                      event == DB_EVENT_REP_CONNECT_ESTD ||
                                      event == DB_EVENT_REP_CONNECT_BROKEN)
                      ? *static_cast<int*>(info)  // CONN_ERR starts with it
                      : -1;
  switch (event) {
    case DB_EVENT_REP_MASTER:
      if (started_ && role() != ReplicationRole::kMaster) promoted_ = true;
      role_ = ReplicationRole::kMaster;
      master_eid_ = DB_EID_INVALID;
      {
        std::lock_guard<std::mutex> lock(mu_);
        master_seen_ = true;
      }
      Report(Kind::kBecameMaster, -1);
      break;
    case DB_EVENT_REP_CLIENT:
      role_ = ReplicationRole::kReplica;
      Report(Kind::kBecameReplica, -1);
      break;
    case DB_EVENT_REP_NEWMASTER:
      if (role() != ReplicationRole::kMaster) master_eid_ = eid;
      {
        std::lock_guard<std::mutex> lock(mu_);
        master_seen_ = true;
      }
      Report(Kind::kNewMaster, eid);
      break;
    case DB_EVENT_REP_STARTUPDONE:
      startup_done_ = true;
      Report(Kind::kStartupDone, -1);
      break;
    case DB_EVENT_REP_ELECTED:
      ++elections_won_;
      break;
    case DB_EVENT_REP_CONNECT_ESTD:
      Report(Kind::kConnected, eid);
      break;
    case DB_EVENT_REP_CONNECT_BROKEN:
      Report(Kind::kDisconnected, eid);
      break;
    case DB_EVENT_REP_ELECTION_FAILED:
      Report(Kind::kElectionFailed, -1);
      break;
    case DB_EVENT_REP_PERM_FAILED:
      ++perm_failed_;
      Report(Kind::kPermFailed, -1);
      break;
    case DB_EVENT_REP_SITE_ADDED:
      Report(Kind::kSiteAdded, info != nullptr ? *static_cast<int*>(info) : -1);
      break;
    case DB_EVENT_REP_SITE_REMOVED:
      Report(Kind::kSiteRemoved,
             info != nullptr ? *static_cast<int*>(info) : -1);
      break;
    case DB_EVENT_REP_LOCAL_SITE_REMOVED:
      Report(Kind::kRemoved, -1);
      break;
    case DB_EVENT_REP_JOIN_FAILURE:
      join_failed_ = true;
      break;
    case DB_EVENT_PANIC:
      panicked_ = true;
      Report(Kind::kPanic, -1);
      break;
    default:
      return;
  }
  { std::lock_guard<std::mutex> lock(mu_); }  // no wake-up lost to Start()
  changed_.notify_all();
}

void Replicator::Report(ReplicationEvent::Kind kind, int eid) {
  // Called under the lock, so that once SetListener() returns the old
  // listener is never called again.
  std::lock_guard<std::mutex> lock(mu_);
  if (listener_) listener_(ReplicationEvent{kind, eid});
}

}  // namespace frontier
