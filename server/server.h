// Server: the event loop. One libevent event_base, listeners on the bind
// addresses, one Connection per client, the timers, and the pass structure
// that gives group commit:
//
//   while (!stopping) { event_base_loop(base, EVLOOP_ONCE); AfterPass(); }
//
// Every command read during a pass executes at once (its transaction
// commits without syncing); AfterPass() then serves waiting BPOP clients
// and, with fsync always, writes the log and hands its sync to the
// LogSyncer thread: the pass's replies are held until that sync is done,
// while the loop goes on with other clients. docs/event-loop.md has the
// whole design.
//
// Not thread-safe; everything but the LogSyncer's fsync runs on the
// thread that calls Run().
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "server/backup_runner.h"
#include "server/blocked_clients.h"
#include "server/cluster_etcd.h"
#include "server/cluster_forwarder.h"
#include "server/cluster_gather.h"
#include "server/cluster_state.h"
#include "server/config.h"
#include "server/connection.h"
#include "server/connection_type.h"
#include "server/http/http_server.h"
#include "server/internal_clients.h"
#include "server/libevent_ptr.h"
#include "server/log_syncer.h"
#include "server/madd_batch.h"
#include "server/partitions.h"
#include "server/peer_directory.h"
#include "server/pubsub.h"
#include "server/replica_progress.h"
#include "server/replication_announcer.h"
#include "server/replication_events.h"
#include "server/server_stats.h"
#include "server/slowlog.h"
#include "server/timer.h"
#include "server/urlfrontier_door.h"
#include "storage/frontier.h"

