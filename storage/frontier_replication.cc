// FrontierImpl: its part in a replication group (docs/replication.md). The
// Replicator does the Replication Manager's work; here it is joined to the
// environment's opening, the write path and the log removal.
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "storage/frontier_impl.h"

namespace frontier {
namespace {

// How long a start waits for the group: an election, or a replica's
// first copy of the master's data.
constexpr int64_t kJoinWaitMs = 60'000;
constexpr int kProbeMs = 500;

// Whether something accepts TCP connections at `site` (within kProbeMs).
bool Listening(const ReplicationSite& site) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(site.port);
  if (getaddrinfo(site.host.c_str(), port.c_str(), &hints, &found) != 0) {
    return false;
  }
  bool up = false;
  for (addrinfo* a = found; a != nullptr && !up; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK |
                                              SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      up = true;
    } else if (errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int err = 0;
      socklen_t len = sizeof(err);
      up = ::poll(&p, 1, kProbeMs) == 1 &&
           ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 &&
           err == 0;
    }
    ::close(fd);
  }
  freeaddrinfo(found);
  return up;
}

}  // namespace

Status FrontierImpl::ConfigureReplication(u_int32_t* flags) {
  if (!opts_.replication.enabled) return Status::OK();
  // A second group creator would silently start a second group, with a
  // master of its own. A creator's first start (no data yet) is refused
  // while one of its peers already runs: that one's group is the group.
  if (opts_.replication.group_creator &&
      !std::filesystem::exists(opts_.dir + "/meta.db")) {
    for (const ReplicationSite& peer : opts_.replication.peers) {
      if (Listening(peer)) {
        return Status::InvalidArgument(
            "repl-group-creator yes, but the peer " + peer.host + ":" +
            std::to_string(peer.port) +
            " is already running: only one site creates the group; start "
            "this one without repl-group-creator to join it");
      }
    }
  }
  if (!repl_) repl_ = std::make_unique<Replicator>(opts_.replication);
  *flags |= Replicator::kOpenFlags;
  return repl_->Configure(env_.get());
}

Status FrontierImpl::StartReplication() {
  if (!repl_) return Status::OK();
  return repl_->Start(env_.get(), kJoinWaitMs);
}

Status FrontierImpl::CheckWritable() {
  if (!repl_) return Status::OK();
  // Handles a rollback killed are reopened before a write uses them.
  if (StatusOr<bool> r = ReopenDeadHandles(); !r.ok()) return r.status();
  // A promoted site waits out lock-outs again before it writes.
  Status s = repl_->FollowRole(env_.get());
  if (s.ok()) s = repl_->CheckWritable(env_.get());
  if (s.ok()) s = CatchUpPromotion();
  return s;
}

Status FrontierImpl::CatchUpPromotion() {
  // A pass's open transaction began on a master: the promotion, if any,
  // was caught up before it.
  if (!repl_ || pass_txn_open_ || !repl_->is_master()) return Status::OK();
  // Pending until a rebuild succeeds: one that fails midway (a deadlock or
  // a dead handle met by its reads) leaves a scheduler that lacks sites,
  // which no write may use once the failure is cleared (RetryWrites); the
  // next write, POP or tick builds it again (issue 20: a re-elected site
  // did not hand out a URL that MSEEN saw).
  if (repl_->TakePromotion()) promotion_pending_ = true;
  if (!promotion_pending_) return Status::OK();
  // This replica was just elected: its scheduler, timers and counters
  // were built from the data as it stood when it opened. The data now
  // holds every write the group acknowledged; build them again from it.
  // Every crawl's: the crawls are closed and opened again (crawls the
  // group created meanwhile included), then the command's crawl is
  // selected again.
  const std::string crawl = crawl_name_;
  Status s = CloseCrawls(/*sync=*/true);
  if (s.ok()) s = LoadState();
  if (s.ok()) s = OpenCrawls();
  if (s.ok()) s = UseCrawl(crawl);
  if (!s.ok()) {
    write_failure_.Note(
        Status::IOError("rebuilding after promotion: " + s.ToString()));
    return s;
  }
  promotion_pending_ = false;
  return s;
}

StatusOr<bool> FrontierImpl::ReopenDeadHandles() {
  const uint64_t dead = bdb::HandlesDead();
  if (!repl_ || closed_ || dead == handles_dead_seen_ || pass_txn_open_) {
    return false;
  }
  // Berkeley DB rolled back commits this site made as master that the
  // group never acknowledged (a demoted master that kept running): the
  // handles opened before are dead, and the in-memory state was built from
  // data that is gone. Close every handle, open them again and build the
  // state from the data as it now stands, as a promotion does. The default
  // crawl's state goes back to the members first (CloseCrawls).
  const std::string crawl = crawl_name_;
  (void)CloseCursors();
  (void)CloseCrawls(/*sync=*/false);
  for (bdb::Database* db : Databases()) {
    (void)db->CloseWithoutSync();
  }
  Status s = OpenDatabases();
  if (s.ok()) s = LoadState();
  if (s.ok()) s = OpenCrawls();
  if (s.ok()) s = UseCrawl(crawl);
  if (!s.ok()) return s;  // tried again at the next call
  // Closing the dead handles counted too: they are all replaced now.
  handles_dead_seen_ = bdb::HandlesDead();
  return true;
}

