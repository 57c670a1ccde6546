// Runtime administration: CONFIG GET|SET|REWRITE|RESETSTAT|HELP and
// SLOWLOG GET|LEN|RESET|HELP, in Redis's forms and words. Admin only (the
// command table says so).
#include <algorithm>
#include <string>
#include <vector>

#include "server/args.h"
#include "server/commands/commands.h"
#include "server/config_rewrite.h"
#include "server/errors.h"
#include "server/glob.h"
#include "server/log.h"
#include "server/reply.h"

namespace frontier::commands {
namespace {

constexpr std::string_view kConfigHelp[] = {
    "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "GET <pattern> [<pattern> ...]",
    "    Return parameters matching the glob-like <pattern> and their "
    "values.",
    "SET <directive> <value> [<directive> <value> ...]",
    "    Set the configuration <directive> to <value>.",
    "RESETSTAT",
    "    Reset statistics reported by the INFO command.",
    "REWRITE",
    "    Rewrite the configuration file.",
    "HELP",
    "    Print this help.",
};

constexpr std::string_view kSlowlogHelp[] = {
    "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "GET [<count>]",
    "    Return top <count> entries from the slowlog (default: 10, -1 mean "
    "all).",
    "    Entries are made of:",
    "    id, timestamp, time in microseconds, arguments array, client IP and "
    "port,",
    "    client name",
    "LEN",
    "    Return the length of the slowlog.",
    "RESET",
    "    Reset the slowlog.",
    "HELP",
    "    Prints this help.",
};

void ReplyHelp(ReplyWriter& reply, std::span<const std::string_view> lines) {
  reply.Array(lines.size());
  for (std::string_view line : lines) reply.Simple(line);
}

void ReplySetFailed(ReplyWriter& reply, std::string_view name,
                    std::string_view why) {
  std::string text(errors::kConfigSetFailedPrefix);
  text += name;
  text += "') - ";
  text += why;
  reply.Error(text);
}

// CONFIG GET pattern [pattern ...]: name/value pairs, in the table's order,
// each directive once. A repeatable directive's values come as one value,
// one per line.
void ConfigGet(CommandContext& ctx) {
  std::span<const std::string> patterns = ctx.argv.subspan(2);
  std::vector<const Directive*> matched;
  for (const Directive& d : Directives()) {
    for (const std::string& p : patterns) {
      if (GlobMatch(p, d.name, /*nocase=*/true)) {
        matched.push_back(&d);
        break;
      }
    }
  }
  ctx.reply.Array(2 * matched.size());
  for (const Directive* d : matched) {
    ctx.reply.Bulk(d->name);
    ctx.reply.Bulk(d->get(ctx.config));
  }
}

// CONFIG SET name value [name value ...]: all or nothing. Every value is
// checked on a copy of the configuration before any takes effect.
void ConfigSet(CommandContext& ctx) {
  Config updated = ctx.config;
  std::vector<const Directive*> seen;
  std::string changes;  // for the log, secrets redacted
  for (size_t i = 2; i + 1 < ctx.argv.size(); i += 2) {
    const std::string& name = ctx.argv[i];
    const std::string& value = ctx.argv[i + 1];
    const Directive* d = FindDirective(name);
    if (d == nullptr) {
      ctx.reply.Error(std::string(errors::kConfigSetUnknownPrefix) + name +
                      "'");
      return;
    }
    if (!(d->flags & kDirRuntime)) {
      ReplySetFailed(ctx.reply, name, errors::kConfigSetImmutable);
      return;
    }
    if (std::find(seen.begin(), seen.end(), d) != seen.end()) {
      ReplySetFailed(ctx.reply, name, errors::kConfigSetDuplicate);
      return;
    }
    seen.push_back(d);
    // A repeatable directive's value replaces all of its values, as the
    // value CONFIG GET shows for it does.
    if (d->flags & kDirRepeatable) d->set(&updated, "");
    if (!d->set(&updated, value)) {
      // The value is not quoted back: it may be a password.
      ReplySetFailed(
          ctx.reply, name,
          d->explain ? d->explain(updated, value) : "expected " + d->expected);
      return;
    }
    if (!changes.empty()) changes += ' ';
    changes +=
        std::string(d->name) + "=" +
        ((d->flags & kDirSecret) ? std::string("(redacted)") : d->get(updated));
  }
  Status s = ctx.server.ApplyConfig(updated);
  if (!s.ok()) {
    ctx.reply.Error("ERR CONFIG SET failed - " + s.ToString());
    return;
  }
  Log(LogLevel::kNotice, "CONFIG SET by client id=%llu: %s",
      static_cast<unsigned long long>(ctx.client.id), changes.c_str());
  ctx.reply.Ok();
}

void ConfigRewrite(CommandContext& ctx) {
  if (ctx.config.config_file.empty()) {
    ctx.reply.Error(errors::kNoConfigFile);
    return;
  }
  Status s = RewriteConfigFile(ctx.config);
  if (!s.ok()) {
    Log(LogLevel::kWarning, "CONFIG REWRITE failed: %s", s.message().c_str());
    ctx.reply.Error(std::string(errors::kRewriteFailedPrefix) + s.message());
    return;
  }
  Log(LogLevel::kNotice, "CONFIG REWRITE executed with success.");
  ctx.reply.Ok();
}

void ReplySlowLogEntry(ReplyWriter& reply, const SlowLogEntry& e) {
  reply.Array(6);
  reply.Int(static_cast<int64_t>(e.id));
  reply.Int(e.unix_seconds);
  reply.Int(e.duration_us);
  reply.Array(e.argv.size());
  for (const std::string& arg : e.argv) reply.Bulk(arg);
  reply.Bulk(e.client_address);
  reply.Bulk(e.client_name);
}

}  // namespace

// CONFIG GET|SET|REWRITE|RESETSTAT|HELP
void ConfigCommand(CommandContext& ctx) {
  const std::string& sub = ctx.argv[1];
  size_t argc = ctx.argv.size();
  if (EqualsIgnoreCase(sub, "get")) {
    if (argc < 3) return ReplyWrongArity(ctx.reply, "config|get");
    ConfigGet(ctx);
  } else if (EqualsIgnoreCase(sub, "set")) {
    if (argc < 4 || argc % 2 != 0) {
      return ReplyWrongArity(ctx.reply, "config|set");
    }
    ConfigSet(ctx);
  } else if (EqualsIgnoreCase(sub, "rewrite")) {
    if (argc != 2) return ReplyWrongArity(ctx.reply, "config|rewrite");
    ConfigRewrite(ctx);
  } else if (EqualsIgnoreCase(sub, "resetstat")) {
    if (argc != 2) return ReplyWrongArity(ctx.reply, "config|resetstat");
    ctx.server.ResetStats();
    ctx.reply.Ok();
  } else if (EqualsIgnoreCase(sub, "help")) {
    if (argc != 2) return ReplyWrongArity(ctx.reply, "config|help");
    ReplyHelp(ctx.reply, kConfigHelp);
  } else {
    ReplyUnknownSubcommand(ctx.reply, "config", sub);
  }
}

// SLOWLOG GET [count] | LEN | RESET | HELP
void SlowLogCommand(CommandContext& ctx) {
  const std::string& sub = ctx.argv[1];
  size_t argc = ctx.argv.size();
  SlowLog& log = ctx.server.slowlog();
  if (EqualsIgnoreCase(sub, "get")) {
    if (argc > 3) return ReplyWrongArity(ctx.reply, "slowlog|get");
    int64_t count = 10;
    if (argc == 3) {
      std::optional<int64_t> n = ParseInt64(ctx.argv[2]);
      if (!n || *n < -1) {
        ctx.reply.Error(errors::kSlowlogCount);
        return;
      }
      count = *n;
    }
    std::vector<const SlowLogEntry*> entries = log.Newest(count);
    ctx.reply.Array(entries.size());
    for (const SlowLogEntry* e : entries) ReplySlowLogEntry(ctx.reply, *e);
  } else if (EqualsIgnoreCase(sub, "len")) {
    if (argc != 2) return ReplyWrongArity(ctx.reply, "slowlog|len");
    ctx.reply.Int(static_cast<int64_t>(log.size()));
  } else if (EqualsIgnoreCase(sub, "reset")) {
    if (argc != 2) return ReplyWrongArity(ctx.reply, "slowlog|reset");
    log.Reset();
    ctx.reply.Ok();
  } else if (EqualsIgnoreCase(sub, "help")) {
    if (argc != 2) return ReplyWrongArity(ctx.reply, "slowlog|help");
    ReplyHelp(ctx.reply, kSlowlogHelp);
  } else {
    ReplyUnknownSubcommand(ctx.reply, "slowlog", sub);
  }
}

}  // namespace frontier::commands
