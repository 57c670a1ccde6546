// ReplicaAnnouncer: a replica telling its master where clients reach it
// (docs/replication.md, "Finding the master") and where its log ends
// (server/replica_progress.h). Berkeley DB knows each site
// by its replication address only, and its message channels may stop the
// loop on an unreachable peer, so the replica connects to the master's
// RESP port instead, with hiredis's asynchronous API on the server's own
// loop (its libevent adapter, as ClusterForwarder does), and sends
//   AUTH [user] pass                       (when `pass` is set, once)
//   REPLICATION ANNOUNCE <repl-listen> <client address> <log offset>
// The master adds the address to the group's directory, in the
// replicated data (server/peer_directory.h), and keeps the offset.
//
// One announcement at a time, on a connection of its own that stays open
// for the next (the caller repeats it once a second); one not answered
// within `timeout_ms` is abandoned (its connection closed) by the next
// Announce(), which connects again. So a lost one costs a second or two,
// never a stuck loop.
//
// The same link sends a master's requests to the replica it hands its
// role to (FAILOVER: REPLICATION TAKEOVER, server/server_handover.cc):
// Ask() sends any command and hands its answer to a callback.
//
// Not thread-safe: everything runs on the loop thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "server/libevent_ptr.h"

struct redisAsyncContext;

namespace frontier {

class ReplicaAnnouncer {
 public:
  struct Options {
    int64_t timeout_ms = 3000;
    // AUTH sent first when `pass` is not empty (with `user` unless empty).
    std::string user;
    std::string pass;
  };

  // `base` must outlive the announcer.
  explicit ReplicaAnnouncer(event_base* base);
  // Closes the connection of an announcement in flight.
  ~ReplicaAnnouncer();
  ReplicaAnnouncer(const ReplicaAnnouncer&) = delete;
  ReplicaAnnouncer& operator=(const ReplicaAnnouncer&) = delete;

  // Tells the master at `master` (its client address, "host:port") that
  // the site at `repl` is reached by clients at `client` and that its log
  // ends at `offset`. Does nothing while an earlier announcement younger
  // than options.timeout_ms is in flight; abandons an older one (and the
  // connection to a master that is no longer `master`). The outcome is
  // only logged.
  void Announce(const std::string& master, const std::string& repl,
                const std::string& client, uint64_t offset,
                const Options& options, int64_t now_ms);

  // Announcements answered OK so far (for tests and logs).
  uint64_t accepted() const { return accepted_; }

  // Called with the answer: error true for an error reply, text the
  // reply's string (status, error or bulk; "" for other types).
  using Answer = std::function<void(bool error, const std::string& text)>;
  // Sends `argv` to the site at `to` (a client address) on the link, as
  // Announce() does (the same rules for one in flight, whose answer is
  // then never delivered). False, nothing sent, while an earlier one is
  // younger than options.timeout_ms or if `to` cannot be connected to.
  // `answer` is not called for a request abandoned or whose connection
  // closed: the caller times it out.
  bool Ask(const std::string& to, const std::vector<std::string>& argv,
           const Options& options, int64_t now_ms, Answer answer);
  // Abandons the request in flight, if any (its answer never delivered),
  // and closes the link.
  void Cancel() { Close(); }

 private:
  static void OnConnect(const redisAsyncContext* ac, int status);
  static void OnDisconnect(const redisAsyncContext* ac, int status);
  static void OnReply(redisAsyncContext* ac, void* reply, void* privdata);
  // Opens link_ to `master` (AUTH queued first); false, logged, if not.
  bool Connect(const std::string& master, const Options& options);
  void Close();

  event_base* base_;
  redisAsyncContext* link_ = nullptr;  // null: not connected
  std::string site_;                 // where link_ goes
  bool waiting_ = false;               // an announcement is unanswered
  int64_t started_ms_ = 0;             // when it was sent
  Answer answer_;                      // for the one in flight
  uint64_t accepted_ = 0;
};

}  // namespace frontier
