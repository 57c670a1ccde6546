#include "server/command_table.h"

#include <array>
#include <unordered_map>

#include "server/args.h"
#include "server/auth.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/reply.h"

namespace frontier {
namespace {

namespace c = commands;

constexpr uint32_t kW = kCmdWrite, kR = kCmdReadOnly, kA = kCmdAdmin,
                   kF = kCmdFast, kB = kCmdBlocking;
// Roles: kWk = a worker may run it (else admin only); kNA = runs before
// AUTH; kSub = takes a subcommand. kPS = a Pub/Sub command; kSM = runs in
// subscribed mode.
constexpr uint32_t kWk = kCmdWorker, kNA = kCmdNoAuth, kSub = kCmdContainer,
                   kPS = kCmdPubSub, kSM = kCmdSubscribedOk;
// kCr = works in the client's crawl.
constexpr uint32_t kCr = kCmdInCrawl;

// Keys (KeySpec): one URL or site after the name (ADD url ...), every
// argument (MSEEN url ...), or one after the subcommand (SITE INFO site).
constexpr KeySpec kUrlKey{1, 1, 1}, kUrlKeys{1, -1, 1};
constexpr KeySpec kSiteSubKey{2, 2, 1,
                               "info delay limit crawllimit delete block"};
constexpr KeySpec kRobotsSubKey{2, 2, 1, "get set check"};

// THE command table. Adding a command is one line here plus its handler.
constexpr std::array kCommands = {
    // Frontier verbs.
    CommandSpec{"add", c::Add, -2, kW | kWk | kCr, "frontier",
                "Adds a URL, optionally with its referrer, priority, "
                "recrawl period and value (DATA).",
                "", kUrlKey},
    CommandSpec{"madd", c::MAdd, -3, kW | kWk | kCr, "frontier",
                "Adds the links of one page in one transaction, each "
                "optionally with its value (MADD ref DATA url value ...).",
                "", kUrlKey},
    // A MADD's links sent to their shard (docs/cluster.md): only on
    // another node's link.
    CommandSpec{"maddlinks", c::MAddLinks, -5, kW | kWk | kCr, "frontier",
                "Internal to a cluster: a MADD's links stored on their "
                "shard with the ref's depth (docs/cluster.md)."},
    CommandSpec{"pop", c::Pop, -1, kW | kWk | kCr, "frontier",
                "Leases the next URL(s) from ready sites."},
    CommandSpec{"bpop", c::BPop, -2, kW | kB | kWk | kCr, "frontier",
                "Like POP, but waits up to a timeout for a URL."},
    CommandSpec{"confirm", c::Confirm, -2, kW | kF | kWk | kCr, "frontier",
                "Marks a URL as fetched.", "", kUrlKey},
    CommandSpec{"fail", c::Fail, -2, kW | kF | kWk | kCr, "frontier",
                "Reports a failed fetch of a leased URL.", "", kUrlKey},
    CommandSpec{"recrawl", c::Recrawl, 3, kW | kF | kWk | kCr, "frontier",
                "Sets or clears a URL's recrawl period.", "", kUrlKey},
    CommandSpec{"seen", c::Seen, 2, kR | kF | kWk | kCr, "frontier",
                "Tells whether a URL is known.", "", kUrlKey},
    CommandSpec{"mseen", c::MSeen, -2, kR | kWk | kCr, "frontier",
                "Tells whether each of several URLs is known.", "", kUrlKeys},
    CommandSpec{"urlinfo", c::UrlInfo, 2, kR | kF | kWk | kCr, "frontier",
                "Returns a URL's record.", "", kUrlKey},
    CommandSpec{"delay", c::Delay, 3, kW | kF | kA | kCr, "frontier",
                "Sets a site's politeness delay.", "", kUrlKey},
    CommandSpec{"stats", c::Stats, -1, kR | kF | kWk | kCr, "frontier",
                "Returns the frontier's counters (STATS CLUSTER: summed over "
                "the cluster's shards)."},
    CommandSpec{"extend", c::Extend, 3, kW | kF | kWk | kCr, "frontier",
                "Moves a leased URL's deadline to some seconds from now.", "",
                kUrlKey},
    CommandSpec{"release", c::Release, -2, kW | kF | kWk | kCr, "frontier",
                "Hands a lease back without counting an attempt.", "", kUrlKey},
    // A worker may read sites (INFO, LIST, TOP, HELP); changing one is an
    // admin's (docs/commands.md#site).
    CommandSpec{"site", c::Site, -2, kWk | kSub | kCr, "frontier",
                "SITE INFO|LIST|TOP|DELAY|LIMIT|CRAWLLIMIT|DELETE|BLOCK|HELP: "
                "one site's state, and the operators' controls over it.",
                "delay limit crawllimit delete block", kSiteSubKey},
    CommandSpec{"robots", c::Robots, -2, kW | kWk | kSub | kCr, "frontier",
                "ROBOTS GET|SET|CHECK: an origin's robots.txt rules.", "set",
                kRobotsSubKey},
    // Crawl scope (docs/commands.md#scope): re-checking is an admin's.
    CommandSpec{"scope", c::Scope, -2, kW | kWk | kSub | kCr, "frontier",
                "SCOPE RECHECK|STATUS: re-checks queued URLs against the "
                "crawl scope.",
                "recheck"},
    CommandSpec{"urls", c::Urls, -1, kR | kWk | kCr, "frontier",
                "Pages through the crawl's URLs, SCAN-style (SITE, MATCH, "
                "NOCASE, CURSOR, COUNT)."},
    // Removing URLs is an admin's, as SITE DELETE is.
    CommandSpec{"purge", c::Purge, -3, kW | kCr, "frontier",
                "Removes the crawl's URLs first stored before a date, a "
                "slice a call (BEFORE, SITE, CURSOR, COUNT)."},
    // The node-wide pause of hand-outs (docs/commands.md#pause): ON and
    // OFF are an admin's.
    CommandSpec{"pause", c::Pause, -2, kW | kWk | kSub, "frontier",
                "PAUSE ON|OFF|STATUS|HELP: stops or resumes handing out URLs "
                "(every crawl; kept across restarts).",
                "on off"},
    // Partitions (docs/commands.md#partitions).
    CommandSpec{"partition", c::PartitionCommand, -2, kR | kWk | kSub | kCr,
                "frontier",
                "PARTITION LIST|INFO|HELP: the partitions and their counts."},
    // Crawls (docs/commands.md#crawls).
    CommandSpec{"crawl", c::Crawl, -1, kWk | kSub, "frontier",
                "CRAWL [name] | LIST | INFO name | DELETE name: selects, "
                "lists, describes or deletes crawls.",
                "delete"},
    CommandSpec{"hint", c::HintCommand, -1, kR | kF | kWk | kCr, "frontier",
                "Returns the advice for a partition's workers: hurry-up, "
                "steady or slow-down."},
    // Connection and server housekeeping.
    CommandSpec{"ping", c::Ping, -1, kF | kWk | kNA | kSM, "connection",
                "Pings the server."},
    CommandSpec{"echo", c::Echo, 2, kF | kWk, "connection",
                "Returns the given string."},
    CommandSpec{"quit", c::Quit, -1, kF | kWk | kNA | kSM, "connection",
                "Closes the connection."},
    CommandSpec{"select", c::Select, 2, kF | kWk, "connection",
                "Selects database 0 (the only one)."},
    CommandSpec{"auth", c::Auth, -2, kF | kWk | kNA, "connection",
                "Authenticates the connection as a user."},
    CommandSpec{"client", c::Client, -2, kWk | kSub, "connection",
                "CLIENT ID|SETNAME|GETNAME|SETINFO|INFO|LIST|KILL.",
                "list kill"},
    CommandSpec{"hello", c::Hello, -1, kF | kWk | kNA, "connection",
                "Handshakes with the server (RESP2 only)."},
    CommandSpec{"reset", c::Reset, 1, kF | kWk | kNA | kSM, "connection",
                "Returns the connection to its state at connect: logged "
                "out (if AUTH is required), no name, no subscriptions."},
    // Pub/Sub (docs/commands.md#pubsub). Workers subscribe to the
    // frontier's hints; only an admin publishes.
    CommandSpec{"subscribe", c::Subscribe, -2, kPS | kWk | kSM, "pubsub",
                "Listens for messages published to channels."},
    CommandSpec{"unsubscribe", c::Unsubscribe, -1, kPS | kWk | kSM, "pubsub",
                "Stops listening to channels (all without arguments)."},
    CommandSpec{"psubscribe", c::PSubscribe, -2, kPS | kWk | kSM, "pubsub",
                "Listens for messages to channels matching glob patterns."},
    CommandSpec{"punsubscribe", c::PUnsubscribe, -1, kPS | kWk | kSM, "pubsub",
                "Stops listening to patterns (all without arguments)."},
    CommandSpec{"publish", c::Publish, 3, kPS | kF, "pubsub",
                "Posts a message to a channel; returns its receivers."},
    CommandSpec{"pubsub", c::PubSubCommand, -2, kPS | kWk | kSub, "pubsub",
                "PUBSUB CHANNELS|NUMSUB|NUMPAT|HELP: the state of Pub/Sub."},
    CommandSpec{"role", c::RoleCommand, 1, kF | kWk, "server",
                "This site's replication role, as Redis's ROLE."},
    CommandSpec{"replication", c::Replication, -2, kA, "server",
                "REPLICATION REMOVE host:port: takes a site out of the "
                "replication group (ANNOUNCE, TAKEOVER: internal)."},
    CommandSpec{"failover", c::Failover, -1, kA, "server",
                "FAILOVER [TO host port] [TIMEOUT ms] | ABORT: hands the "
                "master role to a replica without losing a write."},
    CommandSpec{"sentinel", c::Sentinel, -2, kWk, "server",
                "Finds the replication group's master and replicas, as "
                "Redis Sentinel's discovery commands."},
    CommandSpec{"readonly", c::ReadOnly, 1, kF | kWk, "cluster",
                "Lets this connection read from a replica."},
    CommandSpec{"readwrite", c::ReadWrite, 1, kF | kWk, "cluster",
                "Ends READONLY on this connection."},
    CommandSpec{"asking", c::Asking, 1, kF | kWk, "cluster",
                "Accepted for Redis Cluster clients: no slot is ever "
                "migrating (docs/cluster.md)."},
    // CLUSTER RELOAD re-reads the cluster file: an admin's.
    CommandSpec{"cluster", c::ClusterCommand, -2, kWk | kSub, "cluster",
                "CLUSTER INFO|MYID|SLOTS|SHARDS|NODES|KEYSLOT|RELOAD|HELP: "
                "the cluster map as Redis Cluster clients read it.",
                "reload"},
    CommandSpec{"dbsize", c::DbSize, 1, kR | kF | kWk | kCr, "server",
                "Returns the number of known URLs."},
    CommandSpec{"time", c::Time, 1, kF | kWk, "server",
                "Returns the server time."},
    CommandSpec{"info", c::Info, -1, kWk | kCr, "server",
                "Returns information and statistics about the server."},
    CommandSpec{"command", c::Command, -1, kWk | kSub, "server",
                "Returns details about commands."},
    CommandSpec{"shutdown", c::Shutdown, -1, kA, "server",
                "Checkpoints and stops the server."},
    CommandSpec{"import", c::Import, -3, kW | kCr, "server",
                "Loads exported URLs, sites and robots.txt origins "
                "(IMPORT URL|SITE|ROBOTS count field value ...)."},
    CommandSpec{"backup", c::Backup, 2, kA, "server",
                "Copies a consistent snapshot of the data to a directory."},
    CommandSpec{"config", c::ConfigCommand, -2, kA | kSub, "server",
                "CONFIG GET|SET|REWRITE|RESETSTAT: reads or changes the "
                "configuration."},
    CommandSpec{"slowlog", c::SlowLogCommand, -2, kA | kSub, "server",
                "SLOWLOG GET|LEN|RESET: the log of slow commands."},
};

constexpr std::pair<uint32_t, std::string_view> kFlagNames[] = {
    {kCmdWrite, "write"},   {kCmdReadOnly, "readonly"}, {kCmdAdmin, "admin"},
    {kCmdFast, "fast"},     {kCmdBlocking, "blocking"}, {kCmdNoAuth, "no_auth"},
    {kCmdPubSub, "pubsub"},
};

// Whether `word` is one of the space-separated words of `list`.
bool ListHas(std::string_view list, std::string_view word) {
  while (!list.empty()) {
    const size_t space = list.find(' ');
    if (list.substr(0, space) == word) return true;
    list.remove_prefix(space == std::string_view::npos ? list.size()
                                                       : space + 1);
  }
  return false;
}

// Longest command name we look up; longer names are unknown.
constexpr size_t kMaxNameLen = 16;

}  // namespace

std::span<const CommandSpec> Commands() { return kCommands; }

const CommandSpec* FindCommand(std::string_view name) {
  static const std::unordered_map<std::string_view, const CommandSpec*>
      kByName = [] {
        std::unordered_map<std::string_view, const CommandSpec*> map;
        for (const CommandSpec& spec : kCommands) map[spec.name] = &spec;
        return map;
      }();
  if (name.size() > kMaxNameLen) return nullptr;
  // Lower-case into a stack buffer: no allocation per command.
  char lower[kMaxNameLen];
  for (size_t i = 0; i < name.size(); ++i) {
    char ch = name[i];
    lower[i] =
        (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch - 'A' + 'a') : ch;
  }
  auto it = kByName.find(std::string_view(lower, name.size()));
  return it == kByName.end() ? nullptr : it->second;
}

std::vector<size_t> KeyPositions(const CommandSpec& spec,
                                 std::span<const std::string> argv) {
  std::vector<size_t> positions;
  const KeySpec& keys = spec.keys;
  if (keys.first <= 0 || keys.step <= 0) return positions;
  if (!keys.subcommands.empty()) {
    if (argv.size() < 2) return positions;
    if (!ListHas(keys.subcommands, ToLower(argv[1]))) return positions;
  }
  const int64_t argc = static_cast<int64_t>(argv.size());
  const int64_t last = keys.last < 0 ? argc + keys.last : keys.last;
  for (int64_t i = keys.first; i <= last && i < argc; i += keys.step) {
    positions.push_back(static_cast<size_t>(i));
  }
  return positions;
}

bool ArityAccepts(int arity, size_t argc) {
  if (arity >= 0) return argc == static_cast<size_t>(arity);
  return argc >= static_cast<size_t>(-arity);
}

std::vector<std::string_view> CommandFlagNames(uint32_t flags) {
  std::vector<std::string_view> names;
  for (const auto& [bit, name] : kFlagNames) {
    if (flags & bit) names.push_back(name);
  }
  return names;
}

bool RoleMayRun(Role role, const CommandSpec& spec,
                std::span<const std::string> argv) {
  switch (role) {
    case Role::kAdmin:
      return true;
    case Role::kNone:
      return (spec.flags & kCmdNoAuth) != 0;
    case Role::kWorker:
      break;
  }
  if (!(spec.flags & kCmdWorker)) return false;
  if (spec.admin_subcommands.empty() || argv.size() < 2) return true;
  return !ListHas(spec.admin_subcommands, ToLower(argv[1]));
}

const CommandSpec* RunCommand(CommandContext& ctx) {
  const CommandSpec* spec = FindCommand(ctx.argv[0]);
  if (spec == nullptr) {
    ReplyUnknownCommand(ctx.reply, ctx.argv);
    return nullptr;
  }
  // "client|list", as Redis names a subcommand (CLIENT LIST, NOPERM).
  std::string full_name(spec->name);
  if ((spec->flags & kCmdContainer) && ctx.argv.size() > 1 &&
      ctx.argv[1].size() <= kMaxNameLen) {
    full_name += '|';
    full_name += ToLower(ctx.argv[1]);
  }
  ctx.client.last_command = full_name;
  if (!ArityAccepts(spec->arity, ctx.argv.size())) {
    ReplyWrongArity(ctx.reply, spec->name);
    return nullptr;
  }
  if (!ctx.client.authenticated && !AuthRequired(ctx.config)) {
    // CONFIG SET removed the last password: as Redis's password-less
    // default user, a client that never logged in now is `default`.
    ctx.client.authenticated = true;
    ctx.client.user = "default";
    ctx.client.role = Role::kAdmin;
  }
  if (!ctx.client.authenticated && !(spec->flags & kCmdNoAuth)) {
    ctx.reply.Error(errors::kNoAuth);
    return nullptr;
  }
  if (!RoleMayRun(ctx.client.role, *spec, ctx.argv)) {
    std::string text(errors::kNoPermPrefix);
    text += ctx.client.user;
    text += errors::kNoPermMiddle;
    text += full_name;
    text += errors::kNoPermSuffix;
    ctx.reply.Error(text);
    return nullptr;
  }
  // As Redis (RESP2): a subscribed client may only change its
  // subscriptions, PING, QUIT or RESET.
  if (ctx.client.subscribed && !(spec->flags & kCmdSubscribedOk)) {
    std::string text(errors::kSubscribedModePrefix);
    text += full_name;
    text += errors::kSubscribedModeSuffix;
    ctx.reply.Error(text);
    return nullptr;
  }
  // The cluster (docs/cluster.md): a command for another shard is
  // forwarded or redirected there, before the local checks below.
  if (ctx.server.RouteCommand(*spec, ctx)) return spec;
  // A replica (docs/replication.md): a frontier command runs only on a
  // connection that sent READONLY, and a write never stores anything.
  if (spec->group == "frontier" && !ctx.client.reads_replica &&
      ctx.server.replication_role() == ReplicationRole::kReplica) {
    if (spec->flags & kCmdWrite) {
      ctx.reply.Error(errors::kReadOnlyReplica);
    } else {
      std::string master = ctx.frontier.Replication().master;
      if (!master.empty()) master = ctx.server.ClientAddressOf(master);
      ctx.reply.Error(std::string(errors::kReplicaReadPrefix) +
                      (master.empty() ? "an unknown master" : master) +
                      std::string(errors::kReplicaReadSuffix));
    }
    return nullptr;
  }
  // As Redis's MISCONF: while the data directory refuses writes (a full
  // disk), a command that would write is refused before it runs; reads
  // keep answering. The server retries the disk in the background.
  if (spec->flags & kCmdWrite) {
    Status refused = ctx.frontier.WriteStatus();
    if (!refused.ok()) {
      ctx.reply.Error(std::string(errors::kMisconfPrefix) + refused.message());
      return nullptr;
    }
  }
  if (spec->flags & kCmdInCrawl) {
    if (!CrawlAllowed(ctx.client.crawl_patterns, ctx.client.crawl)) {
      ctx.reply.Error(std::string(errors::kNoPermCrawlPrefix) +
                      ctx.client.crawl + "'");
      return nullptr;
    }
    // The first use of a crawl deleted meanwhile starts it anew.
    if (Status used = ctx.frontier.UseCrawl(ctx.client.crawl); !used.ok()) {
      ReplyStatus(ctx.reply, used);
      return nullptr;
    }
  }
  if (spec->flags & kCmdAdmin) ctx.server.CommitPass();
  spec->handler(ctx);
  return spec;
}

}  // namespace frontier
