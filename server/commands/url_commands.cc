// URLS: the current crawl's URLs, paged like SCAN (docs/commands.md#urls);
// URL Frontier's ListURLs and CountURLs with a filter page through it.
// PURGE: their removal by creation date, a slice a call
// (docs/commands.md#purge); URL Frontier's PurgeURLs runs it.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "server/args.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/reply.h"

namespace frontier::commands {

// URLS [SITE site] [MATCH text] [NOCASE] [CURSOR cursor] [COUNT count]
void Urls(CommandContext& ctx) {
  static constexpr std::array<std::string_view, 4> kNames = {
      "SITE", "MATCH", "CURSOR", "COUNT"};
  static constexpr std::array<std::string_view, 1> kFlags = {"NOCASE"};
  std::array<std::optional<std::string_view>, 4> values;
  std::array<bool, 1> flags{};
  if (ParseOptions(ctx.argv.subspan(1), kNames, values, kFlags, flags)) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  UrlFilter filter;
  filter.site = values[0].value_or("");
  filter.match = values[1].value_or("");
  filter.ignore_case = flags[0];
  size_t count = 10;
  if (!ParseCount(values[3], &count)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  auto page = ctx.frontier.ListUrls(filter, values[2].value_or("0"), count);
  if (!page.ok()) {
    ReplyStatus(ctx.reply, page.status());
    return;
  }
  ctx.reply.Array(2);
  ctx.reply.Bulk(page->next_cursor);
  ctx.reply.Array(page->urls.size());
  for (const std::string& url : page->urls) ctx.reply.Bulk(url);
}

// PURGE BEFORE unix-seconds [SITE site] [CURSOR cursor] [COUNT count]
void Purge(CommandContext& ctx) {
  // Records one call reads at most: one short transaction.
  static constexpr size_t kMaxPurgeCount = 1000;
  static constexpr std::array<std::string_view, 4> kNames = {
      "BEFORE", "SITE", "CURSOR", "COUNT"};
  std::array<std::optional<std::string_view>, 4> values;
  if (!ParseNamedOptions(ctx.argv.subspan(1), kNames, values) || !values[0]) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  const std::optional<int64_t> before = ParseInt64(*values[0]);
  size_t count = 250;
  if (!before || *before < 0 || *before > (INT64_MAX / 1000) ||
      !ParseCount(values[3], &count)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  auto page = ctx.frontier.PurgeUrls(
      values[1].value_or(""), *before * 1000, values[2].value_or("0"),
      std::min(count, kMaxPurgeCount), ctx.now_ms);
  if (!page.ok()) {
    ReplyStatus(ctx.reply, page.status());
    return;
  }
  ctx.reply.Array(2);
  ctx.reply.Bulk(page->next_cursor);
  ctx.reply.Int(static_cast<int64_t>(page->removed));
}

}  // namespace frontier::commands
