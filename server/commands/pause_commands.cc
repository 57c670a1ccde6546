// PAUSE ON|OFF|STATUS|HELP: the node-wide pause of hand-outs
// (docs/commands.md#pause), URL Frontier's SetActive/GetActive. The
// switch is stored with the data (Frontier::SetPaused), so it outlives
// restarts; ON and OFF are an admin's, STATUS a worker's too.
#include <array>
#include <string_view>

#include "server/args.h"
#include "server/commands/commands.h"
#include "server/reply.h"

namespace frontier::commands {
namespace {

constexpr std::array<std::string_view, 8> kPauseHelp = {
    "ON",
    "    Hands out nothing (POP, BPOP, GetURLs) until PAUSE OFF (admin).",
    "OFF",
    "    Hands out URLs again (admin).",
    "STATUS",
    "    1 while paused, else 0.",
    "HELP",
    "    Prints this help.",
};

void SetPausedCommand(CommandContext& ctx, bool paused) {
  Status s = ctx.frontier.SetPaused(paused);
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  ctx.reply.Ok();
}

}  // namespace

void Pause(CommandContext& ctx) {
  const std::string& sub = ctx.argv[1];
  const std::string name = ToLower(sub);
  if (name != "on" && name != "off" && name != "status" && name != "help") {
    return ReplyUnknownSubcommand(ctx.reply, "pause", sub);
  }
  if (ctx.argv.size() != 2) return ReplyWrongArity(ctx.reply, "pause|" + name);
  if (name == "on" || name == "off") {
    SetPausedCommand(ctx, name == "on");
  } else if (name == "status") {
    ctx.reply.Int(ctx.frontier.Paused() ? 1 : 0);
  } else {
    ctx.reply.Array(kPauseHelp.size());
    for (std::string_view line : kPauseHelp) ctx.reply.Simple(line);
  }
}

}  // namespace frontier::commands
