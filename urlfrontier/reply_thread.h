// ReplyThread: the thread on which the loop's released replies are read
// and turned into protobuf messages, so that the event loop only hands
// bytes over and never parses or serialises for gRPC. Closures run in the
// order they were posted.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace frontier::urlfrontier {

class ReplyThread {
 public:
  ReplyThread();
  // Stop()s.
  ~ReplyThread();
  ReplyThread(const ReplyThread&) = delete;
  ReplyThread& operator=(const ReplyThread&) = delete;

  // Any thread: `fn` runs on the reply thread. Dropped after Stop().
  void Post(std::function<void()> fn);
  // Runs what was posted, then ends the thread and waits for it.
  void Stop();

 private:
  void Run();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;  // guarded by mu_
  bool stopping_ = false;                    // guarded by mu_
  std::thread thread_;
};

}  // namespace frontier::urlfrontier
