// Partitions (docs/commands.md#partitions): PARTITION LIST|INFO|HELP, HINT,
// and INFO's "# Partitions" section.
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "server/args.h"
#include "server/blocked_clients.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/partitions.h"
#include "server/reply.h"

namespace frontier::commands {
namespace {

constexpr std::string_view kPartitionHelp[] = {
    "PARTITION <subcommand> [<arg> ...]. Subcommands are:",
    "LIST",
    "    Return the names of the partitions, default first.",
    "INFO <name>",
    "    Return the partition's suffixes and counts as field/value pairs.",
    "HELP",
    "    Print this help.",
};

// BPOP clients waiting on a partition of the client's crawl.
WaitingFn WaitingOf(const CommandContext& ctx) {
  return [&ctx](std::string_view name) {
    BlockRequest line;
    if (ctx.client.crawl != Frontier::kDefaultCrawl) {
      line.crawl = ctx.client.crawl;
    }
    line.partition = std::string(name);
    return ctx.server.WaitingOn(BlockedClients::LineOf(line));
  };
}

void PartitionInfo(CommandContext& ctx, std::string_view name) {
  StatusOr<size_t> index = ResolvePartition(ctx.frontier, name);
  if (!index.ok()) {
    ReplyStatus(ctx.reply, index.status());
    return;
  }
  const PartitionStats s = ctx.frontier.PartitionInfo(*index);
  const std::pair<std::string_view, uint64_t> counts[] = {
      {"sites", s.sites},
      {"ready_sites", s.ready_sites},
      {"queued", s.queued},
      {"leased", s.leased},
      {"done", s.done},
      {"waiting", WaitersOf(ctx.frontier, *index, WaitingOf(ctx))},
      {"popped", s.popped},
      {"confirmed", s.confirmed},
  };
  ctx.reply.Array(2 * (1 + std::size(counts)));
  ctx.reply.Bulk("suffixes");
  const auto& suffixes = ctx.frontier.options().partitions.suffixes(*index);
  ctx.reply.Array(suffixes.size());
  for (const std::string& suffix : suffixes) ctx.reply.Bulk(suffix);
  for (const auto& [field, value] : counts) {
    ctx.reply.Bulk(field);
    ctx.reply.Int(static_cast<int64_t>(value));
  }
}

}  // namespace

// PARTITION LIST | INFO name | HELP
void PartitionCommand(CommandContext& ctx) {
  const std::string& sub = ctx.argv[1];
  const size_t argc = ctx.argv.size();
  if (EqualsIgnoreCase(sub, "list")) {
    if (argc != 2) return ReplyWrongArity(ctx.reply, "partition|list");
    const partition::PartitionMap& map = ctx.frontier.options().partitions;
    ctx.reply.Array(map.size());
    for (size_t i = 0; i < map.size(); ++i) ctx.reply.Bulk(map.name(i));
  } else if (EqualsIgnoreCase(sub, "info")) {
    if (argc != 3) return ReplyWrongArity(ctx.reply, "partition|info");
    PartitionInfo(ctx, ctx.argv[2]);
  } else if (EqualsIgnoreCase(sub, "help")) {
    if (argc != 2) return ReplyWrongArity(ctx.reply, "partition|help");
    ctx.reply.Array(std::size(kPartitionHelp));
    for (std::string_view line : kPartitionHelp) ctx.reply.Simple(line);
  } else {
    ReplyUnknownSubcommand(ctx.reply, "partition", sub);
  }
}

// HINT [PARTITION name]: [advice, n, ready_sites, leased, waiting]
void HintCommand(CommandContext& ctx) {
  static constexpr std::array<std::string_view, 1> kNames = {"PARTITION"};
  std::array<std::optional<std::string_view>, 1> values;
  if (!ParseNamedOptions(ctx.argv.subspan(1), kNames, values)) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  Hint hint;
  if (values[0]) {
    StatusOr<size_t> index = ResolvePartition(ctx.frontier, *values[0]);
    if (!index.ok()) {
      ReplyStatus(ctx.reply, index.status());
      return;
    }
    hint = CurrentHint(ctx.frontier, *index, WaitingOf(ctx));
  } else {
    hint = OverallHint(ctx.frontier, ctx.stats.blocked_clients);
  }
  // Field/value pairs, as URLINFO and STATS answer (issue 25 §3).
  const std::pair<std::string_view, uint64_t> counts[] = {
      {"n", hint.inputs.capacity},
      {"ready_sites", hint.inputs.ready_sites},
      {"leased", hint.inputs.leased},
      {"waiting", hint.inputs.waiting},
  };
  ctx.reply.Array(2 + 2 * std::size(counts));
  ctx.reply.Bulk("advice");
  ctx.reply.Bulk(partition::AdviceName(hint.advice));
  for (const auto& [name, value] : counts) {
    ctx.reply.Bulk(name);
    ctx.reply.Int(static_cast<int64_t>(value));
  }
}

// INFO's "# Partitions": a line per partition, as Redis's keyspace lines:
//   partition_<name>:sites=1,ready_sites=0,...,advice=steady,n=0
void PartitionsSection(const CommandContext& ctx, std::string& out) {
  out += "# Partitions\r\n";
  const partition::PartitionMap& map = ctx.frontier.options().partitions;
  const WaitingFn waiting = WaitingOf(ctx);
  for (size_t i = 0; i < map.size(); ++i) {
    const PartitionStats s = ctx.frontier.PartitionInfo(i);
    const Hint hint = CurrentHint(ctx.frontier, i, waiting);
    out += "partition_" + map.name(i) + ":sites=" + std::to_string(s.sites) +
           ",ready_sites=" + std::to_string(s.ready_sites) +
           ",queued=" + std::to_string(s.queued) +
           ",leased=" + std::to_string(s.leased) +
           ",done=" + std::to_string(s.done) +
           ",waiting=" + std::to_string(hint.inputs.waiting) +
           ",popped=" + std::to_string(s.popped) +
           ",confirmed=" + std::to_string(s.confirmed) +
           ",advice=" + std::string(partition::AdviceName(hint.advice)) +
           ",n=" + std::to_string(s.capacity) + "\r\n";
  }
}

}  // namespace frontier::commands
