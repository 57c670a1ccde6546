// Server: the event loop. One libevent event_base, listeners on the bind
// addresses, one Connection per client, the timers, and the pass structure
// that gives group commit:
//
//   while (!stopping) { event_base_loop(base, EVLOOP_ONCE); AfterPass(); }
//
// Every command read during a pass executes at once (its transaction
// commits without syncing); AfterPass() then serves waiting BPOP clients,
// makes the pass durable with one FlushLog() (fsync always), and only then
// releases the pass's replies to the sockets. docs/event-loop.md has the
// whole design.
//
// Not thread-safe; everything runs on the thread that calls Run().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "server/blocked_clients.h"
#include "server/config.h"
#include "server/connection.h"
#include "server/libevent_ptr.h"
#include "server/server_stats.h"
#include "server/timer.h"
#include "storage/frontier.h"

namespace frontier {

class Server : private ConnectionEvents {
 public:
  // `config`, `frontier` and `stats` must outlive the Server.
  Server(const Config& config, Frontier& frontier, ServerStats& stats);
  ~Server() override;
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds every `bind` address on `port`. IOError (naming the address) if
  // one cannot be bound, InvalidArgument for an address that is not one.
  Status Listen();
  // The port actually listened on (useful with port 0).
  int port() const { return port_; }

  // Runs the loop until SHUTDOWN, SIGTERM or SIGINT; then stops accepting,
  // makes the last pass durable, sends what replies it can within a short
  // grace period and closes every client. Returns true if SHUTDOWN NOSAVE
  // asked to skip the final checkpoint. The caller closes the Frontier.
  bool Run();

 private:
  // libevent callbacks; `arg` is the Server.
  static void OnAccept(evconnlistener* listener, evutil_socket_t fd,
                       sockaddr* addr, int len, void* arg);
  static void OnSignal(evutil_socket_t sig, short what, void* arg);

  // ConnectionEvents.
  void OnReadable(Connection& conn) override;
  void OnDrained(Connection& conn) override;
  void OnDisconnected(Connection& conn, short what) override;

  void Accept(evutil_socket_t fd, sockaddr* addr);
  // Executes every complete command in `conn`'s input, until it blocks,
  // closes, or the server stops.
  void ProcessInput(Connection& conn);
  void Execute(Connection& conn);
  void ReplyProtocolError(Connection& conn);

  // The end of every pass, in this order (docs/event-loop.md).
  void AfterPass();
  void ServeBlocked(int64_t now_ms);
  void ExpireBlocked(int64_t now_ms);
  // fsync always: one FlushLog() for the pass. False if it failed (the
  // pass's replies have then been dropped and their clients closed).
  bool FlushPass();
  void ReleaseReplies();
  void ReapClosed();
  void ArmWakeTimer(int64_t now_ms);

  // Timers.
  void RunTick();
  void RunCheckpoint();
  void RunEverySecFlush();
  void ResumeUnblocked();

  void BeginShutdown(bool nosave, const char* why);
  void DrainOutputs();

  void ListOutput(Connection& conn);
  void Unblock(Connection& conn);
  void Close(Connection& conn);
  Connection* Find(uint64_t id);
  void UpdateClientCounts();

  const Config& config_;
  Frontier& frontier_;
  ServerStats& stats_;

  EventBasePtr base_;
  std::vector<ListenerPtr> listeners_;
  std::vector<EventPtr> signals_;
  int port_ = 0;

  std::unordered_map<uint64_t, std::unique_ptr<Connection>> connections_;
  uint64_t next_client_id_ = 0;
  BlockedClients blocked_;

  // Per pass: connections with replies to release, connections to
  // destroy, and unblocked connections whose buffered input must run.
  std::vector<uint64_t> with_output_;
  std::vector<uint64_t> closed_;
  std::vector<uint64_t> to_resume_;

  // A write command committed since the last FlushLog().
  bool unflushed_writes_ = false;
  bool stopping_ = false;
  bool nosave_ = false;

  std::unique_ptr<Timer> tick_timer_;        // every timer-ms: Tick()
  std::unique_ptr<Timer> wake_timer_;        // next BPOP deadline / due time
  std::unique_ptr<Timer> checkpoint_timer_;  // every checkpoint-interval
  std::unique_ptr<Timer> fsync_timer_;       // everysec: FlushLog()
  std::unique_ptr<Timer> resume_timer_;      // next pass: ResumeUnblocked()
};

}  // namespace frontier
