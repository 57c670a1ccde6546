// SCOPE RECHECK|STATUS|HELP: the crawl scope's re-check of queued URLs
// (docs/commands.md#scope). The scope itself is configuration (the scope-*
// directives, CONFIG SET); ADD and MADD apply it.
#include <array>
#include <string>
#include <string_view>

#include "server/args.h"
#include "server/commands/commands.h"
#include "server/reply.h"

namespace frontier::commands {
namespace {

constexpr std::array<std::string_view, 6> kScopeHelp = {
    "RECHECK",
    "    Removes the queued URLs out of the scope in force, in slices (admin).",
    "STATUS",
    "    The re-check's progress: running, examined, removed.",
    "HELP",
    "    Prints this help.",
};

// SCOPE RECHECK: starts (or starts over) the re-check; Tick runs it.
void ScopeRecheckCommand(CommandContext& ctx) {
  Status s = ctx.frontier.StartScopeRecheck(ctx.now_ms);
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  ctx.reply.Ok();
}

// SCOPE STATUS
void ScopeStatus(CommandContext& ctx) {
  const ScopeRecheck r = ctx.frontier.ScopeRecheckProgress();
  const std::pair<std::string_view, std::string> fields[] = {
      {"running", r.running ? "1" : "0"},
      {"examined", std::to_string(r.examined)},
      {"removed", std::to_string(r.removed)},
  };
  ReplyFields(ctx.reply, fields);
}

}  // namespace

void Scope(CommandContext& ctx) {
  const std::string& sub = ctx.argv[1];
  const size_t argc = ctx.argv.size();
  if (EqualsIgnoreCase(sub, "recheck")) {
    if (argc != 2) return ReplyWrongArity(ctx.reply, "scope|recheck");
    ScopeRecheckCommand(ctx);
  } else if (EqualsIgnoreCase(sub, "status")) {
    if (argc != 2) return ReplyWrongArity(ctx.reply, "scope|status");
    ScopeStatus(ctx);
  } else if (EqualsIgnoreCase(sub, "help")) {
    if (argc != 2) return ReplyWrongArity(ctx.reply, "scope|help");
    ctx.reply.Array(kScopeHelp.size());
    for (std::string_view line : kScopeHelp) ctx.reply.Simple(line);
  } else {
    ReplyUnknownSubcommand(ctx.reply, "scope", sub);
  }
}

}  // namespace frontier::commands
