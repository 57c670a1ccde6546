// What a command handler gets and what it can ask of the event loop.
//
// A handler reads its arguments, calls the Frontier, writes exactly one
// reply through `reply`, and records in `effects` anything the loop must do
// afterwards (close the connection, block the client, shut down). It never
// touches sockets. The admin commands (CLIENT LIST/KILL, CONFIG SET,
// SLOWLOG) reach other clients and the server's settings only through the
// narrow ServerControl interface below.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/cluster_gather.h"
#include "server/cluster_state.h"
#include "server/config.h"
#include "server/pubsub.h"
#include "server/replica_progress.h"
#include "server/server_stats.h"
#include "server/slowlog.h"
#include "server/users.h"
#include "storage/frontier.h"

namespace frontier {

struct CommandSpec;
struct CommandContext;

// Identity of one client connection (CLIENT ID/SETNAME/GETNAME/SETINFO).
struct ClientInfo {
  uint64_t id = 0;
  std::string address;  // "ip:port" of the peer
  std::string name;     // "" = unset
  std::string lib_name, lib_ver;
  int64_t created_ms = 0;
  // Last time the client sent bytes or was sent a reply (Redis's
  // lastinteraction): what `timeout` measures idleness from.
  int64_t last_interaction_ms = 0;
  std::string local_address;  // "ip:port" of the server side (laddr)
  int fd = -1;
  // The last command looked up, as CLIENT LIST shows it ("client|list");
  // "" before the first.
  std::string last_command;
  // Authentication (server/auth.h). When the server requires AUTH, a new
  // client is not authenticated and has Role::kNone; AUTH or HELLO ... AUTH
  // set all three.
  bool authenticated = false;
  std::string user = "default";
  Role role = Role::kNone;
  // Subscribed mode (RESP2): the client has at least one channel or
  // pattern, so the command table lets it run only the commands flagged
  // kCmdSubscribedOk, and its output limit is the pubsub class's. Set by
  // the Pub/Sub handlers and RESET.
  bool subscribed = false;
  // The crawl the client works in (CRAWL name), and the crawls its user
  // may use (the user's ~patterns; empty = every crawl).
  std::string crawl{Frontier::kDefaultCrawl};
  std::vector<std::string> crawl_patterns;
  // READONLY (docs/replication.md): this connection may read from a
  // replica. READWRITE and RESET clear it.
  bool reads_replica = false;
  // CLUSTER LINK: the connection is another cluster node's forwarding
  // link, so a command of another shard is answered MOVED, never
  // forwarded again (no loop between two nodes whose maps disagree).
  bool cluster_link = false;
};

// One client as CLIENT LIST shows it: its identity and its buffers.
struct ClientSnapshot {
  ClientInfo info;
  size_t query_buffer = 0;  // bytes read, not yet executed
  size_t output = 0;        // reply bytes not yet written to the socket
  bool blocked = false;     // waiting in BPOP or for its BACKUP
  bool closing = false;     // its last reply is on the way; then it closes
};

// A BPOP that found nothing: wait for URLs until `deadline_ms`.
struct BlockRequest {
  int64_t deadline_ms = 0;  // wall clock; 0 = wait forever
  size_t count = 1;
  bool with_count = false;  // reply shape, see ReplyPopped
  bool with_data = false;   // WITHDATA: each URL with its value
  int64_t lease_ms = 0;     // 0 = lease-timeout
  // PARTITION name: only that partition's URLs; "" = any partition. Kept
  // by name: the map may change (CONFIG SET) while the client waits.
  std::string partition;
  // The client's crawl ("" = the default crawl): BPOP waits in it.
  std::string crawl;
};

// What admin commands may ask of the event loop beyond their own client.
// The Server implements it; a handler reaches it as CommandContext::server.
class ServerControl {
 public:
  virtual ~ServerControl() = default;
  // Every connected client (closed ones excluded), by increasing id.
  virtual std::vector<ClientSnapshot> Clients() const = 0;
  // Disconnects client `id` at once (unsent replies are dropped). Returns
  // false if there is no such client. Not for the calling client itself:
  // that one sets CommandEffects::close_after_reply instead.
  virtual bool KillClient(uint64_t id) = 0;
  // Makes `updated` the configuration (CONFIG SET): applies what changed
  // (frontier options, log level, timers, slow log length). Returns an
  // error and changes nothing if the frontier refuses the new options.
  virtual Status ApplyConfig(const Config& updated) = 0;
  // CONFIG RESETSTAT: zeroes the INFO counters.
  virtual void ResetStats() = 0;
  virtual SlowLog& slowlog() = 0;
  // BPOP clients waiting on line `name`: a partition of the default
  // crawl ("" = on no partition), or BlockedClients::LineOf's name of a
  // partition of another crawl.
  virtual size_t WaitingOn(std::string_view name) const = 0;
  // Commits the commands run so far in this pass (one transaction for the
  // pass: docs/event-loop.md). Admin commands (CONFIG, BACKUP, SHUTDOWN)
  // run after it, outside the pass's transaction.
  virtual void CommitPass() = 0;
  // This site's replication role as the loop last heard it (kNone with
  // replication no): cheap, for the command table's checks.
  virtual ReplicationRole replication_role() const = 0;
  // Where clients reach the group's site whose replication address is
  // `repl` ("host:port"): this site's own announced address for its own
  // repl-listen, another's as the group's directory names it
  // (server/peer_directory.h), "" if it does not.
  virtual std::string ClientAddressOf(std::string_view repl) const = 0;
  // REPLICATION ANNOUNCE: the master records that clients reach the
  // group's site `repl` (a replication address) at `client`, for the
  // group's directory (saved within a second), and, with `offset`, that
  // the site's log ends there now (ReplicaProgress). Unavailable on a
  // site that is not the master; InvalidArgument if `repl` is not another
  // site of the group or `client` is not host:port. Changes nothing then.
  virtual Status NoteReplicaAddress(std::string_view repl,
                                    std::string_view client,
                                    std::optional<uint64_t> offset) = 0;
  // On the master: the latest position the replica at `repl` reported
  // (server/replica_progress.h), nullopt if none (or not the master).
  virtual std::optional<ReplicaReport> ReplicaReportOf(
      std::string_view repl) const = 0;
  // FAILOVER (docs/replication.md, "Moving the master on purpose"): on
  // the master, hands its role to the replica whose client address is
  // `target` ("host:port"; "" = the connected replica that reported the
  // most log), within `timeout_ms`. On OK this site has stepped down (its
  // writes answer READONLY) and the calling client `client_id` waits
  // (CommandEffects::await_handover) for +OK once the target is master,
  // or an error once this site is master again. An error (not the master,
  // a bad or unreachable target, one in progress) changes nothing.
  virtual Status StartHandover(const std::string& target, int64_t timeout_ms,
                               uint64_t client_id) = 0;
  // FAILOVER ABORT: gives up the hand-over in progress (this site master
  // again, its client answered an error); InvalidArgument if none is, or
  // if the target has taken over already.
  virtual Status AbortHandover() = 0;
  // Redis's master_failover_state for INFO: "no-failover",
  // "waiting-for-sync" (stepped down, the target catching up) or
  // "failover-in-progress" (the target took over; not yet followed).
  virtual std::string_view HandoverState() const = 0;
  // REPLICATION TAKEOVER offset deadline (sent by a master handing its
  // role over): on a replica whose log reaches `offset`, before
  // `deadline_ms` (wall clock), becomes the master (OK; also if master
  // already). TryAgain while its log is shorter,
  // InvalidArgument after the deadline or with repl-priority 0; nothing
  // changes then.
  virtual Status TakeOverMaster(uint64_t offset, int64_t deadline_ms) = 0;
  // BACKUP: prepares a backup of the frontier to `target_dir`
  // (Frontier::BeginBackup) and starts copying it off the loop. On OK the
  // calling client `client_id` waits (CommandEffects::await_backup) and is
  // answered +OK, or the copy's error, once the copy is complete and on
  // disk. An error (a bad target, a backup already running) starts
  // nothing.
  virtual Status StartBackup(const std::string& target_dir,
                             uint64_t client_id) = 0;
  // Cluster (docs/cluster.md): the map this node serves with; nullptr
  // when it is in no cluster (no cluster-config-file).
  virtual const ClusterState* cluster() const = 0;
  // CLUSTER RELOAD: re-reads the cluster file. An error (a bad file, this
  // node no longer in it) changes nothing and says why.
  virtual Status ReloadCluster() = 0;
  // For every command that passed the command table's generic checks,
  // before its handler: false if it runs here (ctx.argv may then have been
  // replaced by one without hash tags, valid until the next call); true if
  // it must not, having replied (MOVED, an error) or been forwarded to its
  // shard (CommandEffects::await_forward).
  virtual bool RouteCommand(const CommandSpec& spec, CommandContext& ctx) = 0;
  // MADD across shards (docs/cluster.md), from its handler: `local`, the
  // elements of the links it stored in this pass, is part 0 of `gather`
  // and final once the pass commits (an error in each element if the
  // commit fails); parts[i] (a shard, an argv) is sent to that shard's
  // master as part i + 1. ctx's client waits (await_forward) and is
  // answered once every part is in.
  virtual void SpreadLinks(
      CommandContext& ctx, RelayedReply local,
      std::vector<std::pair<size_t, std::vector<std::string>>> parts,
      ClusterGather gather) = 0;
  // POP|BPOP ... ANYSHARD (docs/cluster.md) that found nothing on this
  // shard: `argv` (a POP without ANYSHARD) is sent to the other shards'
  // masters one at a time, and ctx's client (await_forward) gets the first
  // reply with a URL; if none has one (or answers at all), the empty
  // reply of POP's shape (`with_count`: an empty array, else nil), or,
  // with `then_wait` (BPOP), it waits on this shard as BPOP does.
  virtual void PopElsewhere(CommandContext& ctx, std::vector<std::string> argv,
                            bool with_count,
                            std::optional<BlockRequest> then_wait) = 0;
};


struct CommandEffects {
  bool close_after_reply = false;       // QUIT
  std::optional<BlockRequest> block;    // BPOP with nothing ready
  std::optional<bool> shutdown_nosave;  // SHUTDOWN [NOSAVE]
  // BACKUP started: no reply now; the client waits, as in BPOP, for the
  // loop to answer when the copy ends (ServerControl::StartBackup).
  bool await_backup = false;
  // FAILOVER started: no reply now; the client waits, as for BACKUP,
  // until the hand-over ends (ServerControl::StartHandover).
  bool await_handover = false;
  // Forwarded to the shard that owns its keys: no reply now; the client
  // waits, unread, for the loop to relay the owner's reply or an error.
  bool await_forward = false;
};

struct CommandContext {
  std::span<const std::string> argv;  // argv[0] is the command name
  ReplyWriter& reply;
  Frontier& frontier;
  const Config& config;
  const ServerStats& stats;
  ClientInfo& client;
  int64_t now_ms;  // wall clock, read once per command
  CommandEffects& effects;
  ServerControl& server;
  PubSub& pubsub;
};

using CommandHandler = void (*)(CommandContext& ctx);

}  // namespace frontier
