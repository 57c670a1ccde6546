// LoopInbox: the one way work done on another thread reaches the event
// loop (docs/event-loop.md, "Overlapped group commit"). A thread Post()s a
// closure; the loop runs it on its own thread soon after, woken through an
// eventfd it watches. Only the loop thread touches storage and connections, so
// a thread hands its results over this way instead of acting on them: the
// LogSyncer reports its log syncs, the BackupRunner its finished copies,
// the URL Frontier door its calls' commands (server/urlfrontier_door.h).
#pragma once

#include <functional>
#include <mutex>
#include <vector>

#include "server/libevent_ptr.h"

namespace frontier {

class LoopInbox {
 public:
  // Watches an eventfd on `base`, which must outlive the inbox.
  explicit LoopInbox(event_base* base);
  // Closures posted and not yet run are dropped. No thread may Post()
  // any more (join it first).
  ~LoopInbox();
  LoopInbox(const LoopInbox&) = delete;
  LoopInbox& operator=(const LoopInbox&) = delete;

  // False if the loop cannot be woken (no eventfd): Post() would never
  // run anything.
  bool ok() const { return wake_event_ != nullptr; }
  // Any thread: `fn` runs on the loop thread, after the closures posted
  // before it.
  void Post(std::function<void()> fn);

 private:
  static void OnWake(evutil_socket_t fd, short what, void* arg);
  void RunPosted();

  int wake_fd_ = -1;  // eventfd: posting threads write, the loop reads
  EventPtr wake_event_;
  std::mutex mu_;
  std::vector<std::function<void()>> posted_;  // guarded by mu_
};

}  // namespace frontier
