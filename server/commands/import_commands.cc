// IMPORT: loads records of an exported frontier (docs/commands.md#import,
// docs/operations.md "Export and import"). The JSON Lines file is read by
// the import tool (clients/import); the server takes the records as
// explicit fields, so it parses no JSON:
//
//   IMPORT kind count field value [field value ...] [kind count ...]
//
// kind is URL, SITE or ROBOTS; count is the number of field-value pairs
// that follow. The reply has one entry per record: 1 (stored), 0 (known
// already, kept) or an error for a record refused, which changes nothing.
// The stored ones are written in one transaction (Frontier::Import).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/args.h"
#include "server/commands/commands.h"
#include "server/reply.h"
#include "storage/import_records.h"

namespace frontier::commands {
namespace {

constexpr int64_t kMaxPairs = 64;
constexpr int64_t kMaxMs = int64_t{1} << 52;  // far beyond any date

// One record's fields, as parsed; `error` set if one is bad.
struct FieldReader {
  std::string error;
  void Fail(std::string_view field, std::string_view why) {
    if (error.empty()) {
      error = "field '" + std::string(field) + "': " + std::string(why);
    }
  }
  template <typename T>
  void Int(std::string_view field, std::string_view value, int64_t lo,
           int64_t hi, T* out) {
    std::optional<int64_t> v = ParseInt64(value);
    if (!v || *v < lo || *v > hi) {
      Fail(field, "not an integer in " + std::to_string(lo) + ".." +
                      std::to_string(hi));
      return;
    }
    *out = static_cast<T>(*v);
  }
};

std::optional<StoredState> ParseState(std::string_view s, bool recrawl) {
  if (s == "queued" || s == "leased") return StoredState::kQueued;
  if (s == "done") return StoredState::kDone;
  if (s == "dead") return StoredState::kDead;
  if (s == "excluded") return StoredState::kExcluded;
  if (s == "scheduled") {
    return recrawl ? StoredState::kScheduledRecrawl
                   : StoredState::kScheduledRetry;
  }
  return std::nullopt;
}

std::optional<RobotsState> ParseRobotsState(std::string_view s) {
  for (RobotsState r :
       {RobotsState::kUnknown, RobotsState::kFetching, RobotsState::kOk,
        RobotsState::kAllowAll, RobotsState::kUnreachable}) {
    if (s == RobotsStateName(r)) return r;
  }
  return std::nullopt;
}

ImportUrl ReadUrl(std::span<const std::string> kv, FieldReader* f) {
  ImportUrl u;
  std::string state = "queued";
  bool recrawl = false, have_url = false;
  for (size_t i = 0; i + 1 < kv.size(); i += 2) {
    std::string_view k = kv[i], v = kv[i + 1];
    if (k == "url") {
      u.url = v;
      have_url = true;
    } else if (k == "state") {
      state = v;
    } else if (k == "schedule") {
      if (v != "retry" && v != "recrawl") f->Fail(k, "not retry or recrawl");
      recrawl = v == "recrawl";
    } else if (k == "depth") {
      f->Int(k, v, 1, 65535, &u.depth);
    } else if (k == "priority") {
      f->Int(k, v, 0, 9999, &u.priority);
    } else if (k == "attempts") {
      f->Int(k, v, 0, 65535, &u.attempts);
    } else if (k == "backlinks") {
      f->Int(k, v, 0, INT64_MAX, &u.backlinks);
    } else if (k == "recrawl") {
      f->Int(k, v, 0, kMaxMs, &u.recrawl_ms);
    } else if (k == "due") {
      f->Int(k, v, 0, kMaxMs, &u.due_ms);
    } else if (k == "last_fetch") {
      f->Int(k, v, 0, kMaxMs, &u.last_fetch_ms);
    } else if (k == "created") {
      f->Int(k, v, 0, kMaxMs, &u.created_ms);
    } else if (k == "data") {
      u.data = std::string(v);
    } else {
      f->Fail(k, "unknown field of a URL");
    }
  }
  if (!have_url) f->Fail("url", "missing");
  std::optional<StoredState> s = ParseState(state, recrawl);
  if (s) {
    u.state = *s;
  } else {
    f->Fail("state", "unknown state '" + state + "'");
  }
  if (state == "leased") u.due_ms = 0;  // queued again: see docs
  return u;
}

ImportSite ReadSite(std::span<const std::string> kv, FieldReader* f) {
  ImportSite site;
  for (size_t i = 0; i + 1 < kv.size(); i += 2) {
    std::string_view k = kv[i], v = kv[i + 1];
    if (k == "name") {
      site.name = v;
    } else if (k == "delay") {
      f->Int(k, v, -1, kMaxMs, &site.delay_ms);
    } else if (k == "next_allowed") {
      f->Int(k, v, 0, kMaxMs, &site.next_allowed_ms);
    } else if (k == "block_until") {
      f->Int(k, v, 0, kMaxMs, &site.block_until_ms);
    } else if (k == "backoffs") {
      f->Int(k, v, 0, UINT32_MAX, &site.backoffs);
    } else if (k == "max_urls") {
      f->Int(k, v, 0, INT64_MAX, &site.max_urls);
    } else if (k == "robots_delay") {
      f->Int(k, v, -1, kMaxMs, &site.robots_delay_ms);
    } else if (k == "adaptive_delay") {
      f->Int(k, v, -1, kMaxMs, &site.adaptive_delay_ms);
    } else {
      f->Fail(k, "unknown field of a site");
    }
  }
  if (site.name.empty()) f->Fail("name", "missing");
  return site;
}

ImportRobots ReadRobots(std::span<const std::string> kv, FieldReader* f) {
  ImportRobots p;
  for (size_t i = 0; i + 1 < kv.size(); i += 2) {
    std::string_view k = kv[i], v = kv[i + 1];
    if (k == "origin") {
      p.origin = v;
    } else if (k == "state") {
      std::optional<RobotsState> s = ParseRobotsState(v);
      if (s) {
        p.state = *s;
      } else {
        f->Fail(k, "unknown robots state");
      }
    } else if (k == "status") {
      f->Int(k, v, 0, 599, &p.status);
    } else if (k == "fetched") {
      f->Int(k, v, 0, kMaxMs, &p.fetched_ms);
    } else if (k == "expires") {
      f->Int(k, v, 0, kMaxMs, &p.expires_ms);
    } else if (k == "until") {
      f->Int(k, v, 0, kMaxMs, &p.until_ms);
    } else if (k == "failures") {
      f->Int(k, v, 0, UINT32_MAX, &p.failures);
    } else if (k == "rules") {
      p.rules = v;  // robots::Rules::Serialize(), checked by its reader
    } else {
      f->Fail(k, "unknown field of a robots origin");
    }
  }
  if (p.origin.empty()) f->Fail("origin", "missing");
  return p;
}

}  // namespace

// IMPORT kind count field value ... (see the top of this file).
void Import(CommandContext& ctx) {
  std::span<const std::string> args(ctx.argv);
  args = args.subspan(1);
  ImportBatch batch;
  std::vector<std::string> errors;  // per record; empty = parsed
  while (!args.empty()) {
    std::optional<int64_t> pairs =
        args.size() >= 2 ? ParseInt64(args[1]) : std::nullopt;
    if (!pairs || *pairs < 0 || *pairs > kMaxPairs ||
        args.size() < 2 + 2 * static_cast<size_t>(*pairs)) {
      ctx.reply.Error(
          "ERR syntax error: IMPORT kind count field value ... (record " +
          std::to_string(batch.items.size() + 1) + ")");
      return;
    }
    std::span<const std::string> kv = args.subspan(2, 2 * *pairs);
    FieldReader f;
    if (EqualsIgnoreCase(args[0], "URL")) {
      batch.items.emplace_back(ReadUrl(kv, &f));
    } else if (EqualsIgnoreCase(args[0], "SITE")) {
      batch.items.emplace_back(ReadSite(kv, &f));
    } else if (EqualsIgnoreCase(args[0], "ROBOTS")) {
      batch.items.emplace_back(ReadRobots(kv, &f));
    } else {
      ctx.reply.Error(
          "ERR syntax error: IMPORT kind must be URL, SITE or "
          "ROBOTS (record " +
          std::to_string(batch.items.size() + 1) + ")");
      return;
    }
    errors.push_back(std::move(f.error));
    args = args.subspan(2 + kv.size());
  }
  // Records with a bad field are not given to storage.
  ImportBatch valid;
  for (size_t i = 0; i < batch.items.size(); ++i) {
    if (errors[i].empty()) valid.items.push_back(std::move(batch.items[i]));
  }
  auto result = ctx.frontier.Import(valid, ctx.now_ms);
  if (!result.ok()) {
    ReplyStatus(ctx.reply, result.status());
    return;
  }
  ctx.reply.Array(errors.size());
  size_t next = 0;
  for (const std::string& error : errors) {
    if (!error.empty()) {
      ctx.reply.Error("ERR " + error);
      continue;
    }
    const StatusOr<ImportOutcome>& one = (*result)[next++];
    if (one.ok()) {
      ctx.reply.Int(static_cast<int64_t>(*one));
    } else {
      ReplyStatus(ctx.reply, one.status());
    }
  }
}

}  // namespace frontier::commands
