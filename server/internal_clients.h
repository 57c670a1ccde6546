// InternalClients: clients of the loop without a socket. Another door into
// the server (the URL Frontier gRPC API, server/urlfrontier_door.h) runs
// its requests as RESP commands on such a client, so the command table
// treats them exactly as a socket client's: the same users and roles,
// crawls, pass transaction and group commit, and replies released only
// once durable (to the client's ReplySink, connection.h). Every method runs
// on the loop thread: the door posts to it through its LoopInbox.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "server/connection.h"

namespace frontier {

class InternalClients {
 public:
  virtual ~InternalClients() = default;
  // A new internal client named `address` (CLIENT LIST's addr) for a
  // caller at `peer` (nullptr if not known), with a socket client's
  // authentication state (logged in as admin when the server requires no
  // AUTH). Returns its id; 0 when the server is stopping or protected mode
  // refuses `peer` (then `sink` is told Closed() at once, with the reason).
  virtual uint64_t OpenInternal(std::shared_ptr<ReplySink> sink,
                                std::string address, const sockaddr* peer) = 0;
  // Request bytes for client `id`, run as a socket client's input would
  // be (after its held replies, in order). Nothing for a closed client.
  virtual void FeedInternal(uint64_t id, std::string_view bytes) = 0;
  // Closes client `id` (its unreleased replies are dropped).
  virtual void CloseInternal(uint64_t id) = 0;
};

}  // namespace frontier
