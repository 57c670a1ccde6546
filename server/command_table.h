// The command table: every command's name, handler, arity and flags, in one
// place, and the checks that run once before any handler (known command,
// arity, authentication, role), as Redis's command table,
// commandCheckArity and ACL checks do.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/command_context.h"

namespace frontier {

enum CommandFlag : uint32_t {
  kCmdWrite = 1u << 0,     // may change the frontier: counts for group commit
  kCmdReadOnly = 1u << 1,  // reads the frontier only
  kCmdAdmin = 1u << 2,     // server administration (SHUTDOWN, CONFIG)
  kCmdFast = 1u << 3,      // O(1) or O(log n)
  kCmdBlocking = 1u << 4,  // may block the client (BPOP)
  // Roles (docs/security.md). An admin may run every command; a worker
  // only those with kCmdWorker (minus CommandSpec::admin_subcommands), so a
  // new command is admin-only unless it says otherwise. Before AUTH, when
  // the server requires it, only kCmdNoAuth commands run.
  kCmdWorker = 1u << 5,
  kCmdNoAuth = 1u << 6,
  // Takes a subcommand (CLIENT LIST): named "client|list" in CLIENT LIST's
  // cmd= and in NOPERM errors.
  kCmdContainer = 1u << 7,
  // Pub/Sub commands (COMMAND's "pubsub" flag).
  kCmdPubSub = 1u << 8,
  // May run in subscribed mode (ClientInfo::subscribed): (P)(UN)SUBSCRIBE,
  // PING, QUIT, RESET, as in Redis; anything else is refused there.
  kCmdSubscribedOk = 1u << 9,
  // Works in the client's crawl (CRAWL name): RunCommand checks that the
  // user may use it and makes it the frontier's current crawl first.
  kCmdInCrawl = 1u << 10,
};

// Where a command's keys are: Redis's first key, last key and step, which
// COMMAND reports so that Redis Cluster clients route by them, and by which
// a cluster node routes (docs/cluster.md). A key is a URL or a site (a
// host, a domain or an origin). first == 0: no key; last < 0 counts from
// the end (-1 = the last argument). With `subcommands` (lower-case,
// space-separated), only those subcommands have the key (SITE INFO site).
struct KeySpec {
  int first = 0;
  int last = 0;
  int step = 0;
  std::string_view subcommands = {};
};

struct CommandSpec {
  std::string_view name;  // lower-case
  CommandHandler handler;
  // Redis convention, counting the name: n > 0 exactly n arguments,
  // n < 0 at least -n.
  int arity;
  uint32_t flags;
  std::string_view group;    // for COMMAND DOCS: "frontier", "server", ...
  std::string_view summary;  // one line, for COMMAND DOCS
  // Lower-case subcommands, separated by spaces, that only an admin may
  // run although the command has kCmdWorker ("list kill" for CLIENT).
  std::string_view admin_subcommands = {};
  KeySpec keys = {};
};

// The whole table, in documentation order.
std::span<const CommandSpec> Commands();

// Case-insensitive lookup; nullptr if unknown.
const CommandSpec* FindCommand(std::string_view name);

// The indexes in `argv` (a command of `spec`) of its keys, by spec.keys;
// none past the end of argv.
std::vector<size_t> KeyPositions(const CommandSpec& spec,
                                 std::span<const std::string> argv);

// Whether `argc` (including the name) satisfies `arity`.
bool ArityAccepts(int arity, size_t argc);

// Redis's flag words for COMMAND ("write", "readonly", "fast", ...).
std::vector<std::string_view> CommandFlagNames(uint32_t flags);

// Whether a client with `role` may run `argv` (a command of `spec`).
// Role::kNone may run only kCmdNoAuth commands.
bool RoleMayRun(Role role, const CommandSpec& spec,
                std::span<const std::string> argv);

// Looks up ctx.argv[0], records it as the client's last command, checks
// arity, authentication (-NOAUTH), the client's role (-NOPERM), subscribed
// mode (-ERR Can't execute ...) and, for a write command, that the data
// directory takes writes (-MISCONF, see Frontier::WriteStatus), and runs the
// handler. When a check fails it replies the Redis error itself and returns
// nullptr; otherwise it returns the spec of the command that ran.
// Precondition: !ctx.argv.empty().
const CommandSpec* RunCommand(CommandContext& ctx);

}  // namespace frontier
