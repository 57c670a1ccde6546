// The frontier's verbs: parse options, call the Frontier, reply.
#include <array>
#include <cinttypes>
#include <cstdio>
#include <optional>
#include <string_view>

#include "server/args.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/partitions.h"
#include "server/reply.h"

namespace frontier::commands {
namespace {

// Replies :1 / :0 from a StatusOr<bool>, or the status' error.
void ReplyBool(ReplyWriter& reply, const StatusOr<bool>& result) {
  if (!result.ok()) {
    ReplyStatus(reply, result.status());
  } else {
    reply.Int(*result ? 1 : 0);
  }
}

// COUNT n: an integer >= 1.
bool ParseCount(std::optional<std::string_view> text, size_t* count) {
  if (!text) return true;
  std::optional<int64_t> n = ParseInt64(*text);
  if (!n || *n < 1) return false;
  *count = static_cast<size_t>(*n);
  return true;
}

// LEASE secs: a positive number of seconds.
bool ParseLease(std::optional<std::string_view> text, int64_t* lease_ms) {
  if (!text) return true;
  std::optional<int64_t> ms = ParseDurationMs(*text);
  if (!ms || *ms <= 0) return false;
  *lease_ms = *ms;
  return true;
}

// PARTITION name: a partition of the map. Replies the error and returns
// false if there is no such partition.
bool CheckPartition(CommandContext& ctx, std::optional<std::string_view> name) {
  if (!name) return true;
  StatusOr<size_t> index = ResolvePartition(ctx.frontier, *name);
  if (!index.ok()) ReplyStatus(ctx.reply, index.status());
  return index.ok();
}

// "1700000000.123": Unix seconds with milliseconds, or "0" for none.
std::string FormatUnixTime(int64_t ms) {
  if (ms == 0) return "0";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%" PRId64 ".%03" PRId64, ms / 1000,
                ms % 1000);
  return buf;
}

}  // namespace

// ADD url [ref] [PRIORITY p] [RECRAWL secs]
void Add(CommandContext& ctx) {
  std::span<const std::string> rest = ctx.argv.subspan(2);
  std::string_view ref;
  if (!rest.empty() && !EqualsIgnoreCase(rest[0], "PRIORITY") &&
      !EqualsIgnoreCase(rest[0], "RECRAWL")) {
    ref = rest[0];
    rest = rest.subspan(1);
  }
  static constexpr std::array<std::string_view, 2> kNames = {"PRIORITY",
                                                             "RECRAWL"};
  std::array<std::optional<std::string_view>, 2> values;
  if (!ParseNamedOptions(rest, kNames, values)) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  AddOptions options;
  if (values[0]) {
    std::optional<int64_t> p = ParseInt64(*values[0]);
    if (!p || *p < 0 || *p > 9999) {
      ctx.reply.Error(errors::kPriorityRange);
      return;
    }
    options.priority = static_cast<int>(*p);
  }
  if (values[1]) {
    std::optional<int64_t> ms = ParseDurationMs(*values[1]);
    if (!ms || *ms < 0) {
      ctx.reply.Error(errors::kRecrawlSeconds);
      return;
    }
    options.recrawl_ms = *ms;
  }
  StatusOr<AddOutcome> outcome =
      ctx.frontier.Add(ctx.argv[1], ref, options, ctx.now_ms);
  if (!outcome.ok()) {
    ReplyStatus(ctx.reply, outcome.status());
    return;
  }
  ctx.reply.Int(static_cast<int64_t>(*outcome));
}

// MADD ref url [url ...]
void MAdd(CommandContext& ctx) {
  std::vector<std::string_view> urls(ctx.argv.begin() + 2, ctx.argv.end());
  auto outcomes = ctx.frontier.AddMany(ctx.argv[1], urls, ctx.now_ms);
  if (!outcomes.ok()) {
    ReplyStatus(ctx.reply, outcomes.status());
    return;
  }
  ctx.reply.Array(outcomes->size());
  for (const StatusOr<AddOutcome>& one : *outcomes) {
    if (one.ok()) {
      ctx.reply.Int(static_cast<int64_t>(*one));
    } else {
      ReplyStatus(ctx.reply, one.status());
    }
  }
}

