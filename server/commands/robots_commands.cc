// ROBOTS GET|SET|CHECK|HELP: an origin's robots.txt state, as the frontier
// applies it (docs/robots.md, docs/commands.md).
#include <array>
#include <string>
#include <string_view>

#include "server/args.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/reply.h"

namespace frontier::commands {
namespace {

constexpr std::array<std::string_view, 8> kRobotsHelp = {
    "GET <origin|url>",
    "    The robots.txt state of the URL's origin, nil if never met.",
    "SET <origin> <status> [<body>]",
    "    Stores a robots.txt as if fetched with that HTTP status (admin).",
    "CHECK <url>",
    "    1 if the origin's rules allow the URL, 0 if not, nil if unknown.",
    "HELP",
    "    Prints this help.",
};

// Whole Unix seconds, "0" for none.
std::string UnixSeconds(int64_t ms) { return std::to_string(ms / 1000); }

// ROBOTS GET origin|url
void RobotsGet(CommandContext& ctx) {
  auto info = ctx.frontier.RobotsGet(ctx.argv[2]);
  if (!info.ok()) return ReplyStatus(ctx.reply, info.status());
  if (!info->has_value()) return ctx.reply.Null();
  const RobotsInfo& r = **info;
  const std::pair<std::string_view, std::string> fields[] = {
      {"origin", r.origin},
      {"state", r.state},
      {"status", std::to_string(r.status)},
      {"fetched", UnixSeconds(r.fetched_ms)},
      {"expires", UnixSeconds(r.expires_ms)},
      {"crawl-delay", r.crawl_delay_ms ? FormatSeconds(*r.crawl_delay_ms) : ""},
      {"groups", std::to_string(r.groups)},
  };
  ctx.reply.Array(2 * std::size(fields) + 4);
  for (const auto& [name, value] : fields) {
    ctx.reply.Bulk(name);
    ctx.reply.Bulk(value);
  }
  for (const auto& [name, values] :
       {std::pair{"rules", &r.rules}, std::pair{"sitemaps", &r.sitemaps}}) {
    ctx.reply.Bulk(name);
    ctx.reply.Array(values->size());
    for (const std::string& v : *values) ctx.reply.Bulk(v);
  }
}

// ROBOTS SET origin status [body]
void RobotsSet(CommandContext& ctx) {
  std::optional<int64_t> status = ParseInt64(ctx.argv[3]);
  if (!status || *status < 100 || *status > 599) {
    ctx.reply.Error(errors::kStatusRange);
    return;
  }
  std::string_view body;
  if (ctx.argv.size() == 5) body = ctx.argv[4];
  Status s = ctx.frontier.RobotsSet(ctx.argv[2], static_cast<int>(*status),
                                    body, ctx.now_ms);
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  ctx.reply.Ok();
}

// ROBOTS CHECK url
void RobotsCheck(CommandContext& ctx) {
  auto allowed = ctx.frontier.RobotsCheck(ctx.argv[2]);
  if (!allowed.ok()) return ReplyStatus(ctx.reply, allowed.status());
  if (!allowed->has_value()) return ctx.reply.Null();
  ctx.reply.Int(**allowed ? 1 : 0);
}

}  // namespace

void Robots(CommandContext& ctx) {
  const std::string& sub = ctx.argv[1];
  const size_t argc = ctx.argv.size();
  if (EqualsIgnoreCase(sub, "get")) {
    if (argc != 3) return ReplyWrongArity(ctx.reply, "robots|get");
    RobotsGet(ctx);
  } else if (EqualsIgnoreCase(sub, "set")) {
    if (argc != 4 && argc != 5) return ReplyWrongArity(ctx.reply, "robots|set");
    RobotsSet(ctx);
  } else if (EqualsIgnoreCase(sub, "check")) {
    if (argc != 3) return ReplyWrongArity(ctx.reply, "robots|check");
    RobotsCheck(ctx);
  } else if (EqualsIgnoreCase(sub, "help")) {
    if (argc != 2) return ReplyWrongArity(ctx.reply, "robots|help");
    ctx.reply.Array(kRobotsHelp.size());
    for (std::string_view line : kRobotsHelp) ctx.reply.Simple(line);
  } else {
    ReplyUnknownSubcommand(ctx.reply, "robots", sub);
  }
}

}  // namespace frontier::commands
