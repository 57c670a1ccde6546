// Replicator: a Frontier's part in a Berkeley DB Replication Manager group
// (docs/replication.md). It configures the environment before it opens,
// starts the Replication Manager's threads after, and keeps what their
// events say (role, master, failed acknowledgements) in atomics that the
// loop thread reads. It never touches the databases: the events it
// receives on other threads are only recorded and handed to the listener.
#pragma once

#include <db_cxx.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "storage/replication_options.h"
#include "storage/replication_state.h"
#include "util/status.h"

namespace frontier {

class Replicator {
 public:
  // What DbEnv::open needs on top of the single-node flags: locking
  // (the Replication Manager's threads apply the master's log while the
  // loop reads), free-threaded handles, replication.
  static constexpr u_int32_t kOpenFlags =
      DB_INIT_REP | DB_INIT_LOCK | DB_THREAD;

  explicit Replicator(const ReplicationOptions& options);
  Replicator(const Replicator&) = delete;
  Replicator& operator=(const Replicator&) = delete;

  // Before env->open: this site and its peers, the QUORUM ack policy, the
  // priority, timeouts, heartbeats, deadlock detection and the event
  // callback (which finds this object through the env's app_private: the
  // Replicator must outlive the environment's handle).
  Status Configure(DbEnv* env);
  // After env->open: starts the Replication Manager (electing a master if
  // there is none) and waits, at most `wait_ms`, until this site is the
  // master or a replica that has caught up with one. IOError saying why
  // otherwise (no master reachable, the join refused, a panic).
  Status Start(DbEnv* env, int64_t wait_ms);

  ReplicationRole role() const { return role_.load(); }
  // Loop thread: true once after this site became master later than
  // Start(): what was built in memory from the data (scheduler, counters)
  // is a replica's and must be built again before a write.
  bool TakePromotion() { return promoted_.exchange(false); }
  bool is_master() const { return role() == ReplicationRole::kMaster; }
  uint64_t perm_failed() const { return perm_failed_.load(); }

  // Loop thread, before a write transaction begins: OK on a master that
  // reaches enough peers for a quorum; else ReadOnly (a replica) or
  // NoReplicas (too few peers connected). The messages are plain words;
  // the server answers each code with its client's word (server/reply.h).
  Status CheckWritable(DbEnv* env) const;
  // The status of a commit that was made here but not acknowledged by a
  // quorum (perm_failed() grew during it): NotAcknowledged, saying that it
  // may or may not survive a failover and that retrying it is safe.
  static Status NotAcknowledged();
  // The answer to a transaction aborted by `busy` (a lock conflict, or the
  // Replication Manager's API lock-out while a site joins or leaves):
  // TryAgain, since it stored nothing and running it again is safe.
  static Status RetryAfterAbort(const Status& busy);

  ReplicationState State(DbEnv* env) const;

  // Loop thread: on a replica, API calls that meet the Replication
  // Manager's lock-out (a replica syncing with a new master, for about a
  // tenth of a second) fail at once with DB_REP_LOCKOUT (bdb::FromDb:
  // Busy) instead of sleeping: Berkeley DB 5.3 sleeps a whole second per
  // try (five for a transaction's begin), which stalled the loop, so its
  // clients, Sentinel answers included, for a second after every FAILOVER
  // (docs/replication.md). On a master they wait, as before: a write or a
  // checkpoint that met a lock-out (a site joining) would otherwise fail.
  // Called where the loop writes or checks on the group, so a change of
  // role is followed within a second; IOError if Berkeley DB refuses.
  Status FollowRole(DbEnv* env);

  // Loop thread. On a replica whose log grew since the last call, writes
  // and syncs it (log_flush): the master's records it acknowledged from
  // memory are then on its disk. OK and nothing done otherwise.
  Status SyncReplicaLog(DbEnv* env);

  // Removes the site at `site` from the group (DbSite::remove: on a
  // replica the request goes to the master). Once done, the group's size
  // no longer counts it and it is not a peer any more; the removed site,
  // if running, is told (it then refuses writes and should be stopped).
  // InvalidArgument for this site's own address or one not in the group.
  Status RemoveSite(DbEnv* env, const ReplicationSite& site) const;


  // Loop thread, outside any transaction: one step of a planned hand-over
  // (HandoverStep; replicator_handover.cc). kStepDown needs a master,
  // kTakeOver a replica (InvalidArgument otherwise, nothing changed); the
  // role events follow as in an election. IOError if Berkeley DB refuses.
  Status Handover(DbEnv* env, HandoverStep step);

  // Any thread. `listener` is called on the thread of each event; see
  // ReplicationListener. Once this returns, the previous one is not
  // called again.
  void SetListener(ReplicationListener listener);

 private:
  static void OnEvent(DbEnv* env, u_int32_t event, void* info);
  void Handle(u_int32_t event, void* info);
  void Report(ReplicationEvent::Kind kind, int eid);
  // DB_REP_CONF_NOWAIT on or off, if not so already (FollowRole).
  Status SetNoWait(DbEnv* env, bool no_wait);
  // Peers with a live connection, and the group's size, or false; with
  // `peers`, every peer (the master's link in *master_up, if known).
  bool CountPeers(DbEnv* env, uint32_t* connected, uint32_t* sites,
                  std::vector<ReplicationPeer>* peers = nullptr,
                  bool* master_up = nullptr) const;

  const ReplicationOptions options_;
  std::atomic<ReplicationRole> role_{ReplicationRole::kReplica};
  std::atomic<bool> startup_done_{false};
  std::atomic<bool> join_failed_{false};
  std::atomic<bool> panicked_{false};
  std::atomic<bool> started_{false};   // Start() returned OK
  std::atomic<bool> promoted_{false};  // see TakePromotion()
  std::atomic<int> master_eid_{DB_EID_INVALID};
  std::atomic<uint64_t> perm_failed_{0};
  std::atomic<uint64_t> elections_won_{0};
  bool master_seen_ = false;  // guarded by mu_: a role event came
  uint64_t replica_log_synced_ = 0;  // loop thread: SyncReplicaLog's
  bool no_wait_ = false;             // loop thread: SetNoWait's

  mutable std::mutex mu_;
  std::condition_variable changed_;  // Start() waits on it
  ReplicationListener listener_;     // guarded by mu_
};

}  // namespace frontier
