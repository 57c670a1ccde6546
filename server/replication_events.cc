#include "server/replication_events.h"

#include <utility>

namespace frontier {

ReplicationEvents::ReplicationEvents(event_base* base, Frontier& frontier,
                                     Handler handle)
    : frontier_(frontier),
      handle_(std::move(handle)),
      wake_(base, [this] { Deliver(); }) {
  frontier_.SetReplicationListener(
      [this](const ReplicationEvent& event) { Push(event); });
}

ReplicationEvents::~ReplicationEvents() {
  frontier_.SetReplicationListener(nullptr);
}

void ReplicationEvents::Push(const ReplicationEvent& event) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queued_.push_back(event);
  }
  wake_.Notify();
}

void ReplicationEvents::Deliver() {
  std::vector<ReplicationEvent> events;
  {
    std::lock_guard<std::mutex> lock(mu_);
    events.swap(queued_);
  }
  for (const ReplicationEvent& event : events) handle_(event);
}

}  // namespace frontier
