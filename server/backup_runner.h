// BackupRunner: the thread that copies a BACKUP (storage/backup_copy.h)
// while the event loop goes on serving clients (docs/operations.md,
// "Backup and restore"). The loop prepares the plan (Frontier::BeginBackup) and
// starts the copy here; the thread runs CopyBackup, which never calls the
// live Frontier, and hands its result back to the loop through a
// LoopInbox; the loop then ends the backup and replies.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>

#include "server/libevent_ptr.h"
#include "server/loop_inbox.h"
#include "storage/backup_copy.h"

namespace frontier {

class BackupRunner {
 public:
  // Runs on the loop thread with CopyBackup's result.
  using Done = std::function<void(const Status& status)>;

  // `base` must outlive the runner.
  explicit BackupRunner(event_base* base);
  // Stop()s.
  ~BackupRunner();
  BackupRunner(const BackupRunner&) = delete;
  BackupRunner& operator=(const BackupRunner&) = delete;

  // Loop thread: true from Start() until `done` has run (or Stop()).
  bool busy() const { return busy_; }
  // Loop thread: copies `plan` on a new thread and calls `done` on the
  // loop thread when the copy has ended. IOError if no thread can be
  // started or the loop cannot be woken; `done` never runs then, and the
  // plan's partial directory is removed.
  // Precondition: !busy().
  Status Start(BackupPlan plan, Done done);
  // Loop thread: cancels the copy in flight, if any (CopyBackup removes
  // what it built), and waits for its thread; its `done` never runs.
  // Idempotent.
  void Stop();

 private:
  void Join();

  LoopInbox inbox_;
  bool busy_ = false;
  // Bumped by Stop(): a result posted by a copy that was stopped is
  // dropped.
  uint64_t generation_ = 0;
  std::atomic<bool> cancel_{false};
  std::thread thread_;
};

}  // namespace frontier
