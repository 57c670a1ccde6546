// Crawls (docs/commands.md#crawls): CRAWL [name] | LIST | INFO name |
// DELETE name. The connection's crawl is ClientInfo::crawl; RunCommand
// makes it the frontier's current crawl before each command that works in
// it (kCmdInCrawl), after checking the user's ~patterns.
#include <string>

#include "server/args.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/reply.h"

namespace frontier::commands {

namespace {

bool MayUse(CommandContext& ctx, std::string_view name) {
  if (CrawlAllowed(ctx.client.crawl_patterns, name)) return true;
  ctx.reply.Error(std::string(errors::kNoPermCrawlPrefix) + std::string(name) +
                  "'");
  return false;
}

void ReplyBadName(CommandContext& ctx) {
  ctx.reply.Error(
      "ERR invalid crawl name: 1 to 255 bytes, no spaces or control "
      "characters, and not LIST, INFO or DELETE");
}

// CRAWL INFO name: name, then STATS's fields and values.
void CrawlInfo(CommandContext& ctx, std::string_view name) {
  if (!MayUse(ctx, name)) return;
  std::optional<FrontierStats> stats = ctx.frontier.CrawlStats(name);
  if (!stats) {
    ctx.reply.Error(std::string(errors::kNoSuchCrawl) + " '" +
                    std::string(name) + "'");
    return;
  }
  StatsFields fields = FrontierStatsFields(*stats);
  ctx.reply.Array(2 + 2 * fields.size());
  ctx.reply.Bulk("name");
  ctx.reply.Bulk(name);
  for (const auto& [field, value] : fields) {
    ctx.reply.Bulk(field);
    ctx.reply.Int(static_cast<int64_t>(value));
  }
}

}  // namespace

void Crawl(CommandContext& ctx) {
  const size_t argc = ctx.argv.size();
  if (argc == 1) {  // CRAWL: the connection's crawl
    ctx.reply.Bulk(ctx.client.crawl);
    return;
  }
  const std::string& sub = ctx.argv[1];
  if (EqualsIgnoreCase(sub, "list")) {
    if (argc != 2) return ReplyWrongArity(ctx.reply, "crawl|list");
    std::vector<std::string> names = ctx.frontier.ListCrawls();
    std::erase_if(names, [&ctx](const std::string& n) {
      return !CrawlAllowed(ctx.client.crawl_patterns, n);
    });
    ctx.reply.Array(names.size());
    for (const std::string& n : names) ctx.reply.Bulk(n);
  } else if (EqualsIgnoreCase(sub, "info")) {
    if (argc != 3) return ReplyWrongArity(ctx.reply, "crawl|info");
    CrawlInfo(ctx, ctx.argv[2]);
  } else if (EqualsIgnoreCase(sub, "delete")) {
    if (argc != 3) return ReplyWrongArity(ctx.reply, "crawl|delete");
    if (!MayUse(ctx, ctx.argv[2])) return;
    StatusOr<bool> deleted = ctx.frontier.DeleteCrawl(ctx.argv[2]);
    if (!deleted.ok()) return ReplyStatus(ctx.reply, deleted.status());
    ctx.reply.Int(*deleted ? 1 : 0);
  } else {
    if (argc != 2) return ReplyWrongArity(ctx.reply, "crawl");
    if (!Frontier::ValidCrawlName(sub)) return ReplyBadName(ctx);
    if (!MayUse(ctx, sub)) return;
    Status used = ctx.frontier.UseCrawl(sub);
    if (!used.ok()) return ReplyStatus(ctx.reply, used);
    ctx.client.crawl = sub;
    ctx.reply.Ok();
  }
}

}  // namespace frontier::commands
