// SITE: one site, for operators (issue 8 §5). `site` is a host, a domain
// or a URL, mapped through politeness-scope as DELAY does. Each
// subcommand is a function of its own; the command table says which are
// admin-only.
#include <string_view>

#include "server/args.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/reply.h"

namespace frontier::commands {
namespace {

constexpr std::string_view kSiteHelp[] = {
    "SITE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "BLOCK <site> <seconds>",
    "    Hand out nothing of <site> for <seconds> (0 unblocks). Admin only.",
    "HELP",
    "    Print this help.",
};

// SITE BLOCK site secs
void SiteBlock(CommandContext& ctx) {
  if (ctx.argv.size() != 4) return ReplyWrongArity(ctx.reply, "site|block");
  std::optional<int64_t> block_ms = ParseDurationMs(ctx.argv[3]);
  if (!block_ms || *block_ms < 0) {
    ctx.reply.Error(errors::kBlockSeconds);
    return;
  }
  Status s = ctx.frontier.BlockSite(ctx.argv[2], *block_ms, ctx.now_ms);
  if (!s.ok()) {
    ReplyStatus(ctx.reply, s);
    return;
  }
  ctx.reply.Ok();
}

}  // namespace

void SiteCommand(CommandContext& ctx) {
  const std::string& sub = ctx.argv[1];
  if (EqualsIgnoreCase(sub, "block")) {
    SiteBlock(ctx);
  } else if (EqualsIgnoreCase(sub, "help")) {
    if (ctx.argv.size() != 2) return ReplyWrongArity(ctx.reply, "site|help");
    ctx.reply.Array(std::size(kSiteHelp));
    for (std::string_view line : kSiteHelp) ctx.reply.Simple(line);
  } else {
    ReplyUnknownSubcommand(ctx.reply, "site", sub);
  }
}

}  // namespace frontier::commands
