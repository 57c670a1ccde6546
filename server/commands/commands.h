// The command handlers, one function per command, grouped by file:
//   frontier_commands.cc      ADD MADD POP BPOP CONFIRM FAIL RECRAWL SEEN
//                             URLINFO DELAY STATS
//   lease_commands.cc         EXTEND RELEASE
//   site_commands.cc          SITE (BLOCK)
//   server_commands.cc        PING ECHO QUIT SELECT DBSIZE TIME SHUTDOWN
//                             BACKUP
//   client_commands.cc        AUTH CLIENT HELLO RESET
//   introspection_commands.cc COMMAND INFO
//   admin_commands.cc         CONFIG SLOWLOG
//   pubsub_commands.cc        SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE
//                             PUNSUBSCRIBE PUBLISH PUBSUB
//   site_commands.cc          SITE INFO|LIST|TOP|DELAY|LIMIT|DELETE|BLOCK|HELP
//   partition_commands.cc     PARTITION HINT, INFO's # Partitions
//   import_commands.cc        IMPORT
//   replication_commands.cc   ROLE READONLY READWRITE REPLICATION, INFO's
//                             # Replication
//   sentinel_commands.cc      SENTINEL (discovery of a group's master)
//   madd_cluster_commands.cc  MADD's links over shards, MADDLINKS
// They are bound to names, arities and flags only in command_table.cc,
// which has already checked the arity when a handler runs.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/command_context.h"

namespace frontier::commands {

void Add(CommandContext& ctx);
void MAdd(CommandContext& ctx);
// MADD's links after its ref: `url...` or `DATA url value...` (args is
// not empty), into *urls and, with DATA, *data. Replies the error and
// returns false if DATA's pairs are incomplete.
bool ParseLinks(ReplyWriter& reply, std::span<const std::string> args,
                std::vector<std::string_view>* urls,
                std::vector<std::string_view>* data);
// One element of MADD's reply: the link's outcome, or its error.
void ReplyAddOutcome(ReplyWriter& reply, const StatusOr<AddOutcome>& one);
// MADD in a cluster (docs/cluster.md): if some of `urls` (with their
// values `data`, unless null) belong to other shards, stores this
// shard's links in the pass, sends the others to their shards (MADDLINKS,
// with the ref's depth) and returns true: the reply comes once every
// shard has answered, in argument order. False, having done nothing, if
// every link is this shard's, or the ref is not a URL (MADD says why).
bool SpreadMadd(CommandContext& ctx, const std::vector<std::string_view>& urls,
                const std::vector<std::string_view>* data);
// MADDLINKS ref depth depth-site url... | ... DATA url value...: internal
// to a cluster (docs/cluster.md).
void MAddLinks(CommandContext& ctx);
void Pop(CommandContext& ctx);
void BPop(CommandContext& ctx);
void Confirm(CommandContext& ctx);
void Fail(CommandContext& ctx);
void Recrawl(CommandContext& ctx);
void Seen(CommandContext& ctx);
void MSeen(CommandContext& ctx);
void UrlInfo(CommandContext& ctx);
void Delay(CommandContext& ctx);
void Stats(CommandContext& ctx);
// robots_commands.cc
void Robots(CommandContext& ctx);
// scope_commands.cc
void Scope(CommandContext& ctx);
// pause_commands.cc
void Pause(CommandContext& ctx);
// url_commands.cc
void Urls(CommandContext& ctx);
void Purge(CommandContext& ctx);

void Site(CommandContext& ctx);
// COUNT n (POP, SITE LIST, URLS): an integer >= 1 into *count; true
// without a value (the caller's default stays). False: the caller replies
// errors::kNotInteger (frontier_commands.cc).
bool ParseCount(std::optional<std::string_view> text, size_t* count);
// DELAY and SITE DELAY: sets `site`'s delay to `secs` seconds (negative:
// back to the default) and replies +OK, or the error.
void SetDelay(CommandContext& ctx, std::string_view site,
              std::string_view secs);

void Extend(CommandContext& ctx);
void Release(CommandContext& ctx);

void Ping(CommandContext& ctx);
void Echo(CommandContext& ctx);
void Quit(CommandContext& ctx);
void Select(CommandContext& ctx);
void DbSize(CommandContext& ctx);
void Time(CommandContext& ctx);
void Shutdown(CommandContext& ctx);
void Backup(CommandContext& ctx);
// import_commands.cc
void Import(CommandContext& ctx);

void Auth(CommandContext& ctx);
void Client(CommandContext& ctx);
void Hello(CommandContext& ctx);
void Reset(CommandContext& ctx);

void Command(CommandContext& ctx);
void Info(CommandContext& ctx);

void ConfigCommand(CommandContext& ctx);
void SlowLogCommand(CommandContext& ctx);

void Subscribe(CommandContext& ctx);
void Unsubscribe(CommandContext& ctx);
void PSubscribe(CommandContext& ctx);
void PUnsubscribe(CommandContext& ctx);
void Publish(CommandContext& ctx);
void PubSubCommand(CommandContext& ctx);

// replication_commands.cc
void RoleCommand(CommandContext& ctx);
void Sentinel(CommandContext& ctx);
void Replication(CommandContext& ctx);
// REPLICATION ANNOUNCE (replication_announce.cc), run by Replication.
void ReplicationAnnounce(CommandContext& ctx);
// failover_commands.cc: FAILOVER, and REPLICATION TAKEOVER (run by
// Replication), which a master in FAILOVER sends its target.
void Failover(CommandContext& ctx);
void ReplicationTakeover(CommandContext& ctx);
void ReadOnly(CommandContext& ctx);
void ReadWrite(CommandContext& ctx);
// Appends INFO's "# Replication" section to `out`.
void ReplicationSection(const CommandContext& ctx, std::string& out);

// cluster_commands.cc
void ClusterCommand(CommandContext& ctx);
void Asking(CommandContext& ctx);
// Appends INFO's "# Cluster" section to `out`.
void ClusterSection(const CommandContext& ctx, std::string& out);

void PartitionCommand(CommandContext& ctx);
// crawl_commands.cc
void Crawl(CommandContext& ctx);
void HintCommand(CommandContext& ctx);
// Appends INFO's "# Partitions" section to `out`.
void PartitionsSection(const CommandContext& ctx, std::string& out);

// STATS's fields in their reply order; INFO's "# Frontier" uses the same.
using StatsFields = std::array<std::pair<std::string_view, uint64_t>, 30>;
StatsFields FrontierStatsFields(const FrontierStats& s);

}  // namespace frontier::commands
