#include "server/replication_events.h"

#include <utility>

namespace frontier {

ReplicationEvents::ReplicationEvents(event_base* base, Frontier& frontier,
                                     Handler handle)
    : frontier_(frontier), handle_(std::move(handle)), inbox_(base) {
  // On a Replication Manager thread: only the inbox is touched.
  frontier_.SetReplicationListener([this](const ReplicationEvent& event) {
    inbox_.Post([this, event] { handle_(event); });
  });
}

ReplicationEvents::~ReplicationEvents() {
  frontier_.SetReplicationListener(nullptr);
}

}  // namespace frontier
