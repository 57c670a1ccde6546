// LogDurability (log_durability.h).
//
// Built with FRONTIERD_NO_LOG_SYNC (only for frontierd_nosync, a test
// build: tests/powerloss/CMakeLists.txt), nothing is synced, so that the
// power-loss test can show it notices.
#include "storage/log_durability.h"

#include <db_cxx.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace frontier {

namespace {

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
      slash == nullptr ? "."
                       : std::string(path, slash == path ? 1 : slash - path);
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

void LogDurability::InstallEntrySync() {
#ifndef FRONTIERD_NO_LOG_SYNC
  static std::once_flag once;
  std::call_once(once, [] { db_env_set_func_open(OpenAndSyncEntry); });
#endif
}

Status LogDurability::SyncDirectory() const {
#ifdef FRONTIERD_NO_LOG_SYNC
  return Status::OK();
#else
  const int dir = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  Status s;
  if (dir < 0 || ::fsync(dir) != 0) s = SyncError(errno, "fsync " + dir_);
  if (dir >= 0) ::close(dir);
  return s;
#endif
}

void LogDurability::Reset(uint32_t current_file) {
  std::lock_guard<std::mutex> lock(mu_);
  synced_file_ = current_file;
  written_file_.store(current_file);
}

void LogDurability::NoteWritten(uint32_t current_file) {
  RaiseTo(&written_file_, current_file);
}

Status LogDurability::SyncNewFileEntries(uint32_t current_file) {
  std::lock_guard<std::mutex> lock(mu_);
  if (current_file <= synced_file_) return Status::OK();
  Status s = SyncDirectory();
  if (!s.ok()) return s;
  synced_file_ = current_file;
  RaiseTo(&written_file_, current_file);
  return Status::OK();
}

Status LogDurability::SyncWritten() {
  std::lock_guard<std::mutex> lock(mu_);
  const uint32_t last = written_file_.load(std::memory_order_acquire);
  Status s;
  for (uint32_t f = std::min(synced_file_, last); f <= last && s.ok(); ++f) {
    if (f == 0) continue;
    if (f != sync_fd_file_) {
      if (sync_fd_ >= 0) ::close(sync_fd_);
      sync_fd_file_ = f;
      sync_fd_ = ::open(LogFileName(dir_, f).c_str(), O_RDONLY | O_CLOEXEC);
      if (sync_fd_ < 0) {
        const int err = errno;
        // Removed after a checkpoint, which synced it: nothing to do.
        if (err == ENOENT) continue;
        s = SyncError(err, "open " + LogFileName(dir_, f));
        break;
      }
    }
#ifdef FRONTIERD_NO_LOG_SYNC
    continue;
#endif
    if (sync_fd_ >= 0 && ::fdatasync(sync_fd_) != 0) {
      s = SyncError(errno, "fdatasync " + LogFileName(dir_, f));
    }
  }
  // A new log file is durable only once its directory entry is.
  if (s.ok() && last > synced_file_) s = SyncDirectory();
  if (!s.ok()) return s;
  synced_file_ = last;
  return Status::OK();
}

void LogDurability::CloseFile() {
  std::lock_guard<std::mutex> lock(mu_);
  if (sync_fd_ >= 0) ::close(sync_fd_);
  sync_fd_ = -1;
  sync_fd_file_ = 0;
}

}  // namespace frontier
