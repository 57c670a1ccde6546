// LoopWakeup: the one way work that arrives on another thread reaches the
// event loop (docs/event-loop.md). The other thread queues its work under
// its own lock and calls Notify(); the loop, woken through an eventfd,
// runs `on_wake` on its thread, which takes the queued work. Several
// Notify() calls before the loop wakes make one call of `on_wake`.
#pragma once

#include <functional>

#include "server/libevent_ptr.h"

namespace frontier {

class LoopWakeup {
 public:
  // `base` must outlive this object; `on_wake` runs on the loop thread.
  LoopWakeup(event_base* base, std::function<void()> on_wake);
  ~LoopWakeup();
  LoopWakeup(const LoopWakeup&) = delete;
  LoopWakeup& operator=(const LoopWakeup&) = delete;

  // False if no eventfd could be made: Notify() then does nothing.
  bool ok() const { return event_ != nullptr; }
  // Any thread.
  void Notify();

 private:
  static void OnWake(evutil_socket_t fd, short what, void* arg);

  std::function<void()> on_wake_;
  int fd_ = -1;  // eventfd: other threads write, the loop reads
  EventPtr event_;
};

}  // namespace frontier