// POP [COUNT n] [LEASE secs] [PARTITION name]
void Pop(CommandContext& ctx) {
  static constexpr std::array<std::string_view, 3> kNames = {"COUNT", "LEASE",
                                                             "PARTITION"};
  std::array<std::optional<std::string_view>, 3> values;
  if (!ParseNamedOptions(ctx.argv.subspan(1), kNames, values)) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  size_t count = 1;
  int64_t lease_ms = 0;
  if (!ParseCount(values[0], &count)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (!ParseLease(values[1], &lease_ms)) {
    ctx.reply.Error(errors::kLeaseSeconds);
    return;
  }
  if (!CheckPartition(ctx, values[2])) return;
  auto urls = PopFromPartition(ctx.frontier, values[2].value_or(""), count,
                               lease_ms, ctx.now_ms);
  if (!urls.ok()) {
    ReplyStatus(ctx.reply, urls.status());
    return;
  }
  ReplyPopped(ctx.reply, *urls, values[0].has_value());
}

// BPOP timeout [COUNT n] [LEASE secs] [PARTITION name]
void BPop(CommandContext& ctx) {
  std::optional<int64_t> timeout_ms = ParseDurationMs(ctx.argv[1]);
  if (!timeout_ms) {
    ctx.reply.Error(errors::kTimeoutNotFloat);
    return;
  }
  if (*timeout_ms < 0) {
    ctx.reply.Error(errors::kTimeoutNegative);
    return;
  }
  static constexpr std::array<std::string_view, 3> kNames = {"COUNT", "LEASE",
                                                             "PARTITION"};
  std::array<std::optional<std::string_view>, 3> values;
  if (!ParseNamedOptions(ctx.argv.subspan(2), kNames, values)) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  BlockRequest request;
  request.with_count = values[0].has_value();
  if (!ParseCount(values[0], &request.count)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (!ParseLease(values[1], &request.lease_ms)) {
    ctx.reply.Error(errors::kLeaseSeconds);
    return;
  }
  if (!CheckPartition(ctx, values[2])) return;
  request.partition = values[2].value_or("");
  // First come, first served: while others wait, a newcomer queues behind
  // them even if URLs are ready now; the loop serves the queues in order
  // (Server::ServeBlocked), each partition's and the any-partition one.
  if (ctx.stats.blocked_clients == 0) {
    auto urls = PopFromPartition(ctx.frontier, request.partition, request.count,
                                 request.lease_ms, ctx.now_ms);
    if (!urls.ok()) {
      ReplyStatus(ctx.reply, urls.status());
      return;
    }
    if (!urls->empty()) {
      ReplyPopped(ctx.reply, *urls, request.with_count);
      return;
    }
  }
  request.deadline_ms = *timeout_ms == 0 ? 0 : ctx.now_ms + *timeout_ms;
  ctx.effects.block = request;  // no reply now: the loop replies later
}

// CONFIRM url
void Confirm(CommandContext& ctx) {
  ReplyBool(ctx.reply, ctx.frontier.Confirm(ctx.argv[1], ctx.now_ms));
}

// FAIL url [DELAY secs]
void Fail(CommandContext& ctx) {
  static constexpr std::array<std::string_view, 1> kNames = {"DELAY"};
  std::array<std::optional<std::string_view>, 1> values;
  if (!ParseNamedOptions(ctx.argv.subspan(2), kNames, values)) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  int64_t delay_ms = 0;
  if (values[0]) {
    std::optional<int64_t> ms = ParseDurationMs(*values[0]);
    if (!ms || *ms < 0) {
      ctx.reply.Error(errors::kDelaySeconds);
      return;
    }
    delay_ms = *ms;
  }
  ReplyBool(ctx.reply, ctx.frontier.Fail(ctx.argv[1], delay_ms, ctx.now_ms));
}

// RECRAWL url secs
void Recrawl(CommandContext& ctx) {
  std::optional<int64_t> period_ms = ParseDurationMs(ctx.argv[2]);
  if (!period_ms) {
    ctx.reply.Error(errors::kNotFloat);
    return;
  }
  ReplyBool(ctx.reply,
            ctx.frontier.Recrawl(ctx.argv[1], *period_ms, ctx.now_ms));
}

// SEEN url
void Seen(CommandContext& ctx) {
  ReplyBool(ctx.reply, ctx.frontier.Seen(ctx.argv[1]));
}

// MSEEN url [url ...]
void MSeen(CommandContext& ctx) {
  std::vector<std::string_view> urls(ctx.argv.begin() + 1, ctx.argv.end());
  auto answers = ctx.frontier.SeenMany(urls);
  if (!answers.ok()) {
    ReplyStatus(ctx.reply, answers.status());
    return;
  }
  ctx.reply.Array(answers->size());
  for (const StatusOr<bool>& one : *answers) ReplyBool(ctx.reply, one);
}

// URLINFO url
void UrlInfo(CommandContext& ctx) {
  auto info = ctx.frontier.Info(ctx.argv[1]);
  if (!info.ok()) {
    ReplyStatus(ctx.reply, info.status());
    return;
  }
  if (!info->has_value()) {
    ctx.reply.Null();
    return;
  }
  const frontier::UrlInfo& u = **info;
  const std::pair<std::string_view, std::string> fields[] = {
      {"url", u.url},
      {"depth", std::to_string(u.depth)},
      {"priority", std::to_string(u.priority)},
      {"state", UrlStateName(u.state)},
      {"attempts", std::to_string(u.attempts)},
      {"backlinks", std::to_string(u.backlinks)},
      {"recrawl", FormatSeconds(u.recrawl_ms)},
      {"due", FormatUnixTime(u.due_ms)},
  };
  ctx.reply.Array(2 * std::size(fields));
  for (const auto& [name, value] : fields) {
    ctx.reply.Bulk(name);
    ctx.reply.Bulk(value);
  }
}

// DELAY site secs
void Delay(CommandContext& ctx) {
  std::optional<int64_t> delay_ms = ParseDurationMs(ctx.argv[2]);
  if (!delay_ms) {
    ctx.reply.Error(errors::kNotFloat);
    return;
  }
  Status s = ctx.frontier.SetSiteDelay(
      ctx.argv[1], *delay_ms < 0 ? -1 : *delay_ms, ctx.now_ms);
  if (!s.ok()) {
    ReplyStatus(ctx.reply, s);
    return;
  }
  ctx.reply.Ok();
}

StatsFields FrontierStatsFields(const FrontierStats& s) {
  return {{
      {"urls", s.urls},
      {"queued", s.queued},
      {"leased", s.leased},
      {"done", s.done},
      {"scheduled", s.scheduled},
      {"dead", s.dead},
      {"sites", s.sites},
      {"ready_sites", s.ready_sites},
      {"added", s.added},
      {"duplicates", s.duplicates},
      {"refused", s.refused},
      {"popped", s.popped},
      {"confirmed", s.confirmed},
      {"failed", s.failed},
      {"expired", s.expired},
      {"recrawled", s.recrawled},
  }};
}

// STATS
void Stats(CommandContext& ctx) {
  StatsFields fields = FrontierStatsFields(ctx.frontier.Stats());
  ctx.reply.Array(2 * fields.size());
  for (const auto& [name, value] : fields) {
    ctx.reply.Bulk(name);
    ctx.reply.Int(static_cast<int64_t>(value));
  }
}

}  // namespace frontier::commands
