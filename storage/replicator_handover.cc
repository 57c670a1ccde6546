// Replicator::Handover: the Berkeley DB side of a planned hand-over of the
// master role (docs/replication.md, "Moving the master on purpose").
//
// Berkeley DB 5.3's Replication Manager changes a running site's role
// (repmgr_start again, no new threads) only while the site's elections
// are off (DB_REPMGR_CONF_ELECTIONS; its own test repmgr028 does this, and
// refuses the call with elections on). So the master turns its elections
// off and restarts as a client: it takes no write and starts no election
// while the chosen replica, which has its whole log, turns its own
// elections off, restarts as master and turns them on again; the old
// master turns its elections on once it follows the new one. The setting
// is in memory only: a site restarted (kill -9 included) has elections on.
#include "storage/bdb.h"
#include "storage/replicator.h"

namespace frontier {
namespace {

Status Elections(DbEnv* env, bool on) {
  return bdb::FromDb(env->rep_set_config(DB_REPMGR_CONF_ELECTIONS, on ? 1 : 0),
                     on ? "turning elections on" : "turning elections off");
}

// repmgr_start on a running site: 0 threads keeps the ones it has.
Status Restart(DbEnv* env, u_int32_t role) {
  return bdb::FromDb(env->repmgr_start(0, role),
                     role == DB_REP_MASTER ? "repmgr_start (master)"
                                           : "repmgr_start (client)");
}

}  // namespace

Status Replicator::Handover(DbEnv* env, HandoverStep step) {
  // A step's own calls wait out a lock-out (FollowRole sets the role's
  // way after it): elections left off by a call that gave up would
  // leave this site out of the next election.
  if (Status s = SetNoWait(env, false); !s.ok()) return s;
  switch (step) {
    case HandoverStep::kStepDown: {
      if (!is_master()) {
        return Status::InvalidArgument("this site is not the master");
      }
      Status s = Elections(env, false);
      if (s.ok()) s = Restart(env, DB_REP_CLIENT);
      if (!s.ok()) {
        (void)Elections(env, true);
        return s;
      }
      role_ = ReplicationRole::kReplica;
      master_eid_ = DB_EID_INVALID;
      return Status::OK();
    }
    case HandoverStep::kTakeOver: {
      if (is_master()) {
        return Status::InvalidArgument("this site is the master already");
      }
      Status s = Elections(env, false);
      if (s.ok()) s = Restart(env, DB_REP_MASTER);
      Status on = Elections(env, true);
      return s.ok() ? on : s;
    }
    case HandoverStep::kElectionsOn:
      return Elections(env, true);
    case HandoverStep::kAcksNone:
    case HandoverStep::kAcksQuorum:
      return bdb::FromDb(
          env->repmgr_set_ack_policy(step == HandoverStep::kAcksNone
                                         ? DB_REPMGR_ACKS_NONE
                                         : DB_REPMGR_ACKS_QUORUM),
          "repmgr_set_ack_policy");
    case HandoverStep::kAskMaster:
      // A client's start announces it (NEWCLIENT), which a master answers
      // with NEWMASTER: if the new master's own announcement was missed.
      if (is_master()) return Status::OK();
      return Restart(env, DB_REP_CLIENT);
  }
  return Status::InvalidArgument("unknown hand-over step");
}

}  // namespace frontier
