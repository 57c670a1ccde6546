// FileSyncer: a thread that fdatasyncs a fixed set of files periodically
// and removes files it is handed.
//
// The write-behind (FrontierImpl::WriteBehind) moves the cache's dirty
// pages into the OS page cache a slice at a time; this thread then pushes
// them to the disk, so that the checkpoint's own fsyncs, which run on the
// event loop, find little left. It uses descriptors of its own and never
// calls Berkeley DB: an extra fdatasync only makes data durable sooner,
// so it cannot change what a checkpoint or recovery sees. The log files a
// checkpoint made unnecessary are removed here too: unlinking a 64 MiB
// file takes tens of milliseconds.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "util/status.h"

namespace frontier {

class FileSyncer {
 public:
  // Reports a failed fdatasync (not a missing file); called on the
  // syncer's thread.
  using ErrorFn = std::function<void(const Status&)>;

  // Starts the thread: every `period_ms` it fdatasyncs each of `paths`
  // that exists.
  FileSyncer(std::vector<std::string> paths, int64_t period_ms,
             ErrorFn on_error);
  // Stops and joins the thread, closes the descriptors.
  ~FileSyncer();
  FileSyncer(const FileSyncer&) = delete;
  FileSyncer& operator=(const FileSyncer&) = delete;

  // Unlinks `paths` on the thread, soon; a file that is already gone is
  // not an error. The destructor removes whatever is still pending.
  void Remove(std::vector<std::string> paths);

  // Syncs completed since the start (tests).
  uint64_t rounds() const;

 private:
  void Run();
  void SyncAll();
  void RemoveAll(const std::vector<std::string>& paths);

  const std::vector<std::string> paths_;
  const int64_t period_ms_;
  const ErrorFn on_error_;
  std::vector<int> fds_;  // the syncer thread's only; -1 until opened
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;               // under mu_
  uint64_t rounds_ = 0;                 // under mu_
  std::vector<std::string> to_remove_;  // under mu_
  std::thread thread_;                  // last: starts after the members above
};

}  // namespace frontier
