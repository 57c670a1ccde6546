// The frontier's verbs: parse options, call the Frontier, reply.
#include <algorithm>
#include <array>
#include <cctype>
#include <iterator>
#include <optional>
#include <string_view>

#include "server/args.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/partitions.h"
#include "server/reply.h"

namespace frontier::commands {
namespace {

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

// Replies a refused option list: Redis's syntax error, naming the word for
// the per-URL data options (DATA, REPLACE, WITHDATA), which are new, so
// that a client sees what to fix; the older options keep Redis's text.
void ReplyOptionError(ReplyWriter& reply, const OptionError& e) {
  const bool data_word = EqualsIgnoreCase(e.word, "DATA") ||
                         EqualsIgnoreCase(e.word, "REPLACE") ||
                         EqualsIgnoreCase(e.word, "WITHDATA");
  if (!data_word || e.kind == OptionError::kUnknownWord) {
    reply.Error(errors::kSyntax);
    return;
  }
  std::string text(errors::kSyntaxPrefix);
  for (char c : e.word) text += static_cast<char>(std::toupper(c));
  text += e.kind == OptionError::kNoValue ? errors::kNeedsValueSuffix
                                          : errors::kGivenTwiceSuffix;
  reply.Error(text);
}

// POP's and BPOP's options after BPOP's timeout.
struct PopArgs {
  std::array<std::optional<std::string_view>, 3> values;  // kPopNames
  bool with_data = false;
  bool any_shard = false;  // ANYSHARD: other shards when this one has none
};
constexpr std::array<std::string_view, 3> kPopNames = {"COUNT", "LEASE",
                                                       "PARTITION"};
constexpr std::array<std::string_view, 2> kPopFlags = {"WITHDATA",
                                                       "ANYSHARD"};

bool ParsePopArgs(CommandContext& ctx, std::span<const std::string> args,
                  PopArgs* out) {
  std::array<bool, 2> flags = {false, false};
  if (auto e = ParseOptions(args, kPopNames, out->values, kPopFlags, flags)) {
    ReplyOptionError(ctx.reply, *e);
    return false;
  }
  out->with_data = flags[0];
  out->any_shard = flags[1];
  return true;
}

// POP|BPOP ... ANYSHARD in a cluster, when this shard had nothing ready:
// the same POP, without ANYSHARD (nor BPOP's timeout), asked of the other
// shards' masters one at a time (ServerControl::PopElsewhere); a BPOP
// then waits here (`then_wait`) if none had a URL. True if so: the reply
// comes later.
bool PopElsewhere(CommandContext& ctx, const PopArgs& args,
                  std::optional<BlockRequest> then_wait = std::nullopt) {
  if (!args.any_shard || ctx.server.cluster() == nullptr ||
      ctx.client.cluster_link) {
    return false;
  }
  std::vector<std::string> argv = {"POP"};
  const std::span<const std::string> rest =
      ctx.argv.subspan(EqualsIgnoreCase(ctx.argv[0], "BPOP") ? 2 : 1);
  for (size_t i = 0; i < rest.size(); ++i) {
    const bool named = std::any_of(
        kPopNames.begin(), kPopNames.end(),
        [&](std::string_view name) { return EqualsIgnoreCase(rest[i], name); });
    if (named && i + 1 < rest.size()) {
      argv.push_back(rest[i]);
      argv.push_back(rest[++i]);  // its value, whatever it says
    } else if (!EqualsIgnoreCase(rest[i], "ANYSHARD")) {
      argv.push_back(rest[i]);
    }
  }
  ctx.server.PopElsewhere(ctx, std::move(argv), args.values[0].has_value(),
                          std::move(then_wait));
  return true;
}

}  // namespace

// ADD url [ref] [PRIORITY p] [RECRAWL secs] [DATA bytes] [REPLACE]
void Add(CommandContext& ctx) {
  static constexpr std::array<std::string_view, 3> kNames = {
      "PRIORITY", "RECRAWL", "DATA"};
  static constexpr std::array<std::string_view, 1> kFlags = {"REPLACE"};
  std::span<const std::string> rest = ctx.argv.subspan(2);
  std::string_view ref;
  auto is_option = [](std::string_view word) {
    for (std::string_view n : kNames) {
      if (EqualsIgnoreCase(word, n)) return true;
    }
    return EqualsIgnoreCase(word, kFlags[0]);
  };
  if (!rest.empty() && !is_option(rest[0])) {
    ref = rest[0];
    rest = rest.subspan(1);
  }
  std::array<std::optional<std::string_view>, 3> values;
  std::array<bool, 1> flags = {false};
  if (auto e = ParseOptions(rest, kNames, values, kFlags, flags)) {
    ReplyOptionError(ctx.reply, *e);
    return;
  }
  AddOptions options;
  options.data = values[2];
  options.replace_data = flags[0];
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
// MADD ref DATA url data [url data ...]
void MAdd(CommandContext& ctx) {
  std::vector<std::string_view> urls;
  std::vector<std::string_view> data;
  if (!ParseLinks(ctx.reply, ctx.argv.subspan(2), &urls, &data)) return;
  const bool with_data = !data.empty();
  // In a cluster, links of other shards are sent there (docs/cluster.md).
  if (ctx.server.cluster() != nullptr &&
      SpreadMadd(ctx, urls, with_data ? &data : nullptr)) {
    return;
  }
  StatusOr<std::vector<StatusOr<AddOutcome>>> outcomes =
      with_data
          ? ctx.frontier.AddManyWithData(ctx.argv[1], urls, data, ctx.now_ms)
          : ctx.frontier.AddMany(ctx.argv[1], urls, ctx.now_ms);
  if (!outcomes.ok()) {
    ReplyStatus(ctx.reply, outcomes.status());
    return;
  }
  ctx.reply.Array(outcomes->size());
  for (const StatusOr<AddOutcome>& one : *outcomes) {
    ReplyAddOutcome(ctx.reply, one);
  }
}

bool ParseLinks(ReplyWriter& reply, std::span<const std::string> args,
                std::vector<std::string_view>* urls,
                std::vector<std::string_view>* data) {
  if (!EqualsIgnoreCase(args[0], "DATA")) {
    urls->assign(args.begin(), args.end());
    return true;
  }
  const std::span<const std::string> pairs = args.subspan(1);
  if (pairs.empty() || pairs.size() % 2 != 0) {
    reply.Error(errors::kMaddDataPairs);
    return false;
  }
  urls->reserve(pairs.size() / 2);
  data->reserve(pairs.size() / 2);
  for (size_t i = 0; i < pairs.size(); i += 2) {
    urls->push_back(pairs[i]);
    data->push_back(pairs[i + 1]);
  }
  return true;
}

void ReplyAddOutcome(ReplyWriter& reply, const StatusOr<AddOutcome>& one) {
  if (one.ok()) {
    reply.Int(static_cast<int64_t>(*one));
  } else {
    ReplyStatus(reply, one.status());
  }
}

// POP [COUNT n] [LEASE secs] [PARTITION name] [WITHDATA] [ANYSHARD]
void Pop(CommandContext& ctx) {
  PopArgs args;
  if (!ParsePopArgs(ctx, ctx.argv.subspan(1), &args)) return;
  const auto& values = args.values;
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
                               lease_ms, ctx.now_ms, args.with_data);
  if (!urls.ok()) {
    ReplyStatus(ctx.reply, urls.status());
    return;
  }
  if (urls->empty() && PopElsewhere(ctx, args)) return;
  ReplyPopped(ctx.reply, *urls, values[0].has_value(), args.with_data);
}

// BPOP timeout [COUNT n] [LEASE secs] [PARTITION name] [WITHDATA]
//      [ANYSHARD]
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
  PopArgs args;
  if (!ParsePopArgs(ctx, ctx.argv.subspan(2), &args)) return;
  const auto& values = args.values;
  BlockRequest request;
  request.with_count = values[0].has_value();
  request.with_data = args.with_data;
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
  if (ctx.client.crawl != Frontier::kDefaultCrawl) {
    request.crawl = ctx.client.crawl;
  }
  // First come, first served: while others wait, a newcomer queues behind
  // them even if URLs are ready now; the loop serves the queues in order
  // (Server::ServeBlocked), each partition's and the any-partition one.
  if (ctx.stats.blocked_clients == 0) {
    auto urls = PopFromPartition(ctx.frontier, request.partition, request.count,
                                 request.lease_ms, ctx.now_ms,
                                 request.with_data);
    if (!urls.ok()) {
      ReplyStatus(ctx.reply, urls.status());
      return;
    }
    if (!urls->empty()) {
      ReplyPopped(ctx.reply, *urls, request.with_count, request.with_data);
      return;
    }
  }
  request.deadline_ms = *timeout_ms == 0 ? 0 : ctx.now_ms + *timeout_ms;
  if (PopElsewhere(ctx, args, request)) return;
  ctx.effects.block = request;  // no reply now: the loop replies later
}

