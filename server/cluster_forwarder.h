// ClusterForwarder: the server's connections to the other nodes of its
// cluster (docs/cluster.md), over which commands of other shards are
// forwarded and their replies relayed. hiredis's asynchronous API on the
// server's own event loop (its libevent adapter): no thread of its own.
//
// One connection per peer, commands sent in the order they were given,
// each reply handed back for the client that sent the command. Bounded:
// at most `max_bytes` of commands in flight to one peer (further ones wait
// here, and so do their clients: back-pressure, not memory growth), and a
// reply that does not come within `timeout_ms` fails the connection and
// every command in flight on it, each answered with an error saying it may
// or may not have run. A command that could not be sent is answered with
// an error saying it was not run. Every forwarded command is answered
// exactly once, through `deliver`, never from inside Forward().
//
// Not thread-safe: everything runs on the loop thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cluster/cluster_map.h"
#include "server/cluster_gather.h"
#include "server/libevent_ptr.h"
#include "server/server_stats.h"
#include "server/timer.h"

struct redisAsyncContext;

namespace frontier {

class ClusterForwarder {
 public:
  struct Options {
    int64_t timeout_ms = 2000;
    uint64_t max_bytes = 4 << 20;  // per peer
    // AUTH sent first on every connection when `pass` is not empty (with
    // `user` unless it is empty).
    std::string user;
    std::string pass;
  };
  // Called on the loop with the id of the client whose command it was, the
  // `part` it was forwarded as, and its reply (the peer's, or an error).
  using Deliver =
      std::function<void(uint64_t client, uint32_t part, RelayedReply reply)>;

  // `base` and `stats` must outlive the forwarder, which counts in
  // `stats` (cluster_forwarded, cluster_forward_errors and
  // cluster_forward_bytes_in_flight, over every peer).
  ClusterForwarder(event_base* base, ServerStats& stats, Deliver deliver);
  // Closes every connection; commands still waiting get no reply (the
  // server is stopping).
  ~ClusterForwarder();
  ClusterForwarder(const ClusterForwarder&) = delete;
  ClusterForwarder& operator=(const ClusterForwarder&) = delete;

  // Applies to commands forwarded from now on (CONFIG SET).
  void set_options(Options options) { options_ = std::move(options); }

  // Sends `argv` to the node at `to` for client `client`, whose crawl is
  // `crawl` (the command runs in it there), as its `part` (of a command
  // split over shards; else 0). The reply comes through `deliver`, later.
  void Forward(const cluster::Address& to, uint64_t client,
               const std::string& crawl, std::span<const std::string> argv,
               int64_t now_ms, uint32_t part = 0);

 private:
  struct Request {
    uint64_t client = 0;
    uint32_t part = 0;
    std::vector<std::string> argv;
    std::string crawl;
    size_t bytes = 0;
    int64_t deadline_ms = 0;
  };
  struct InFlight {
    uint64_t client = 0;  // 0: an internal command (AUTH, CRAWL)
    uint32_t part = 0;
    size_t bytes = 0;
    int64_t deadline_ms = 0;
  };
  struct Peer {
    ClusterForwarder* owner = nullptr;
    std::string address;  // "host:port", for messages
    cluster::Address to;
    redisAsyncContext* link = nullptr;  // null: not connected
    bool link_up = false;               // the connection was established
    std::string link_crawl;             // the crawl the connection is in
    std::string timed_out;              // why the link is being failed
    std::deque<Request> waiting;        // not sent yet, oldest first
    std::deque<InFlight> in_flight;     // sent, in order
    uint64_t bytes_in_flight = 0;
  };

  // hiredis callbacks; `ac->data` is the Peer.
  static void OnConnect(const redisAsyncContext* ac, int status);
  static void OnDisconnect(const redisAsyncContext* ac, int status);
  static void OnReply(redisAsyncContext* ac, void* reply, void* privdata);

  // Connects peers that have waiting commands and sends what the byte
  // limit lets through.
  void Pump();
  // Opens `peer`'s connection (and sends AUTH); false, with every waiting
  // command answered "not run", if that fails at once.
  bool Connect(Peer& peer);
  void Send(Peer& peer, uint64_t client, uint32_t part,
            std::span<const std::string> argv, size_t bytes,
            int64_t deadline_ms);
  // Every 100 ms while anything is forwarded: fails links whose oldest
  // command is past its deadline, and answers waiting commands past
  // theirs.
  void CheckDeadlines();
  void Fail(uint64_t client, uint32_t part, std::string line);

  event_base* base_;
  ServerStats& stats_;
  Deliver deliver_;
  Options options_;
  std::map<std::string, std::unique_ptr<Peer>> peers_;  // by address
  Timer pump_timer_;
  Timer deadline_timer_;
  bool closing_ = false;
};

}  // namespace frontier
