// ClusterForwarder: the server's connections to the other nodes of its
// cluster (docs/cluster.md), over which commands of other shards are
// forwarded and their replies relayed, over InternalLink connections (a
// plain socket, or TLS with tls-cluster) on the server's own event loop:
// no thread of its own.
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
// The failover hold (ForwardToShard): a command for a shard whose master
// cannot serve it (the connection refused or lost, or the node answers
// READONLY, REPLICA ..., NOREPLICAS or NOQUORUM: it is a replica, or a
// master without a quorum while its group elects) is held, not answered,
// and sent again every 200 ms to the node `Shards::master_of` names then
// (told first, through `Shards::pass_over`, that the node it went to could
// not serve it; a MOVED naming another member of the shard is taken as
// its master at once), until one serves it or `hold_ms` has passed since
// it was forwarded: then it is answered "CLUSTERDOWN ...", "not run", or
// "may or may not have run" if a connection was lost with it in flight.
// A command lost in flight is sent again: held commands run at least
// once, not exactly once. Held commands count against a limit of their
// own, `max_bytes` over every shard; past it, a command gets its error at
// once. A reply that does not come within `timeout_ms` is held only if
// meanwhile another member became the shard's master (the node it went to
// was stopping); otherwise it is TIMEOUT (the node may be running it).
//
// Not thread-safe: everything runs on the loop thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cluster/cluster_map.h"
#include "server/cluster_gather.h"
#include "server/internal_link.h"
#include "server/libevent_ptr.h"
#include "server/server_stats.h"
#include "server/timer.h"

struct redisReply;

namespace frontier {

class ClusterForwarder {
 public:
  struct Options {
    int64_t timeout_ms = 2000;
    uint64_t max_bytes = 4 << 20;  // per peer, and for held commands
    int64_t hold_ms = 0;           // the failover hold; 0: none
    // With tls-cluster: the links' TLS (NewLinkTlsContext), which must
    // outlive the forwarder; null: plain sockets.
    SSL_CTX* tls = nullptr;
    // AUTH sent first on every connection when `pass` is not empty (with
    // `user` unless it is empty).
    std::string user;
    std::string pass;
  };
  // Called on the loop with the id of the client whose command it was, the
  // `part` it was forwarded as, and its reply (the peer's, or an error).
  using Deliver =
      std::function<void(uint64_t client, uint32_t part, RelayedReply reply)>;

  // What the forwarder asks and tells of the cluster's shards (loop
  // thread). `master_of`: the node a shard's commands go to now (nullopt:
  // no such shard any more, the map changed); `pass_over`: the node at
  // "host:port" could not serve the shard's commands; `redirect`: a node
  // named `to` as the shard's master (MOVED): true if it is a member of the
  // shard, then taken as its master; `name_of`: the shard's name, for
  // messages.
  struct Shards {
    std::function<std::optional<cluster::Address>(size_t shard)> master_of;
    std::function<void(size_t shard, const std::string& from)> pass_over;
    std::function<bool(size_t shard, const cluster::Address& to)> redirect;
    std::function<std::string(size_t shard)> name_of;
  };

  // `base` and `stats` must outlive the forwarder, which counts in
  // `stats` (cluster_forwarded, cluster_forward_errors,
  // cluster_forward_held and cluster_forward_bytes_in_flight, over every
  // peer).
  ClusterForwarder(event_base* base, ServerStats& stats, Shards shards,
                   Deliver deliver);
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
  // The same, to the master of `shard`, held through the shard's failover
  // (above) when `hold` and the options' hold_ms > 0.
  void ForwardToShard(size_t shard, uint64_t client, const std::string& crawl,
                      std::span<const std::string> argv, int64_t now_ms,
                      uint32_t part = 0, bool hold = true);

 private:
  struct Request {
    uint64_t client = 0;
    uint32_t part = 0;
    std::vector<std::string> argv;
    std::string crawl;
    size_t bytes = 0;
    int64_t deadline_ms = 0;
    std::optional<size_t> shard;  // set: may be held (ForwardToShard)
    int64_t hold_until_ms = 0;
    bool maybe_run = false;  // a connection was lost with it in flight
    bool held = false;       // held at least once (counted)
  };
  struct InFlight {
    uint64_t client = 0;  // 0: an internal command (AUTH, CRAWL)
    uint32_t part = 0;
    size_t bytes = 0;
    int64_t deadline_ms = 0;
    // A command that may be held: kept to be sent again.
    std::optional<Request> request;
  };
  struct Held {
    Request request;
    int64_t next_try_ms = 0;
    std::string why;  // what its shard's master did last
  };
  struct Peer {
    std::string address;  // "host:port", for messages
    cluster::Address to;
    std::unique_ptr<InternalLink> link;  // null: not connected
    std::string link_crawl;              // the crawl the connection is in
    std::deque<Request> waiting;        // not sent yet, oldest first
    std::deque<InFlight> in_flight;     // sent, in order
    uint64_t bytes_in_flight = 0;
  };

  // The link's callbacks: the reply of `peer`'s oldest command in flight
  // (nullptr: the link failed with it), and the link gone.
  void OnReply(Peer& peer, const redisReply* reply);
  void OnClosed(Peer& peer);

  Request MakeRequest(uint64_t client, const std::string& crawl,
                      std::span<const std::string> argv, int64_t now_ms,
                      uint32_t part) const;
  void Enqueue(const cluster::Address& to, Request request);
  // Connects peers that have waiting commands and sends what the byte
  // limit lets through.
  void Pump();
  // Opens `peer`'s connection (and sends AUTH); false, with every waiting
  // command held or answered "not run", if that fails at once.
  bool Connect(Peer& peer);
  // Sends `argv` on `peer`'s link, or the argv of `sent.request` if it
  // keeps one, and waits for its reply as `sent`.
  void Send(Peer& peer, InFlight sent, std::span<const std::string> argv);
  // A command `from` could not serve (`why`): held if it may be (true),
  // else false and the caller answers it.
  bool Hold(Request& request, const std::string& from, std::string why,
            bool maybe_run, int64_t next_try_ms);
  // A reply (or its absence) that says `peer` cannot serve its shard now:
  // the sentence to hold it with, if so.
  static std::optional<std::string> NotServing(const redisReply* r);
  // True if the node at `address` is not the one taken for `shard`'s
  // master now.
  bool NoLongerMaster(size_t shard, const std::string& address) const;
  // Held commands whose time came: sent again, or answered CLUSTERDOWN
  // once the hold is over.
  void ResendHeld(int64_t now);
  // Every 100 ms while anything is forwarded: fails links whose oldest
  // command is past its deadline, and answers waiting commands past
  // theirs.
  void CheckDeadlines();
  void Fail(uint64_t client, uint32_t part, std::string line);

  event_base* base_;
  ServerStats& stats_;
  Shards shards_;
  Deliver deliver_;
  Options options_;
  std::map<std::string, std::unique_ptr<Peer>> peers_;  // by address
  std::deque<Held> held_;
  // Links that closed, destroyed at the next Pump (not from inside their
  // own callbacks).
  std::vector<std::unique_ptr<InternalLink>> closed_links_;
  uint64_t held_bytes_ = 0;
  Timer pump_timer_;
  Timer deadline_timer_;
  bool closing_ = false;
};

}  // namespace frontier
