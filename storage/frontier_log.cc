// FrontierImpl: making commits durable. FlushLog() through Berkeley DB
// on the loop thread; or WriteLog() there and SyncLog() on a thread of the
// server's, which fdatasyncs the log files without Berkeley DB.
//
// Built with FRONTIERD_NO_LOG_SYNC (only for frontierd_nosync, a test
// build: tests/powerloss/CMakeLists.txt), the log is written to the
// operating system but never synced, so that the power-loss test can show
// it notices.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "storage/frontier_impl.h"

namespace frontier {

namespace {

template <typename T>
void RaiseTo(std::atomic<T>* value, T to) {
  T seen = value->load();
  while (seen < to && !value->compare_exchange_weak(seen, to)) {
  }
}

std::string LogFileName(const std::string& dir, uint32_t number) {
  char name[32];
  std::snprintf(name, sizeof(name), "/log.%010u", number);
  return dir + name;
}

// `err` is the errno of the failed call, read before anything else runs.
Status SyncError(int err, const std::string& what) {
  return Status::IOError(what + ": " + std::strerror(err));
}

}  // namespace

Status FrontierImpl::FlushLog() {
  if (closed_) return Status::IOError("frontier is closed");
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
  if (s.ok()) {
    RaiseTo(&flushed_seq_, durable);
  } else {
    NoteWriteFailure(s);
  }
  return s;
}

StatusOr<uint64_t> FrontierImpl::WriteLog() {
  if (closed_) return Status::IOError("frontier is closed");
  // Committing with DB_TXN_WRITE_NOSYNC writes the log buffer, up to and
  // including this commit, to the file; so one small transaction (the
  // counters, which are due anyway) pushes out every commit before it.
  Status s = SaveCounters(DB_TXN_WRITE_NOSYNC);
  if (!s.ok()) {
    NoteWriteFailure(s);
    return s;
  }
  const uint64_t written = commit_seq_.load(std::memory_order_acquire);
  counters_saved_seq_ = written;
  DB_LOG_STAT* st = nullptr;
  s = bdb::FromDb(env_->log_stat(&st, 0), "log_stat");
  if (!s.ok()) return s;
  const uint32_t file = st->st_cur_file;
  free(st);
  RaiseTo(&written_file_, file);
  return written;
}

Status FrontierImpl::SyncLog(uint64_t seq) {
  std::lock_guard<std::mutex> lock(sync_mu_);
  const uint32_t last = written_file_.load(std::memory_order_acquire);
  Status s;
  // Every file written since the last sync: a commit may have filled one
  // log file and gone on in the next.
  for (uint32_t f = std::min(synced_file_, last); f <= last && s.ok(); ++f) {
    if (f == 0) continue;
    if (f != sync_fd_file_) {
      if (sync_fd_ >= 0) ::close(sync_fd_);
      sync_fd_file_ = f;
      sync_fd_ = ::open(LogFileName(log_dir_, f).c_str(), O_RDONLY | O_CLOEXEC);
      if (sync_fd_ < 0) {
        const int err = errno;
        // Removed after a checkpoint, which synced it: nothing to do.
        if (err == ENOENT) continue;
        s = SyncError(err, "open " + LogFileName(log_dir_, f));
        break;
      }
    }
#ifdef FRONTIERD_NO_LOG_SYNC
    continue;
#endif
    if (sync_fd_ >= 0 && ::fdatasync(sync_fd_) != 0) {
      s = SyncError(errno, "fdatasync " + LogFileName(log_dir_, f));
    }
  }
  // A new log file is durable only once its directory entry is.
#ifdef FRONTIERD_NO_LOG_SYNC
  if (false) {
#else
  if (s.ok() && last > synced_file_) {
#endif
    const int dir = ::open(log_dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0 || ::fsync(dir) != 0) s = SyncError(errno, "fsync " + log_dir_);
    if (dir >= 0) ::close(dir);
  }
  if (!s.ok()) {
    NoteWriteFailure(s);
    return s;
  }
  synced_file_ = last;
  RaiseTo(&flushed_seq_, seq);
  return Status::OK();
}

}  // namespace frontier
