// ReplicationEvents: brings the Replication Manager's events (storage/
// replication_state.h), which arrive on its threads, to the loop thread
// through a LoopInbox, the way LogSyncer brings finished syncs. Nothing
// but the inbox is touched off the loop thread.
#pragma once

#include <functional>

#include "server/libevent_ptr.h"
#include "server/loop_inbox.h"
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
  Frontier& frontier_;
  Handler handle_;
  LoopInbox inbox_;
};

}  // namespace frontier
