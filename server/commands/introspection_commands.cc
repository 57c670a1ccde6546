// Introspection: COMMAND [COUNT|LIST|INFO|DOCS|HELP] and INFO [section...].
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "server/args.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/reply.h"
#include "server/stats_report.h"
#include "server/version.h"
#include "urlfrontier/rpc_stats.h"

namespace frontier::commands {
namespace {

// One COMMAND / COMMAND INFO entry, in Redis 7's ten-element shape:
// name, arity, flags, first key, last key, key step, ACL categories,
// tips, key specs, subcommands. A command whose key depends on its
// subcommand (SITE INFO site) reports it in a subcommand entry
// ("site|info"), as Redis does, so Redis Cluster clients route it.
void ReplyCommandEntry(ReplyWriter& reply, std::string_view name, int arity,
                       const CommandSpec& spec, const KeySpec& keys,
                       std::span<const std::string_view> subcommands) {
  reply.Array(10);
  reply.Bulk(name);
  reply.Int(arity);
  std::vector<std::string_view> flags = CommandFlagNames(spec.flags);
  reply.Array(flags.size());
  for (std::string_view f : flags) reply.Simple(f);
  reply.Int(keys.first);
  reply.Int(keys.last);
  reply.Int(keys.step);
  reply.Array(1);
  reply.Simple(std::string("@") + std::string(spec.group));
  reply.Array(0);
  reply.Array(0);
  reply.Array(subcommands.size());
  const KeySpec sub_keys{spec.keys.first, spec.keys.last, spec.keys.step};
  for (std::string_view sub : subcommands) {
    ReplyCommandEntry(reply, std::string(spec.name) + "|" + std::string(sub),
                      -(spec.keys.first + 1), spec, sub_keys, {});
  }
}

void ReplyCommandInfo(ReplyWriter& reply, const CommandSpec& spec) {
  if (spec.keys.subcommands.empty()) {
    ReplyCommandEntry(reply, spec.name, spec.arity, spec, spec.keys, {});
    return;
  }
  std::vector<std::string_view> subs;
  std::string_view list = spec.keys.subcommands;
  while (!list.empty()) {
    const size_t space = list.find(' ');
    subs.push_back(list.substr(0, space));
    list.remove_prefix(space == std::string_view::npos ? list.size()
                                                       : space + 1);
  }
  ReplyCommandEntry(reply, spec.name, spec.arity, spec, KeySpec{}, subs);
}

// COMMAND GETKEYS command [arg ...]: the keys, by the command's KeySpec.
void CommandGetKeys(CommandContext& ctx) {
  std::span<const std::string> command = ctx.argv.subspan(2);
  const CommandSpec* spec = FindCommand(command[0]);
  if (spec == nullptr) {
    ctx.reply.Error(errors::kInvalidCommandSpecified);
    return;
  }
  if (!ArityAccepts(spec->arity, command.size())) {
    ctx.reply.Error(errors::kGetKeysInvalidArguments);
    return;
  }
  const std::vector<size_t> positions = KeyPositions(*spec, command);
  if (positions.empty()) {
    ctx.reply.Error(errors::kNoKeyArguments);
    return;
  }
  ctx.reply.Array(positions.size());
  for (size_t pos : positions) ctx.reply.Bulk(command[pos]);
}

// COMMAND DOCS entry value: a map, flattened as Redis does in RESP2.
void ReplyCommandDocs(ReplyWriter& reply, const CommandSpec& spec) {
  reply.Array(6);
  reply.Bulk("summary");
  reply.Bulk(spec.summary);
  reply.Bulk("since");
  reply.Bulk("0.1.0");
  reply.Bulk("group");
  reply.Bulk(spec.group);
}

constexpr std::string_view kCommandHelp[] = {
    "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "(no subcommand)",
    "    Return details about all commands.",
    "COUNT",
    "    Return the total number of commands.",
    "LIST",
    "    Return the names of all commands.",
    "INFO [<command-name> ...]",
    "    Return details about the given commands, or all of them.",
    "GETKEYS <full-command>",
    "    Return the keys from a full command.",
    "DOCS [<command-name> ...]",
    "    Return documentation about the given commands, or all of them.",
    "HELP",
    "    Print this help.",
};

// --- INFO sections. Each appends "# Title\r\n" and key:value lines. ---

void Line(std::string& out, std::string_view key, std::string_view value) {
  out += key;
  out += ':';
  out += value;
  out += "\r\n";
}
void Line(std::string& out, std::string_view key, uint64_t value) {
  Line(out, key, std::to_string(value));
}

void ServerSection(const CommandContext& ctx, std::string& out) {
  utsname uts;
  std::string os = "unknown";
  if (uname(&uts) == 0) {
    os = std::string(uts.sysname) + " " + uts.release + " " + uts.machine;
  }
  auto now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  int64_t uptime_s = (ctx.now_ms - ctx.stats.start_ms) / 1000;
  out += "# Server\r\n";
  Line(out, "redis_version", kRedisCompatVersion);
  Line(out, "frontierd_version", kFrontierdVersion);
  Line(out, "redis_mode", "standalone");
  Line(out, "os", os);
  Line(out, "arch_bits", sizeof(void*) * 8);
  Line(out, "multiplexing_api", "libevent");
  Line(out, "process_id", static_cast<uint64_t>(getpid()));
  Line(out, "tcp_port", static_cast<uint64_t>(ctx.stats.tcp_port));
  Line(out, "server_time_usec", static_cast<uint64_t>(now_us));
  Line(out, "uptime_in_seconds", static_cast<uint64_t>(uptime_s));
  Line(out, "uptime_in_days", static_cast<uint64_t>(uptime_s / 86400));
  Line(out, "timer_ms", static_cast<uint64_t>(ctx.config.timer_ms));
  Line(out, "config_file", ctx.config.config_file);
  Line(out, "dir", ctx.config.dir);
}

void ClientsSection(const CommandContext& ctx, std::string& out) {
  out += "# Clients\r\n";
  Line(out, "connected_clients", ctx.stats.connected_clients);
  Line(out, "blocked_clients", ctx.stats.blocked_clients);
  Line(out, "maxclients", ctx.config.maxclients);
}

void PersistenceSection(const CommandContext& ctx, std::string& out) {
  const ServerStats& s = ctx.stats;
  out += "# Persistence\r\n";
  Line(out, "loading", "0");
  Line(out, "fsync", FsyncPolicyName(ctx.config.fsync));
  Line(out, "log_flushes", s.log_flushes);
  Line(out, "last_log_flush_status", s.last_flush_ok ? "ok" : "err");
  Line(out, "checkpoints", s.checkpoints);
  Line(out, "last_checkpoint_time",
       static_cast<uint64_t>(s.last_checkpoint_ms / 1000));
  Line(out, "last_checkpoint_status", s.last_checkpoint_ok ? "ok" : "err");
  Line(out, "last_checkpoint_duration_ms",
       static_cast<uint64_t>(s.last_checkpoint_duration_ms));
  Line(out, "pages_written_behind", ctx.frontier.pages_written_behind());
  Line(out, "checkpoint_interval",
       FormatSeconds(ctx.config.checkpoint_interval_ms));
  Line(out, "recovery_time_ms", static_cast<uint64_t>(s.recovery_ms));
  // A full disk: write commands get -MISCONF until the retry succeeds.
  const Status writes = ctx.frontier.WriteStatus();
  Line(out, "writes_refused", writes.ok() ? "0" : "1");
  Line(out, "last_write_error", writes.ok() ? "" : writes.message());
}

void StatsSection(const CommandContext& ctx, std::string& out) {
  out += "# Stats\r\n";
  for (const auto& [name, value] : ServerCounters(ctx.stats)) {
    Line(out, name, value);
  }
  Line(out, "pubsub_channels", ctx.pubsub.NumChannels());
  Line(out, "pubsub_patterns", ctx.pubsub.NumPatterns());
}

void MemorySection(const CommandContext& ctx, std::string& out) {
  out += "# Memory\r\n";
  Line(out, "used_memory_rss", ProcessRssBytes());
  Line(out, "cache_size", ctx.config.cache_bytes);
  auto cache = ReadCacheReport(ctx.frontier, ctx.stats);
  if (cache.ok()) {
    Line(out, "cache_hits", cache->counters.hits);
    Line(out, "cache_misses", cache->counters.misses);
    Line(out, "cache_pages_read", cache->counters.pages_in);
    Line(out, "cache_pages_written", cache->counters.pages_out);
    char ratio[32];
    std::snprintf(ratio, sizeof(ratio), "%.6f", cache->misses_per_command);
    Line(out, "cache_misses_per_command", ratio);
  }
}

// Redis's "cmdstat_<name>:calls=N,usec=N,usec_per_call=N.NN", from the
// same per-command accounting as /metrics.
void CommandStatsSection(const CommandContext& ctx, std::string& out) {
  out += "# Commandstats\r\n";
  std::span<const CommandSpec> all = Commands();
  for (size_t i = 0; i < all.size(); ++i) {
    const CommandStat* stat = ctx.stats.commands.Find(i);
    if (stat == nullptr) continue;
    const uint64_t usec = stat->latency_ns.sum() / 1000;
    char value[96];
    std::snprintf(value, sizeof(value), "calls=%llu,usec=%llu,usec_per_call=%.2f",
                  static_cast<unsigned long long>(stat->calls),
                  static_cast<unsigned long long>(usec),
                  static_cast<double>(usec) / stat->calls);
    Line(out, "cmdstat_" + std::string(all[i].name), value);
  }
}

void FrontierSection(const CommandContext& ctx, std::string& out) {
  out += "# Frontier\r\n";
  // The counters are the connection's crawl's (docs/commands.md#crawls).
  Line(out, "crawl", std::string_view(ctx.client.crawl));
  for (const auto& [name, value] : FrontierStatsFields(ctx.frontier.Stats())) {
    Line(out, name, value);
  }
  const SiteStateCounts sites = ctx.frontier.SiteStates();
  Line(out, "waiting_sites", sites.waiting);
  Line(out, "busy_sites", sites.busy);
  Line(out, "data_bytes", ctx.frontier.DataBytes());
}

// The URL Frontier gRPC door (docs/urlfrontier.md): per rpc served,
// "rpc_<Name>:calls=N,errors=N,open=N", as cmdstat lines are.
void UrlFrontierSection(const CommandContext& ctx, std::string& out) {
  out += "# URLFrontier\r\n";
  Line(out, "urlfrontier_port",
       static_cast<uint64_t>(ctx.config.urlfrontier_port));
  if (ctx.stats.urlfrontier == nullptr) return;
  for (size_t i = 0; i < urlfrontier::kRpcCount; ++i) {
    const auto rpc = static_cast<urlfrontier::Rpc>(i);
    const urlfrontier::RpcStats::Counts c = ctx.stats.urlfrontier->Read(rpc);
    Line(out, "rpc_" + std::string(urlfrontier::RpcName(rpc)),
         "calls=" + std::to_string(c.calls) + ",errors=" +
             std::to_string(c.errors) + ",open=" + std::to_string(c.open));
  }
}

using SectionFn = void (*)(const CommandContext&, std::string&);
constexpr std::pair<std::string_view, SectionFn> kSections[] = {
    {"server", ServerSection},
    {"clients", ClientsSection},
    {"persistence", PersistenceSection},
    {"stats", StatsSection},
    {"replication", ReplicationSection},
    {"frontier", FrontierSection},
    {"memory", MemorySection},
    {"commandstats", CommandStatsSection},
    {"urlfrontier", UrlFrontierSection},
    {"partitions", PartitionsSection},
    {"cluster", ClusterSection},
};

}  // namespace

// COMMAND [COUNT | LIST | INFO [name...] | DOCS [name...] | HELP]
void Command(CommandContext& ctx) {
  std::span<const CommandSpec> all = Commands();
  if (ctx.argv.size() == 1) {
    ctx.reply.Array(all.size());
    for (const CommandSpec& spec : all) ReplyCommandInfo(ctx.reply, spec);
    return;
  }
  const std::string& sub = ctx.argv[1];
  std::span<const std::string> names = ctx.argv.subspan(2);
  if (EqualsIgnoreCase(sub, "COUNT")) {
    if (!names.empty()) {
      ReplyWrongArity(ctx.reply, "command|count");
      return;
    }
    ctx.reply.Int(static_cast<int64_t>(all.size()));
  } else if (EqualsIgnoreCase(sub, "LIST")) {
    if (!names.empty()) {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
    ctx.reply.Array(all.size());
    for (const CommandSpec& spec : all) ctx.reply.Bulk(spec.name);
  } else if (EqualsIgnoreCase(sub, "INFO")) {
    if (names.empty()) {
      ctx.reply.Array(all.size());
      for (const CommandSpec& spec : all) ReplyCommandInfo(ctx.reply, spec);
      return;
    }
    ctx.reply.Array(names.size());
    for (const std::string& name : names) {
      const CommandSpec* spec = FindCommand(name);
      if (spec == nullptr) {
        ctx.reply.NullArray();
      } else {
        ReplyCommandInfo(ctx.reply, *spec);
      }
    }
  } else if (EqualsIgnoreCase(sub, "GETKEYS")) {
    if (names.empty()) {
      ReplyWrongArity(ctx.reply, "command|getkeys");
      return;
    }
    CommandGetKeys(ctx);
  } else if (EqualsIgnoreCase(sub, "DOCS")) {
    // Unknown names are left out, as Redis does.
    std::vector<const CommandSpec*> specs;
    if (names.empty()) {
      for (const CommandSpec& spec : all) specs.push_back(&spec);
    }
    for (const std::string& name : names) {
      if (const CommandSpec* spec = FindCommand(name)) specs.push_back(spec);
    }
    ctx.reply.Array(2 * specs.size());
    for (const CommandSpec* spec : specs) {
      ctx.reply.Bulk(spec->name);
      ReplyCommandDocs(ctx.reply, *spec);
    }
  } else if (EqualsIgnoreCase(sub, "HELP")) {
    ctx.reply.Array(std::size(kCommandHelp));
    for (std::string_view line : kCommandHelp) ctx.reply.Simple(line);
  } else {
    ReplyUnknownSubcommand(ctx.reply, "command", sub);
  }
}

// INFO [section ...]: no section, "default", "all" or "everything" give
// every section; unknown sections give nothing (an empty string).
void Info(CommandContext& ctx) {
  bool wanted[std::size(kSections)] = {};
  bool any = ctx.argv.size() == 1;
  for (size_t i = 1; i < ctx.argv.size(); ++i) {
    const std::string& name = ctx.argv[i];
    if (EqualsIgnoreCase(name, "all") || EqualsIgnoreCase(name, "default") ||
        EqualsIgnoreCase(name, "everything")) {
      any = true;
    }
    for (size_t s = 0; s < std::size(kSections); ++s) {
      if (EqualsIgnoreCase(name, kSections[s].first)) wanted[s] = true;
    }
  }
  std::string out;
  for (size_t s = 0; s < std::size(kSections); ++s) {
    if (!any && !wanted[s]) continue;
    if (!out.empty()) out += "\r\n";
    kSections[s].second(ctx, out);
  }
  ctx.reply.Bulk(out);
}

}  // namespace frontier::commands
