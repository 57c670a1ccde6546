// The command table: every command's name, handler, arity and flags, in one
// place, and the checks that run once before any handler (known command,
// arity), as Redis's command table and commandCheckArity do.
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
  kCmdAdmin = 1u << 2,     // server administration (SHUTDOWN)
  kCmdFast = 1u << 3,      // O(1) or O(log n)
  kCmdBlocking = 1u << 4,  // may block the client (BPOP)
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
};

// The whole table, in documentation order.
std::span<const CommandSpec> Commands();

// Case-insensitive lookup; nullptr if unknown.
const CommandSpec* FindCommand(std::string_view name);

// Whether `argc` (including the name) satisfies `arity`.
bool ArityAccepts(int arity, size_t argc);

// Redis's flag words for COMMAND ("write", "readonly", "fast", ...).
std::vector<std::string_view> CommandFlagNames(uint32_t flags);

// Looks up ctx.argv[0], checks arity and runs the handler. On an unknown
// command or a wrong argument count it replies the Redis error itself and
// returns nullptr; otherwise it returns the spec of the command that ran.
// Precondition: !ctx.argv.empty().
const CommandSpec* RunCommand(CommandContext& ctx);

}  // namespace frontier
