// UrlFrontierDoor: URL Frontier's gRPC API (docs/urlfrontier.md) on
// `urlfrontier-port` at every `bind` address. gRPC's callback API runs on
// gRPC's own threads, which only read and write protobufs (urlfrontier/);
// each call's requests become RESP commands on an internal client of the
// loop (server/internal_clients.h), handed over through the door's
// LoopInbox, the one way work from another thread reaches the loop. The
// replies come back, once released (durable), through a ReplySink to the
// door's reply thread, which turns them into messages. Nothing here
// touches storage.
//
// Made and stopped on the loop thread.
#pragma once

#include <grpcpp/server.h>

#include <list>
#include <memory>
#include <mutex>
#include <string>

#include "server/config.h"
#include "server/internal_clients.h"
#include "server/loop_inbox.h"
#include "util/status.h"
#include "urlfrontier/caller.h"
#include "urlfrontier/reply_thread.h"
#include "urlfrontier/rpc_stats.h"
#include "urlfrontier/service.h"

namespace frontier {

class UrlFrontierDoor : private urlfrontier::CommandChannel {
 public:
  // Listens on config.urlfrontier_port (0 picks a free port, for tests)
  // at every config.bind address. `base` and `clients` must outlive the
  // door. IOError if a port cannot be bound or the server not started.
  static StatusOr<std::unique_ptr<UrlFrontierDoor>> Start(
      event_base* base, const Config& config, InternalClients& clients);
  // Stop()s.
  ~UrlFrontierDoor() override;

  // The port bound.
  int port() const { return port_; }
  // Calls, errors and open calls per rpc (INFO, /metrics).
  const urlfrontier::RpcStats& rpc_stats() const { return rpc_stats_; }
  // Ends every call within a fraction of a second: waiting calls fail
  // (UNAVAILABLE), streams end, the gRPC server shuts down and its threads
  // are joined. The loop must not be needed meanwhile: it is the caller.
  void Stop();

 private:
  UrlFrontierDoor(event_base* base, InternalClients& clients);

  // CommandChannel: an internal client opened (and later fed and closed)
  // on the loop through the inbox.
  std::unique_ptr<urlfrontier::CommandTransport> Open(
      std::weak_ptr<urlfrontier::ReplyReceiver> receiver,
      std::string peer) override;
  // Posts `fn` to the loop; false once stopping.
  bool Post(std::function<void()> fn);

  class Transport;
  class Sink;

  InternalClients& clients_;
  LoopInbox inbox_;
  urlfrontier::ReplyThread replies_;
  urlfrontier::RpcStats rpc_stats_;  // before service_, which counts in it
  std::unique_ptr<urlfrontier::Service> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;

  std::mutex mu_;
  bool stopping_ = false;  // guarded by mu_
  // Every Caller opened, to fail the waiting ones at Stop(); guarded by
  // mu_, pruned of the gone ones as it grows.
  std::list<std::weak_ptr<urlfrontier::ReplyReceiver>> receivers_;
};

}  // namespace frontier