// STATUS code: an HTTP status code, 100..599.
bool ParseHttpStatus(std::string_view text, std::optional<int>* status) {
  std::optional<int64_t> code = ParseInt64(text);
  if (!code || *code < 100 || *code > 599) return false;
  *status = static_cast<int>(*code);
  return true;
}

// CONFIRM url [STATUS code] [FETCH-MS ms] [CHANGED|UNCHANGED] [BODY bytes]
void Confirm(CommandContext& ctx) {
  ConfirmOptions options;
  std::span<const std::string> rest = ctx.argv.subspan(2);
  bool seen_status = false, seen_fetch = false, seen_body = false;
  for (size_t i = 0; i < rest.size(); ++i) {
    const std::string& word = rest[i];
    if (EqualsIgnoreCase(word, "CHANGED") ||
        EqualsIgnoreCase(word, "UNCHANGED")) {
      if (options.changed) {
        ctx.reply.Error(errors::kChangedTwice);
        return;
      }
      options.changed = EqualsIgnoreCase(word, "CHANGED");
      continue;
    }
    bool* seen = EqualsIgnoreCase(word, "STATUS")     ? &seen_status
                 : EqualsIgnoreCase(word, "FETCH-MS") ? &seen_fetch
                 : EqualsIgnoreCase(word, "BODY")     ? &seen_body
                                                      : nullptr;
    if (seen == nullptr || *seen || i + 1 == rest.size()) {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
    *seen = true;
    std::string_view value = rest[++i];
    if (seen == &seen_status) {
      if (!ParseHttpStatus(value, &options.status)) {
        ctx.reply.Error(errors::kStatusRange);
        return;
      }
    } else if (seen == &seen_fetch) {
      std::optional<int64_t> ms = ParseInt64(value);
      if (!ms || *ms < 0) {
        ctx.reply.Error(errors::kFetchMs);
        return;
      }
      options.fetch_ms = *ms;
    } else {
      options.body = value;
    }
  }
  ReplyBool(ctx.reply, ctx.frontier.Confirm(ctx.argv[1], options, ctx.now_ms));
}

// FAIL url [DELAY secs] [STATUS code] [RETRY-AFTER value]
void Fail(CommandContext& ctx) {
  static constexpr std::array<std::string_view, 3> kNames = {
      "DELAY", "STATUS", "RETRY-AFTER"};
  std::array<std::optional<std::string_view>, 3> values;
  if (!ParseNamedOptions(ctx.argv.subspan(2), kNames, values)) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  FailOptions options;
  if (values[0]) {
    std::optional<int64_t> ms = ParseDurationMs(*values[0]);
    if (!ms || *ms < 0) {
      ctx.reply.Error(errors::kDelaySeconds);
      return;
    }
    options.delay_ms = *ms;
  }
  if (values[1] && !ParseHttpStatus(*values[1], &options.status)) {
    ctx.reply.Error(errors::kStatusRange);
    return;
  }
  options.retry_after = values[2];  // unparsable values are ignored
  ReplyBool(ctx.reply, ctx.frontier.Fail(ctx.argv[1], options, ctx.now_ms));
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
  const frontier::UrlInfo* found = RecordOrReply(ctx.reply, info);
  if (found == nullptr) return;
  const frontier::UrlInfo& u = *found;
  const std::pair<std::string_view, std::string> fields[] = {
      {"url", u.url},
      {"depth", std::to_string(u.depth)},
      {"priority", std::to_string(u.priority)},
      {"state", UrlStateName(u.state)},
      {"attempts", std::to_string(u.attempts)},
      {"backlinks", std::to_string(u.backlinks)},
      {"recrawl", FormatSeconds(u.recrawl_ms)},
      {"due", FormatUnixTime(u.due_ms)},
      {"created", FormatUnixTime(u.created_ms)},
  };
  // The fields, then "data": its value, or a nil bulk when it has none.
  ctx.reply.Array(2 * std::size(fields) + 2);
  for (const auto& [name, value] : fields) {
    ctx.reply.Bulk(name);
    ctx.reply.Bulk(value);
  }
  ctx.reply.Bulk("data");
  if (u.data) {
    ctx.reply.Bulk(*u.data);
  } else {
    ctx.reply.Null();
  }
}

// DELAY site secs (= SITE DELAY, site_commands.cc)
void Delay(CommandContext& ctx) { SetDelay(ctx, ctx.argv[1], ctx.argv[2]); }

StatsFields FrontierStatsFields(const FrontierStats& s) {
  return {{
      {"urls", s.urls},
      {"queued", s.queued},
      {"leased", s.leased},
      {"done", s.done},
      {"scheduled", s.scheduled},
      {"dead", s.dead},
      {"excluded", s.excluded},
      {"sites", s.sites},
      {"ready_sites", s.ready_sites},
      {"blocked_sites", s.blocked_sites},
      {"added", s.added},
      {"duplicates", s.duplicates},
      {"refused", s.refused},
      {"popped", s.popped},
      {"confirmed", s.confirmed},
      {"failed", s.failed},
      {"expired", s.expired},
      {"recrawled", s.recrawled},
      {"confirmed_2xx", s.confirmed_2xx},
      {"confirmed_3xx", s.confirmed_3xx},
      {"confirmed_4xx", s.confirmed_4xx},
      {"confirmed_5xx", s.confirmed_5xx},
      {"backoffs", s.backoffs},
      {"scope_refused_host", s.scope_host},
      {"scope_refused_ref", s.scope_ref},
      {"scope_refused_query", s.scope_query},
      {"scope_refused_path", s.scope_path},
      {"scope_refused_deny", s.scope_deny},
      {"scope_refused_allow", s.scope_allow},
      {"scope_removed", s.scope_removed},
  }};
}

// STATS [CLUSTER]
void Stats(CommandContext& ctx) {
  // STATS CLUSTER, the counters summed over a cluster's shards, is the
  // cluster routing's (server_cluster.cc): here it is outside a cluster.
  if (ctx.argv.size() > 1) {
    const bool cluster =
        ctx.argv.size() == 2 && EqualsIgnoreCase(ctx.argv[1], "CLUSTER");
    ctx.reply.Error(cluster ? errors::kClusterDisabled : errors::kSyntax);
    return;
  }
  StatsFields fields = FrontierStatsFields(ctx.frontier.Stats());
  ctx.reply.Array(2 * fields.size());
  for (const auto& [name, value] : fields) {
    ctx.reply.Bulk(name);
    ctx.reply.Int(static_cast<int64_t>(value));
  }
}

}  // namespace frontier::commands
