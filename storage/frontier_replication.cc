// FrontierImpl: its part in a replication group (docs/replication.md). The
// Replicator does the Replication Manager's work; here it is joined to the
// environment's opening, the write path and the log removal.
#include <filesystem>

#include "storage/frontier_impl.h"

namespace frontier {
namespace {

// How long a start waits for the group: an election, or a replica's
// first copy of the master's data.
constexpr int64_t kJoinWaitMs = 60'000;

}  // namespace

Status FrontierImpl::ConfigureReplication(u_int32_t* flags) {
  if (!opts_.replication.enabled) return Status::OK();
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
  Status s = repl_->CheckWritable(env_.get());
  if (s.ok() && repl_->TakePromotion()) {
    // This replica was just elected: its scheduler, timers and counters
    // were built from the data as it stood when it opened. The data now
    // holds every write the group acknowledged; build them again from it.
    s = LoadState();
    if (!s.ok()) {
      NoteWriteFailure(Status::IOError("rebuilding after promotion: " +
                                       s.ToString()));
    }
  }
  return s;
}

ReplicationState FrontierImpl::Replication() const {
  if (!repl_ || closed_) return ReplicationState{};
  return repl_->State(env_.get());
}

void FrontierImpl::SetReplicationListener(ReplicationListener listener) {
  if (repl_) repl_->SetListener(std::move(listener));
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
