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
#include <cstdarg>
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

#ifndef FRONTIERD_NO_LOG_SYNC
// Berkeley DB's open(2) (db_env_set_func_open): a file it creates (a log
// file as the log moves on, a database at first start) has its directory
// entry made durable before Berkeley DB writes to it. Its write-ahead rule
// syncs a log file's data before a page that depends on it reaches a
// database file, at any moment (a cache eviction, a checkpoint), but not
// the file's entry: after a power cut, recovery would meet pages whose log
// is gone (POSIX; ext4 and XFS happen to commit entries with the data).
int OpenAndSyncEntry(const char* path, int flags, ...) {
  mode_t mode = 0;
  if ((flags & O_CREAT) != 0) {
    va_list args;
    va_start(args, flags);
    mode = static_cast<mode_t>(va_arg(args, int));
    va_end(args);
  }
  const int fd = ::open(path, flags, mode);
  if (fd < 0 || (flags & O_CREAT) == 0) return fd;
  const char* slash = std::strrchr(path, '/');
  const std::string dir =
      slash == nullptr ? "." : std::string(path, slash == path ? 1 : slash - path);
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0 || ::fsync(dir_fd) != 0) {
    const int err = errno;
    if (dir_fd >= 0) ::close(dir_fd);
    ::close(fd);
    errno = err;
    return -1;
  }
  ::close(dir_fd);
  return fd;
}
#endif

// `err` is the errno of the failed call, read before anything else runs.
Status SyncError(int err, const std::string& what) {
  return Status::IOError(what + ": " + std::strerror(err));
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
    NoteWriteFailure(s);
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
  if (s.ok() && last > synced_file_) s = SyncDirectory();
  if (!s.ok()) {
    NoteWriteFailure(s);
    return s;
  }
  synced_file_ = last;
  RaiseTo(&flushed_seq_, seq);
  return Status::OK();
}

void FrontierImpl::InstallEntrySync() {
#ifndef FRONTIERD_NO_LOG_SYNC
  static std::once_flag once;
  std::call_once(once, [] { db_env_set_func_open(OpenAndSyncEntry); });
#endif
}

Status FrontierImpl::SyncDirectory() const {
#ifdef FRONTIERD_NO_LOG_SYNC
  return Status::OK();
#else
  const int dir = ::open(log_dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  Status s;
  if (dir < 0 || ::fsync(dir) != 0) s = SyncError(errno, "fsync " + log_dir_);
  if (dir >= 0) ::close(dir);
  return s;
#endif
}

Status FrontierImpl::SyncNewLogFileEntries() {
  DB_LOG_STAT* st = nullptr;
  Status s = bdb::FromDb(env_->log_stat(&st, 0), "log_stat");
  if (!s.ok()) return s;
  const uint32_t file = st->st_cur_file;
  free(st);
  std::lock_guard<std::mutex> lock(sync_mu_);
  if (file <= synced_file_) return Status::OK();
  s = SyncDirectory();
  if (!s.ok()) return s;
  synced_file_ = file;
  RaiseTo(&written_file_, file);
  return Status::OK();
}

}  // namespace frontier
