// FrontierImpl: making commits durable. FlushLog() through Berkeley DB
// on the loop thread; or WriteLog() there and SyncLog() on a thread of the
// server's, which fdatasyncs the log files without Berkeley DB. The file
// and directory syncs are durability_'s (storage/log_durability.h); this
// file keeps the group-commit counters.
//
// Built with FRONTIERD_NO_LOG_SYNC (only for frontierd_nosync, a test
// build: tests/powerloss/CMakeLists.txt, which builds log_durability.cc
// so too), the log is written to the operating system but never synced,
// so that the power-loss test can show it notices.
#include "storage/frontier_impl.h"

namespace frontier {

namespace {

// The log file Berkeley DB writes to now.
StatusOr<uint32_t> CurrentLogFile(DbEnv* env) {
  DB_LOG_STAT* st = nullptr;
  Status s = bdb::FromDb(env->log_stat(&st, 0), "log_stat");
  if (!s.ok()) return s;
  const uint32_t file = st->st_cur_file;
  free(st);
  return file;
}

}  // namespace

Status FrontierImpl::FlushLog() {
  if (closed_) return Status::IOError("frontier is closed");
  if (Status s = EndOpenPass(); !s.ok()) return s;
  const uint64_t target = commit_seq_.load(std::memory_order_acquire);
  if (flushed_seq_.load(std::memory_order_acquire) >= target) {
    return Status::OK();  // nothing committed since the last flush
  }
  // The counters record rides on the same flush, so it is current for
  // every acknowledged write. A failure to save it loses nothing: the
  // next flush or checkpoint saves it again.
  if (counters_saved_seq_ != target && SaveCounters().ok()) {
    counters_saved_seq_ = commit_seq_.load(std::memory_order_acquire);
  }
  const uint64_t durable = commit_seq_.load(std::memory_order_acquire);
#ifdef FRONTIERD_NO_LOG_SYNC
  Status s = SaveCounters(DB_TXN_WRITE_NOSYNC);
#else
  Status s = bdb::FromDb(env_->log_flush(nullptr), "log_flush");
#endif
  // log_flush syncs the log files, not the directory: a log file it
  // started since the last sync is durable only once its entry is.
  if (s.ok()) s = SyncNewLogFileEntries();
  if (s.ok()) {
    RaiseTo(&flushed_seq_, durable);
  } else {
    write_failure_.Note(s);
  }
  return s;
}

StatusOr<uint64_t> FrontierImpl::WriteLog() {
  if (closed_) return Status::IOError("frontier is closed");
  if (Status s = EndOpenPass(); !s.ok()) return s;
  // Committing with DB_TXN_WRITE_NOSYNC writes the log buffer, up to and
  // including this commit, to the file; so one small transaction (the
  // counters, which are due anyway) pushes out every commit before it.
  // With replication the last commit carried the counters and wrote the
  // buffer itself (FinishWrite): no second commit, no second wait for the
  // quorum.
  Status s;
  if (counters_saved_seq_ != commit_seq_.load(std::memory_order_acquire)) {
    s = SaveCounters(DB_TXN_WRITE_NOSYNC);
  }
  if (!s.ok()) {
    write_failure_.Note(s);
    return s;
  }
  const uint64_t written = commit_seq_.load(std::memory_order_acquire);
  counters_saved_seq_ = written;
  StatusOr<uint32_t> file = CurrentLogFile(env_.get());
  if (!file.ok()) return file.status();
  durability_.NoteWritten(*file);
  return written;
}

Status FrontierImpl::SyncLog(uint64_t seq) {
  Status s = durability_.SyncWritten();
  if (!s.ok()) {
    write_failure_.Note(s);
    return s;
  }
  RaiseTo(&flushed_seq_, seq);
  return Status::OK();
}

Status FrontierImpl::SyncNewLogFileEntries() {
  StatusOr<uint32_t> file = CurrentLogFile(env_.get());
  if (!file.ok()) return file.status();
  return durability_.SyncNewFileEntries(*file);
}

}  // namespace frontier
