// ReplicationEvents: brings the Replication Manager's events (storage/
// replication_state.h), which arrive on its threads, to the loop thread
// through a LoopWakeup, the way LogSyncer brings finished syncs. Nothing
// but this queue is touched off the loop thread.
#pragma once

#include <functional>
#include <mutex>
#include <vector>

#include "server/libevent_ptr.h"
#include "server/loop_wakeup.h"
#include "storage/frontier.h"

namespace frontier {

class ReplicationEvents {
 public:
  using Handler = std::function<void(const ReplicationEvent&)>;

  // Becomes `frontier`'s replication listener; `handle` runs on the loop
  // thread, once per event, in the order they came. `base` and `frontier`
  // must outlive this object.
  ReplicationEvents(event_base* base, Frontier& frontier, Handler handle);
  // Stops listening; events not yet delivered are dropped.
  ~ReplicationEvents();
  ReplicationEvents(const ReplicationEvents&) = delete;
  ReplicationEvents& operator=(const ReplicationEvents&) = delete;

 private:
  void Push(const ReplicationEvent& event);  // any thread
  void Deliver();                            // the loop thread

  Frontier& frontier_;
  Handler handle_;
  std::mutex mu_;
  std::vector<ReplicationEvent> queued_;  // guarded by mu_
  LoopWakeup wake_;
};

}  // namespace frontier
