// LogSyncer: the thread that makes the transaction log durable with
// `fsync always`, so that the event loop goes on executing commands while
// the disk syncs (docs/event-loop.md, "Overlapped group commit").
//
// The loop writes the log (Frontier::WriteLog) and asks for the commit
// sequence number it got to be synced (Request). The thread runs
// Frontier::SyncLog for the newest number asked for, one sync at a time,
// so requests made during a sync share the next one. Each finished sync is
// reported back on the loop thread, through a LoopInbox, by calling
// `done(seq, status, sync_ns)`: every commit up to `seq` is
// durable if status is OK; the sync took `sync_ns` nanoseconds.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include "server/libevent_ptr.h"
#include "server/loop_inbox.h"
#include "storage/frontier.h"

namespace frontier {

class LogSyncer {
 public:
  using Done =
      std::function<void(uint64_t seq, const Status& status, int64_t sync_ns)>;

  // `base` and `frontier` must outlive the syncer; `done` runs on the
  // loop thread. The thread starts at once.
  LogSyncer(event_base* base, Frontier& frontier, Done done);
  // Stop()s.
  ~LogSyncer();
  LogSyncer(const LogSyncer&) = delete;
  LogSyncer& operator=(const LogSyncer&) = delete;

  // False if the loop cannot be woken (no eventfd): use FlushLog instead.
  bool ok() const { return inbox_.ok(); }
  // Loop thread: sync at least up to `seq` (a WriteLog() result).
  void Request(uint64_t seq);
  // Loop thread: waits for the sync in flight, if any, and ends the
  // thread. Results not yet reported are dropped. Idempotent.
  void Stop();

 private:
  void ThreadMain();

  Frontier& frontier_;
  Done done_;
  LoopInbox inbox_;  // before thread_: outlives it

  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t requested_ = 0;  // newest seq asked for (guarded by mu_)
  uint64_t synced_ = 0;     // newest seq the thread has synced or tried
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace frontier
