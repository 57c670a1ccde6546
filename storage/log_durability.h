// LogDurability: what makes Berkeley DB's log files durable beyond the
// log_flush it does itself, for one environment directory.
//
// - the directory's own fsync, so that the entries of the files created in
//   it (the databases at first start, each new log file) survive a power
//   cut: POSIX asks for it, and only some file systems (ext4, XFS) commit
//   entries with the files' own fsync;
// - SyncWritten(): the fdatasync of the log files without Berkeley DB, on
//   a thread of the server's (fsync always with write-log-at-commit);
// - which log file was written, and which one is synced with its entry.
//
// Owned by FrontierImpl. The group-commit counters (which commit is
// durable) stay there: this class knows files, not transactions.
// Thread safety: SyncWritten() may run on another thread than the loop's;
// every method but SyncDirectory() (which reads only the directory name)
// takes the class's mutex or an atomic.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "util/status.h"

namespace frontier {

// Raises *value to `to` unless it is higher already; lock-free.
template <typename T>
void RaiseTo(std::atomic<T>* value, T to) {
  T seen = value->load();
  while (seen < to && !value->compare_exchange_weak(seen, to)) {
  }
}

class LogDurability {
 public:
  // `dir`: the environment's directory, where the log files are.
  explicit LogDurability(std::string dir) : dir_(std::move(dir)) {}
  ~LogDurability() { CloseFile(); }
  LogDurability(const LogDurability&) = delete;
  LogDurability& operator=(const LogDurability&) = delete;

  // Makes Berkeley DB fsync a file's directory right after it creates the
  // file (process-wide, db_env_set_func_open; idempotent): its write-ahead
  // rule syncs a new log file's data, never its entry. Call before the
  // first environment opens.
  static void InstallEntrySync();

  // fsyncs the directory. IOError on failure.
  Status SyncDirectory() const;

  // At open, after recovery (which leaves the log durable): `current_file`
  // is the log file in use, written and synced with its entry.
  void Reset(uint32_t current_file);
  // The log file in use has been written up to `current_file` (WriteLog).
  void NoteWritten(uint32_t current_file);
  // After a log_flush (which synced the files' data, not their entries):
  // SyncDirectory() if `current_file` is newer than the last file whose
  // entry was synced. On the loop thread.
  Status SyncNewFileEntries(uint32_t current_file);
  // fdatasyncs every log file written since the last call (a commit may
  // have filled one file and gone on in the next; a file a checkpoint
  // removed meanwhile was synced already), then the directory if a new
  // file was written. Any thread.
  Status SyncWritten();
  // Closes the descriptor SyncWritten() keeps open on the current file
  // (at Close; the next SyncWritten() opens it again).
  void CloseFile();

 private:
  const std::string dir_;
  // The newest log file written (NoteWritten, SyncNewFileEntries).
  std::atomic<uint32_t> written_file_{0};
  // Under mu_: the newest file synced with its entry, and the descriptor
  // SyncWritten() keeps open on file sync_fd_file_.
  std::mutex mu_;
  uint32_t synced_file_ = 0;
  uint32_t sync_fd_file_ = 0;
  int sync_fd_ = -1;
};

}  // namespace frontier