Status FrontierImpl::SyncReplicaLog() {
  if (!repl_ || closed_) return Status::OK();
  Status s = repl_->FollowRole(env_.get());
  if (!s.ok()) return s;
  return repl_->SyncReplicaLog(env_.get());
}

ReplicationState FrontierImpl::Replication() const {
  if (!repl_ || closed_) return ReplicationState{};
  return repl_->State(env_.get());
}

void FrontierImpl::SetReplicationListener(ReplicationListener listener) {
  if (repl_) repl_->SetListener(std::move(listener));
}

namespace {
constexpr std::string_view kGroupDirectoryKey = "group-directory";
constexpr std::string_view kClusterRecordKey = "cluster-record";
}  // namespace

Status FrontierImpl::PutMetaText(std::string_view key, std::string_view text) {
  return RunWrite([&](DbTxn* t) { return meta_.Put(t, key, text); });
}

StatusOr<std::string> FrontierImpl::MetaText(std::string_view key) {
  std::string text;
  Status s = meta_.Get(nullptr, key, &text);
  if (s.IsNotFound()) return std::string();
  if (!s.ok()) return s;
  return text;
}

Status FrontierImpl::PutGroupDirectory(std::string_view text) {
  return PutMetaText(kGroupDirectoryKey, text);
}

StatusOr<std::string> FrontierImpl::GroupDirectory() {
  return MetaText(kGroupDirectoryKey);
}

Status FrontierImpl::PutClusterRecord(std::string_view text) {
  return PutMetaText(kClusterRecordKey, text);
}

StatusOr<std::string> FrontierImpl::ClusterRecord() {
  return MetaText(kClusterRecordKey);
}

Status FrontierImpl::RemoveReplicationSite(const ReplicationSite& site) {
  if (!repl_ || closed_) {
    return Status::InvalidArgument(
        "this server is a single node (replication no)");
  }
  return repl_->RemoveSite(env_.get(), site);
}

Status FrontierImpl::HandoverStep(frontier::HandoverStep step) {
  if (!repl_ || closed_) {
    return Status::InvalidArgument(
        "this server is a single node (replication no)");
  }
  Status s = repl_->Handover(env_.get(), step);
  // A stepped-down site gives up its API calls' waits at once.
  if (s.ok()) s = repl_->FollowRole(env_.get());
  if (!s.ok() || step != HandoverStep::kTakeOver) return s;
  // The new master's first record. A replica that finds a new master
  // finishes its sync with it once a log record comes after it heard of
  // it; until then a commit that waits for a quorum waits. So one goes
  // now, in a transaction of its own (outside the caller's pass: REPLICATION
  // TAKEOVER runs in one, whose commit would wait with the answer) that
  // waits for no acknowledgement: the counters, which every commit
  // carries, as rebuilt from the replicated data (BeginWrite catches the
  // promotion up). It acknowledges nothing to anyone, so losing it in a
  // failover loses nothing. With a pass's transaction open (none is on a
  // replica, which takes no write), that pass's commit is the record.
  if (!repl_->is_master() || pass_txn_open_) return Status::OK();
  if (!repl_->Handover(env_.get(), HandoverStep::kAcksNone).ok()) {
    return Status::OK();  // the first client write is the first record
  }
  {
    bdb::Txn txn;
    // Not written (a rebuild that failed, say): as just above.
    (void)FinishWrite(&txn, BeginWrite(&txn));
  }
  Status quorum = repl_->Handover(env_.get(), HandoverStep::kAcksQuorum);
  // No write may be acknowledged without a quorum: until the policy is
  // back, this site refuses writes, as after a failed write.
  if (!quorum.ok()) write_failure_.Note(quorum);
  // This site is the master either way: an error here would make the old
  // master take its role back too.
  return Status::OK();
}

void FrontierImpl::KeepLogsForReplicas(std::vector<std::string>* paths) const {
  if (!repl_) return;
  uint64_t kept = 0;
  size_t remove = paths->size();
  while (remove > 0) {
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size((*paths)[remove - 1], ec);
    if (ec || kept + size > opts_.replication.log_retain_bytes) break;
    kept += size;
    --remove;
  }
  paths->resize(remove);
}

}  // namespace frontier