namespace frontier {

class Server : private ConnectionEvents,
               private ServerControl,
               private PubSubSink,
               private InternalClients {
 public:
  // `config`, `frontier` and `stats` must outlive the Server. CONFIG SET
  // changes `config` in place (ApplyConfig).
  Server(Config& config, Frontier& frontier, ServerStats& stats);
  ~Server() override;
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds every `bind` address on `port` for plain TCP (unless it is 0),
  // on `tls-port` for TLS (unless it is 0), building the TLS context
  // first, on `http-port` for HTTP (unless it is 0; HttpServer) and on
  // `urlfrontier-port` for URL Frontier's gRPC API (unless it is 0;
  // UrlFrontierDoor). IOError (naming the address) if one cannot be bound;
  // InvalidArgument for an address that is not one, when both ports are 0
  // or equal, or when the TLS set-up fails (the message names the
  // directive and file, see TlsContext::Create).
  Status Listen();
  // The plain TCP port listened on; 0 if none.
  int port() const { return port_; }
  // The TLS port listened on; 0 if none.
  int tls_port() const { return tls_port_; }
  // The URL Frontier gRPC port listened on; 0 if none.
  int urlfrontier_port() const {
    return urlfrontier_ ? urlfrontier_->port() : 0;
  }

  // Runs the loop until SHUTDOWN, SIGTERM or SIGINT; then stops accepting,
  // makes the last pass durable, sends what replies it can within a short
  // grace period and closes every client. Returns true if SHUTDOWN NOSAVE
  // asked to skip the final checkpoint. The caller closes the Frontier.
  bool Run();

  // Makes this server a node of the cluster `state` (docs/cluster.md):
  // keyed commands of other shards are forwarded or redirected. Before
  // Run().
  // InvalidArgument if tls-cluster is set and the links' TLS cannot be
  // set up (NewLinkTlsContext).
  Status UseCluster(ClusterState state);

  // Where the frontier publishes its own notices (e.g. per-partition
  // hints): pubsub().Publish(channel, message) reaches the subscribers at
  // the end of the current pass.
  PubSub& pubsub() { return pubsub_; }

 private:
  // What a listener's accept callback gets as its `arg`.
  struct Endpoint {
    Server* server;
    const ConnectionType* type;
  };

  // libevent callbacks; OnAccept's `arg` is an Endpoint, OnSignal's the
  // Server.
  static void OnAccept(evconnlistener* listener, evutil_socket_t fd,
                       sockaddr* addr, int len, void* arg);
  static void OnSignal(evutil_socket_t sig, short what, void* arg);

  // ConnectionEvents.
  void OnReadable(Connection& conn) override;
  void OnDrained(Connection& conn) override;
  void OnDisconnected(Connection& conn, short what) override;

  void Accept(evutil_socket_t fd, sockaddr* addr, const ConnectionType& type);
  // A new client's security state: authenticated at once when the server
  // needs no AUTH; refused (-DENIED, then closed) by protected mode.
  void Admit(Connection& conn, evutil_socket_t fd, const sockaddr* addr);
  // Listens on `port` with `type` and appends the listeners to listeners_;
  // returns the port bound.
  StatusOr<int> ListenWith(int port, const ConnectionType& type);
  // Executes every complete command in `conn`'s input, until it blocks,
  // closes, or the server stops.
  void ProcessInput(Connection& conn);
  void Execute(Connection& conn);
  void ReplyProtocolError(Connection& conn);
  // A command of `conn` is about to run in the pass's transaction: notes
  // where its reply starts, for CommitPass.
  void NotePassCommand(Connection& conn);

  // Replication (server_replication.cc): starts receiving the events, and
  // handles one on the loop thread (a log line for every role change).
  void StartReplicationEvents();
  ReplicationRole replication_role() const override { return repl_role_; }
  void OnReplicationEvent(const ReplicationEvent& event);
  // Once a second with replication: reads the group's directory
  // (PeerDirectory) and, on the master, adds this site's client address
  // to it if missing or changed.
  void SyncGroupDirectory();
  // On a replica: its log to disk (Frontier::SyncReplicaLog); a failure
  // is logged.
  void SyncReplicaLog();
  std::string ClientAddressOf(std::string_view repl) const override;
  // Between passes: reopens the database handles after a replication
  // rollback (Frontier::ReopenDeadHandles), and logs it.
  void ReopenDeadHandles();
  // A replica, at every directory sync: tells the master its client
  // address and log position (ReplicaAnnouncer).
  void AnnounceToMaster();
  Status NoteReplicaAddress(std::string_view repl, std::string_view client,
                            std::optional<uint64_t> offset) override;
  std::optional<ReplicaReport> ReplicaReportOf(
      std::string_view repl) const override;
  // FAILOVER (server_handover.cc): ServerControl's, and on the loop every
  // kHandoverTickMs while one is in progress: asks the target to take
  // over, follows it, or gives up at the deadline.
  Status StartHandover(const std::string& target, int64_t timeout_ms,
                       uint64_t client_id) override;
  Status AbortHandover() override;
  std::string_view HandoverState() const override;
  Status TakeOverMaster(uint64_t offset, int64_t deadline_ms) override;
  void HandoverTick();
  // Ends the hand-over: answers its client OK, or `error` after this site
  // became master again.
  void EndHandover(const Status& error);

  // The end of every pass, in this order (docs/event-loop.md).
  void AfterPass();
  void ServeBlocked(int64_t now_ms);
  void ExpireBlocked(int64_t now_ms);
  // fsync always: writes the log if the pass committed, asks the syncer
  // to sync it, and moves the pass's connections with output from
  // with_output_ to held_ (unless everything is durable already).
  void HoldForSync();
  // The LogSyncer finished syncing up to `seq`: release the held replies
  // it covers, or, if it failed, close their clients without them.
  void OnSynced(uint64_t seq, const Status& status, int64_t sync_ns);
  // Releases `conn`'s held replies and resumes its buffered input.
  void ReleaseHeld(Connection& conn);
  // fsync always without the syncer (and at shutdown): one FlushLog() for
  // the pass. False if it failed (the pass's replies have then been
  // dropped and their clients closed).
  bool FlushPass();
  // FlushLog(), counted and timed (CountFlush).
  Status TimedFlush();
  // Counts a log flush of the commits up to `seq` that took `ns` for
  // INFO and /metrics (log_flushes, the latency and batch histograms).
  void CountFlush(uint64_t seq, const Status& status, int64_t ns);
  // Closes the clients in `ids` without their replies: their commands
  // committed but are not known to be durable (`why` failed).
  void DropUnsynced(const std::vector<uint64_t>& ids, const Status& why);
  void ReleaseReplies();
  // A connection of with_output_, taken off that list; nullptr if it is
  // gone, or closed (its replies are then dropped).
  Connection* TakeListed(uint64_t id);
  void ReapClosed();
  void ArmWakeTimer(int64_t now_ms);

  // Timers.
  void RunTick();
  void RunCheckpoint();
  void RunEverySecFlush();
  void ResumeUnblocked();
  // Once a second: `timeout` and client-output-buffer-limit.
  void RunClientsCron();
  // Every hint-interval: the partitions' hints (HintPublisher).
  void RunHints();

  // A full disk (docs/operations.md): while Frontier::WriteStatus() is not
  // OK, write commands get -MISCONF (command_table.cc), ticks, BPOP
  // service, checkpoints and everysec flushes pause, and replies that
  // acknowledge no write go out without a flush. The retry timer calls
  // Frontier::RetryWrites() until the directory takes writes again.
  bool WritesRefused() const { return !frontier_.WriteStatus().ok(); }
  // Starts the retry timer (and logs) the first time a pass ends refused.
  void WatchWriteFailure();
  void RunWriteRetry();

  // Closes `conn` (and returns true) if its unsent replies, plus
  // `incoming` bytes about to be added, are over the hard output limit of
  // its class (pubsub while subscribed, else normal), or have stayed over
  // the soft one too long.
  bool EnforceOutputLimit(Connection& conn, int64_t now_ms,
                          size_t incoming = 0);

  // PubSubSink: appends a published message to a subscriber's replies,
  // unless that would break its output limit (then it is closed).
  void Deliver(uint64_t client, std::string_view resp) override;

  // InternalClients, for the URL Frontier door (server_internal.cc).
  uint64_t OpenInternal(std::shared_ptr<ReplySink> sink, std::string address,
                        const sockaddr* peer) override;
  void FeedInternal(uint64_t id, std::string_view bytes) override;
  void CloseInternal(uint64_t id) override;

  // ServerControl, for CLIENT LIST/KILL, CONFIG SET/RESETSTAT, SLOWLOG.
  std::vector<ClientSnapshot> Clients() const override;
  bool KillClient(uint64_t id) override;
  Status ApplyConfig(const Config& updated) override;
  void ResetStats() override;
  SlowLog& slowlog() override { return slowlog_; }
  // Frontier::EndPass, then BeginPass: on success the commands that ran
  // since the last commit keep their replies; on failure each of them is
  // answered with the error instead (server_pass.cc).
  void CommitPass() override;
  size_t WaitingOn(std::string_view name) const override {
    return blocked_.WaitingOn(name);
  }
  // BACKUP (server_backup.cc): BeginBackup on the loop, the copy on
  // backup_'s thread, then OnBackupDone back on the loop.
  Status StartBackup(const std::string& target_dir,
                     uint64_t client_id) override;
  // The copy of the running backup ended with `status`: unpins the logs,
  // logs the outcome and answers the waiting client, if still connected.
  void OnBackupDone(const Status& status);
  // At shutdown, once held replies are released: cancels a backup in
  // flight, waits for its thread and answers its client with an error.
  void CancelBackup();

  // The cluster (server_cluster.cc): ServerControl's side, and the reply
  // of a forwarded command for `client`, relayed to it.
  const ClusterState* cluster() const override {
    return cluster_ ? &*cluster_ : nullptr;
  }
  Status ReloadCluster() override;
  bool RouteCommand(const CommandSpec& spec, CommandContext& ctx) override;
  void SpreadLinks(
      CommandContext& ctx, RelayedReply local,
      std::vector<std::pair<size_t, std::vector<std::string>>> parts,
      ClusterGather gather) override;
  void PopElsewhere(CommandContext& ctx, std::vector<std::string> argv,
                    bool with_count,
                    std::optional<BlockRequest> then_wait) override;
  // A reply to a POP ... ANYSHARD of `client` sent to another shard: true
  // if it was empty and the POP went on to the next shard.
  bool PopGoesOn(uint64_t client, const RelayedReply& reply);
  // A BPOP ... ANYSHARD that no other shard could serve: the client, still
  // blocked, now waits on this shard as BPOP does.
  void WaitAfterAll(uint64_t client, BlockRequest request);
  void OnForwardReply(uint64_t client, uint32_t part, RelayedReply reply);
  // The cluster-wide forms (a last argument CLUSTER) of STATS, SITE TOP,
  // SITE LIST, PARTITION INFO and HINT: every shard asked (SITE LIST: the
  // shard its cursor names), the replies put together. False: not one.
  bool RouteClusterWide(const CommandSpec& spec, CommandContext& ctx);
  // What the forwarder asks of the map: each shard's master, and what it
  // learns (ClusterForwarder::Shards).
  ClusterForwarder::Shards ForwarderShards();
  // The member of `shard` at "host:port" `from` could not serve it (gone,
  // a replica, no quorum): if it is the one taken for its master, the
  // shard's next member is, until one serves or etcd names the master.
  void PassOverMaster(size_t shard, const std::string& from);
  // Forwards part first_part + i of a command split over shards (MSEEN,
  // STATS CLUSTER, MADD) to shard parts[i].first as parts[i].second, for
  // ctx's client, whose reply `gather` puts together; within `timeout_ms`
  // if > 0, else cluster-forward-timeout.
  void FanOut(CommandContext& ctx,
              std::vector<std::pair<size_t, std::vector<std::string>>> parts,
              ClusterGather gather, uint32_t first_part = 0,
              int64_t timeout_ms = 0);
  // After the pass's commit (`committed`): hands the local parts of the
  // MADDs spread in it to their gathers (SpreadLinks).
  void SettleLocalParts(const Status& committed);
  // At the end of the pass: the remote parts of the MADDs spread in it,
  // one MADDLINKS per peer (and crawl, hold and timeout), each within
  // cluster-forward-max-bytes (MaddBatch); and a batch's reply split back
  // to its MADDs' gathers.
  void SendMaddParts();
  void OnMaddBatchReply(uint64_t batch, RelayedReply reply);
  // After a replication role change: which member of this node's shard is
  // its master (this node, or the one whose repl address the group names),
  // for CLUSTER SLOTS/NODES/SHARDS and MOVED.
  void NoteOwnMaster();
  // The directory in etcd (server_cluster_etcd.cc): follows it from
  // UseCluster on, with cluster-etcd. A view with a new map: the map is
  // taken if it is valid for this node and agrees with the shard's record
  // (then cached in the data directory), else logged and ignored; the
  // masters' keys name the other shards' masters. The tick, once a
  // second, keeps this node's master key and the shard's record.
  void FollowEtcd();
  void OnEtcdView(EtcdView view);
  void OnEtcdTrouble(const std::string& why);
  void TakeEtcdMap(const cluster::EtcdKeyValue& kv);
  void ApplyEtcdMasters();
  void TickEtcd();
  // Tells the directory thread whether this node holds its shard's master
  // key (it writes or revokes it at once); at each tick and at each
  // replication role change (NoteOwnMaster). True if this node is master.
  bool HoldOwnMasterKey();
  // Commits the pass and leaves it: until frontier_.BeginPass(), no pass
  // transaction is open. The shard's record in meta.db is read and
  // written that way, since a read of meta.db waits for the lock of a
  // write to it that an open pass holds (SyncGroupDirectory's, in the same
  // pass), which this thread would never release. Cheap when the pass
  // wrote nothing.
  void LeavePass();

  void BeginShutdown(bool nosave, const char* why);
  void DrainOutputs();

  void ListOutput(Connection& conn);
  void Unblock(Connection& conn);
  void Close(Connection& conn);
  Connection* Find(uint64_t id);
  void UpdateClientCounts();

  Config& config_;
  Frontier& frontier_;
  ServerStats& stats_;
  SlowLog slowlog_;

  EventBasePtr base_;
  // Declared before the listeners and connections that refer to them.
  std::unique_ptr<ConnectionType> tcp_type_;
  std::unique_ptr<ConnectionType> tls_type_;  // only with a tls-port
  std::vector<std::unique_ptr<Endpoint>> endpoints_;
  std::vector<ListenerPtr> listeners_;
  std::vector<EventPtr> signals_;
  int port_ = 0;
  int tls_port_ = 0;
  std::unique_ptr<HttpServer> http_;  // with an http-port; after base_
  // The cluster (server_cluster.cc): the map in force (none outside a
  // cluster), the links to the other nodes (after base_), and the argv
  // of the command running, with its hash tags taken off.
  std::optional<ClusterState> cluster_;
  LinkTlsContext link_tls_;  // with tls-cluster; before forwarder_
  std::unique_ptr<ClusterForwarder> forwarder_;
  // With cluster-etcd: its thread, the tick, and the masters' keys as
  // last read (shard name -> host:port).
  std::unique_ptr<EtcdDirectory> etcd_;
  std::unique_ptr<Timer> etcd_timer_;
  std::map<std::string, std::string> etcd_masters_;
  // A map whose check against the record failed for want of a read.
  std::optional<cluster::EtcdKeyValue> etcd_retry_;
  std::vector<std::string> route_argv_;
  // Clients waiting for the parts of a command split over shards, and the
  // local parts of this pass's MADDs, final when the pass commits.
  std::unordered_map<uint64_t, ClusterGather> gathers_;
  std::vector<std::pair<uint64_t, RelayedReply>> pass_local_parts_;
  // The remote parts of this pass's MADDs, not sent yet, and the batches
  // in flight, by the id they are forwarded as (kMaddBatchId set: never a
  // client's id).
  struct MaddPart {
    uint64_t client = 0;
    uint32_t part = 0;
    size_t shard = 0;
    std::string crawl;
    bool hold = true;
    int64_t timeout_ms = 0;
    std::vector<std::string> argv;
  };
  static constexpr uint64_t kMaddBatchId = uint64_t{1} << 63;
  std::vector<MaddPart> pass_madd_parts_;
  std::unordered_map<uint64_t, MaddBatch> madd_batches_;
  uint64_t next_madd_batch_ = 0;
  // POP ... ANYSHARD in progress, per client: the POP sent on, the shards
  // still to ask, the empty reply if none has a URL; and where the next
  // one starts (round robin, so that idle workers do not all ask the same
  // shard first).
  struct PopChain {
    std::vector<std::string> argv;
    std::vector<size_t> shards;
    std::string empty;
    std::string crawl;
    std::optional<BlockRequest> then_wait;  // BPOP: wait here after all
  };
  std::unordered_map<uint64_t, PopChain> pop_chains_;
  size_t pop_next_shard_ = 0;

  std::unordered_map<uint64_t, std::unique_ptr<Connection>> connections_;
  uint64_t next_client_id_ = 0;
  BlockedClients blocked_;
  PubSub pubsub_{*this};
  // With a urlfrontier-port; after base_ and connections_ (its closures
  // reach them), stopped at BeginShutdown.
  std::unique_ptr<UrlFrontierDoor> urlfrontier_;

  // Per pass: connections with replies to release, connections to
  // destroy, and unblocked connections whose buffered input must run.
  std::vector<uint64_t> with_output_;
  std::vector<uint64_t> closed_;
  std::vector<uint64_t> to_resume_;
  // Connections that ran commands since the last CommitPass.
  std::vector<uint64_t> pass_conns_;
  // fsync always: connections whose replies wait for a log sync (see
  // Connection::held_until), the newest commit sequence number written to
  // the log for them, and the newest known durable.
  std::vector<uint64_t> held_;
  uint64_t written_seq_ = 0;
  uint64_t durable_seq_ = 0;
  std::unique_ptr<LogSyncer> syncer_;  // after base_: its event uses it
  // Replication (server_replication.cc): the events of the Replication
  // Manager, brought to the loop (null with replication no), and this
  // site's role as they last said.
  std::unique_ptr<ReplicationEvents> repl_events_;
  ReplicationRole repl_role_ = ReplicationRole::kNone;
  // The group's client addresses (the directory) and this site's own.
  PeerDirectory directory_;
  std::string client_address_;
  std::unique_ptr<Timer> directory_timer_;  // every kDirectoryIntervalMs
  // A replica's announcements to its master.
  std::unique_ptr<ReplicaAnnouncer> announcer_;
  // ReopenDeadHandles: failing since the last success (logged once), and
  // when it was last tried.
  bool handles_reopen_failing_ = false;
  int64_t last_reopen_try_ms_ = 0;
  // The master: client addresses its replicas announced, by repl address,
  // until the sites leave the group.
  std::map<std::string, std::string, std::less<>> announced_;
  // The master: where each replica's log ends, as it last reported.
  ReplicaProgress progress_;
  // FAILOVER in progress (server_handover.cc): who waits for it, the
  // target (replication and client address), the log end the target must
  // reach, the deadline, and whether the target said it took over.
  struct Handover {
    uint64_t client = 0;
    std::string repl;
    std::string address;
    uint64_t offset = 0;
    int64_t started_ms = 0;
    int64_t deadline_ms = 0;
    int64_t asked_ms = 0;  // when the request in flight went; 0: none
    bool taken_over = false;
  };
  std::optional<Handover> handover_;
  std::unique_ptr<ReplicaAnnouncer> handover_link_;  // to the target
  std::unique_ptr<Timer> handover_timer_;
  // The BACKUP in progress: its thread (after base_, as syncer_), the
  // client waiting for it, its target and when it started.
  std::unique_ptr<BackupRunner> backup_;
  uint64_t backup_client_ = 0;
  std::string backup_target_;
  int64_t backup_started_ms_ = 0;

  bool stopping_ = false;
  bool nosave_ = false;

  std::unique_ptr<Timer> tick_timer_;        // every timer-ms: Tick()
  std::unique_ptr<Timer> wake_timer_;        // next BPOP deadline / due time
  std::unique_ptr<Timer> tick_again_timer_;  // next pass: more Tick() due
  std::unique_ptr<Timer> checkpoint_timer_;  // every checkpoint-interval
  std::unique_ptr<Timer> fsync_timer_;       // everysec: FlushLog()
  std::unique_ptr<Timer> resume_timer_;      // next pass: ResumeUnblocked()
  std::unique_ptr<Timer> clients_timer_;     // every second: idle, output
  std::unique_ptr<Timer> write_retry_timer_;  // while writes are refused
  std::unique_ptr<Timer> hint_timer_;         // every hint-interval
  HintPublisher hint_publisher_;
  // Frontier::commit_seq() at the end of the last pass: a pass whose end
  // sees another value committed something itself.
  uint64_t commit_seq_after_pass_ = 0;
  int64_t writes_refused_since_ms_ = 0;  // 0 = writes are accepted
};

}  // namespace frontier
