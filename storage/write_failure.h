// WriteFailure: whether a write to the data directory has failed (a full
// disk, an I/O error, Berkeley DB's DB_RUNRECOVERY) since the directory
// last took writes again, and why.
//
// FrontierImpl owns one: every failed write notes its Status here, on the
// loop thread or another (FlushLog() from the server's syncing thread,
// the FileSyncer); WriteStatus() reads it and the server refuses write
// commands while it is set (docs/operations.md, "Disk full"); only a
// successful RetryWrites() clears it. The flag is the lock-free fast
// path; the Status is guarded by a mutex.
#pragma once

#include <atomic>
#include <mutex>

#include "util/status.h"

namespace frontier {

class WriteFailure {
 public:
  // Records a failure; its reason replaces an earlier one's (the latest
  // is the one worth showing). Any thread.
  void Note(const Status& status) {
    std::lock_guard<std::mutex> lock(mu_);
    error_ = status;
    failed_.store(true, std::memory_order_release);
  }
  // True once a failure was noted, until Clear(). Any thread.
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  // OK while none is noted; else the latest failure's Status.
  Status status() const {
    if (!failed()) return Status::OK();
    std::lock_guard<std::mutex> lock(mu_);
    return error_;
  }
  // The directory takes writes again.
  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    error_ = Status::OK();
    failed_.store(false, std::memory_order_release);
  }

 private:
  std::atomic<bool> failed_{false};
  mutable std::mutex mu_;
  Status error_;
};

}  // namespace frontier
