// SITE INFO|LIST|TOP|DELAY|LIMIT|DELETE|BLOCK|HELP: one site's state and the
// operators' controls over it (docs/commands.md#site), and DELAY, which is
// SITE DELAY's older name. Each subcommand is a function of its own; the
// command table gives the admin role to the subcommands that change a
// site (DELAY, LIMIT, DELETE, BLOCK).
#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "server/args.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/reply.h"

namespace frontier::commands {
namespace {

constexpr std::string_view kSiteHelp[] = {
    "SITE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "INFO <site>",
    "    Return the site's state as field/value pairs (nil if unknown).",
    "LIST [READY|WAITING|BLOCKED|ALL] [CURSOR <cursor>] [COUNT <count>]",
    "    Page through the sites, SCAN-style: [next-cursor, [site ...]].",
    "TOP [<n>] [CLUSTER]",
    "    Return the <n> (default 10) sites with the most queued URLs (of",
    "    every shard with CLUSTER, on a node of a cluster).",
    "DELAY <site> <seconds>",
    "    Set the site's politeness delay (negative: the default).",
    "LIMIT <site> <n>",
    "    Cap the site's URLs at <n> (0: site-max-urls).",
    "DELETE <site>",
    "    Remove the site and all its URLs; return how many were removed.",
    "BLOCK <site> <seconds>",
    "    Hand out nothing of <site> for <seconds> (0 unblocks).",
    "HELP",
    "    Print this help.",
};

// +OK, or the error of `s`.
void ReplyOkOr(ReplyWriter& reply, const Status& s) {
  if (s.ok()) {
    reply.Ok();
  } else {
    ReplyStatus(reply, s);
  }
}

// SITE INFO site
void SiteInfoCommand(CommandContext& ctx) {
  auto info = ctx.frontier.GetSiteInfo(ctx.argv[2], ctx.now_ms);
  const SiteInfo* found = RecordOrReply(ctx.reply, info);
  if (found == nullptr) return;
  const SiteInfo& s = *found;
  const std::pair<std::string_view, std::string> fields[] = {
      {"site", s.name},
      {"queued", std::to_string(s.queued)},
      {"leased", std::to_string(s.leased)},
      {"done", std::to_string(s.done)},
      {"scheduled", std::to_string(s.scheduled)},
      {"dead", std::to_string(s.dead)},
      {"excluded", std::to_string(s.excluded)},
      {"delay", FormatSeconds(s.delay_ms)},
      {"delay-source", std::string(policy::DelaySourceName(s.delay_source))},
      {"next", FormatUnixTime(s.next_allowed_ms)},
      {"blocked-until", FormatUnixTime(s.block_until_ms)},
      {"backoffs", std::to_string(s.backoffs)},
      {"max-urls", std::to_string(s.max_urls)},
      {"partition", s.partition},
  };
  // `partition` only where partitions are configured (issue 9).
  ReplyFields(ctx.reply, std::span(fields).first(
                             std::size(fields) - (s.partition.empty() ? 1 : 0)));
}

// A site cursor: "0" or a decimal fingerprint, as SITE LIST returned it.
std::optional<uint64_t> ParseCursor(std::string_view text) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  uint64_t value = 0;
  for (char ch : text) {
    if (ch < '0' || ch > '9') return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(ch - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

// SITE LIST [READY|WAITING|BLOCKED|ALL] [CURSOR c] [COUNT n]
void SiteListCommand(CommandContext& ctx) {
  std::span<const std::string> rest = ctx.argv.subspan(2);
  SiteFilter filter = SiteFilter::kAll;
  static constexpr std::pair<std::string_view, SiteFilter> kFilters[] = {
      {"ALL", SiteFilter::kAll},
      {"READY", SiteFilter::kReady},
      {"WAITING", SiteFilter::kWaiting},
      {"BLOCKED", SiteFilter::kBlocked}};
  if (!rest.empty()) {
    for (const auto& [word, value] : kFilters) {
      if (EqualsIgnoreCase(rest[0], word)) {
        filter = value;
        rest = rest.subspan(1);
        break;
      }
    }
  }
  static constexpr std::array<std::string_view, 2> kNames = {"CURSOR", "COUNT"};
  std::array<std::optional<std::string_view>, 2> values;
  if (!ParseNamedOptions(rest, kNames, values)) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  std::optional<uint64_t> cursor = ParseCursor(values[0].value_or("0"));
  if (!cursor) {
    ctx.reply.Error(errors::kInvalidCursor);
    return;
  }
  int64_t count = 10;
  if (values[1]) {
    std::optional<int64_t> n = ParseInt64(*values[1]);
    if (!n || *n < 1) {
      ctx.reply.Error(errors::kNotInteger);
      return;
    }
    count = *n;
  }
  auto page = ctx.frontier.ListSites(filter, *cursor,
                                     static_cast<size_t>(count), ctx.now_ms);
  if (!page.ok()) {
    ReplyStatus(ctx.reply, page.status());
    return;
  }
  ctx.reply.Array(2);
  ctx.reply.Bulk(std::to_string(page->next_cursor));
  ctx.reply.Array(page->sites.size());
  for (const std::string& site : page->sites) ctx.reply.Bulk(site);
}

// SITE TOP [n] -> [site, queued, site, queued, ...], most queued first.
void SiteTopCommand(CommandContext& ctx) {
  int64_t n = 10;
  if (ctx.argv.size() == 3) {
    std::optional<int64_t> parsed = ParseInt64(ctx.argv[2]);
    if (!parsed || *parsed < 1) {
      ctx.reply.Error(errors::kNotInteger);
      return;
    }
    n = *parsed;
  }
  auto top = ctx.frontier.TopSites(static_cast<size_t>(n));
  if (!top.ok()) {
    ReplyStatus(ctx.reply, top.status());
    return;
  }
  ctx.reply.Array(2 * top->size());
  for (const SiteSize& site : *top) {
    ctx.reply.Bulk(site.name);
    ctx.reply.Int(static_cast<int64_t>(site.queued));
  }
}

// SITE DELAY site secs
void SiteDelayCommand(CommandContext& ctx) {
  SetDelay(ctx, ctx.argv[2], ctx.argv[3]);
}

// SITE LIMIT site n
void SiteLimitCommand(CommandContext& ctx) {
  std::optional<int64_t> n = ParseInt64(ctx.argv[3]);
  if (!n || *n < 0) {
    ctx.reply.Error(errors::kSiteLimit);
    return;
  }
  ReplyOkOr(ctx.reply, ctx.frontier.SetSiteLimit(
                           ctx.argv[2], static_cast<uint64_t>(*n), ctx.now_ms));
}

// SITE DELETE site
void SiteDeleteCommand(CommandContext& ctx) {
  StatusOr<uint64_t> removed = ctx.frontier.DeleteSite(ctx.argv[2], ctx.now_ms);
  if (!removed.ok()) {
    ReplyStatus(ctx.reply, removed.status());
    return;
  }
  ctx.reply.Int(static_cast<int64_t>(*removed));
}

// SITE BLOCK site secs
void SiteBlockCommand(CommandContext& ctx) {
  std::optional<int64_t> block_ms = ParseDurationMs(ctx.argv[3]);
  if (!block_ms || *block_ms < 0) {
    ctx.reply.Error(errors::kBlockSeconds);
    return;
  }
  ReplyOkOr(ctx.reply,
            ctx.frontier.BlockSite(ctx.argv[2], *block_ms, ctx.now_ms));
}

// SITE HELP
void SiteHelpCommand(CommandContext& ctx) {
  ctx.reply.Array(std::size(kSiteHelp));
  for (std::string_view line : kSiteHelp) ctx.reply.Simple(line);
}

struct SiteSubcommand {
  std::string_view name;      // lower-case, as in "site|info"
  std::string_view full;      // for arity errors
  size_t min_args, max_args;  // argv size, "SITE" and the name included
  void (*run)(CommandContext&);
};

constexpr SiteSubcommand kSubcommands[] = {
    {"info", "site|info", 3, 3, SiteInfoCommand},
    {"list", "site|list", 2, 7, SiteListCommand},
    {"top", "site|top", 2, 3, SiteTopCommand},
    {"delay", "site|delay", 4, 4, SiteDelayCommand},
    {"limit", "site|limit", 4, 4, SiteLimitCommand},
    {"delete", "site|delete", 3, 3, SiteDeleteCommand},
    {"block", "site|block", 4, 4, SiteBlockCommand},
    {"help", "site|help", 2, 2, SiteHelpCommand},
};

}  // namespace

// DELAY site secs and SITE DELAY site secs
void SetDelay(CommandContext& ctx, std::string_view site,
              std::string_view secs) {
  std::optional<int64_t> delay_ms = ParseDurationMs(secs);
  if (!delay_ms) {
    ctx.reply.Error(errors::kNotFloat);
    return;
  }
  ReplyOkOr(ctx.reply, ctx.frontier.SetSiteDelay(
                           site, *delay_ms < 0 ? -1 : *delay_ms, ctx.now_ms));
}

// SITE subcommand [args]
void Site(CommandContext& ctx) {
  for (const SiteSubcommand& sub : kSubcommands) {
    if (!EqualsIgnoreCase(ctx.argv[1], sub.name)) continue;
    if (ctx.argv.size() < sub.min_args || ctx.argv.size() > sub.max_args) {
      ReplyWrongArity(ctx.reply, sub.full);
      return;
    }
    sub.run(ctx);
    return;
  }
  ReplyUnknownSubcommand(ctx.reply, "SITE", ctx.argv[1]);
}

}  // namespace frontier::commands
