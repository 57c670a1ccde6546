// What the server sees of a Frontier's replication (docs/replication.md):
// this site's role, the group as this site knows it, and the events the
// Replication Manager reports. Plain values; storage/replicator.h makes
// them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace frontier {

enum class ReplicationRole {
  kNone,     // replication no: a single node
  kMaster,   // takes writes
  kReplica,  // applies the master's log; refuses writes
};

// A peer of this site, as the Replication Manager knows it.
struct ReplicationPeer {
  std::string host;  // its replication address
  uint16_t port = 0;
  bool connected = false;
};

// The steps of a planned hand-over of the master role (FAILOVER,
// docs/replication.md, "Moving the master on purpose"): Berkeley DB 5.3
// lets a running site change its role only while its elections are off.
enum class HandoverStep {
  kStepDown,     // master -> replica, elections off: it starts none
  kTakeOver,     // replica -> master, elections on again
  kElectionsOn,  // a stepped-down site: elections on again
  kAskMaster,    // a stepped-down site: asks the group who is master
  kAcksNone,     // the new master: commits wait for no acknowledgement
  kAcksQuorum,   // ... and for a quorum's again (the default)
};

struct ReplicationState {
  ReplicationRole role = ReplicationRole::kNone;
  std::string master;  // the master's "host:port", "" while unknown
  bool master_link_up = false;  // a replica's connection to its master
  // The end of this site's transaction log (what it has written, on a
  // replica what it has received and acknowledged) as a byte position:
  // (file - 1) * log file size + offset. The same records are at the same
  // position on every site of a group, so a replica's lag is the master's
  // minus its own (0 with replication no).
  uint64_t log_offset = 0;
  std::vector<ReplicationPeer> peers;
  uint32_t sites = 0;            // in the group, this one included
  uint32_t connected_peers = 0;  // other sites with a live connection
  // Commits that a quorum did not acknowledge within repl-ack-timeout.
  uint64_t perm_failed = 0;
  uint64_t elections_won = 0;
};

// One Replication Manager event, as reported on its own thread.
struct ReplicationEvent {
  enum class Kind {
    kBecameMaster,
    kBecameReplica,
    kNewMaster,       // another site is master now
    kStartupDone,     // a replica has caught up with the master
    kConnected,       // a connection to a peer was established
    kDisconnected,    // one broke
    kElectionFailed,  // no master could be elected (no quorum)
    kPermFailed,      // a commit was not acknowledged in time
    kPanic,           // the environment needs recovery
    kSiteAdded,       // a site joined the group
    kSiteRemoved,     // a site was removed from the group
    kRemoved,         // this site was removed from the group
  };
  Kind kind = Kind::kPanic;
  int eid = -1;  // the site concerned, where Berkeley DB names one
};

// Called on a Replication Manager thread (or, for kPermFailed, on the
// thread that committed): it must only hand the event over to the loop
// (server/replication_events.h), never call the Frontier.
using ReplicationListener = std::function<void(const ReplicationEvent&)>;

const char* ReplicationRoleName(ReplicationRole role);  // "master", ...

}  // namespace frontier
