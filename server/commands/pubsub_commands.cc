// Pub/Sub: SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE PUBLISH PUBSUB, in
// Redis's RESP2 shapes (server/pubsub.h keeps the state). Each
// (un)subscription is confirmed by its own [kind, name, count] array; the
// client is in subscribed mode (ClientInfo::subscribed, which the command
// table checks) while its count is above zero.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/args.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/reply.h"

namespace frontier::commands {
namespace {

// Subscribes or unsubscribes one channel or pattern; returns the client's
// subscription count afterwards.
using Change = size_t (PubSub::*)(uint64_t client, std::string_view name);
// The client's channels or patterns.
using List = std::vector<std::string> (PubSub::*)(uint64_t client) const;

// The confirmation Redis sends for each name: [kind, name, count]; a nil
// name when an UNSUBSCRIBE / PUNSUBSCRIBE without arguments had nothing
// to drop.
void Confirm(CommandContext& ctx, std::string_view kind,
             const std::string* name, size_t count) {
  ctx.reply.Array(3);
  ctx.reply.Bulk(kind);
  if (name != nullptr) {
    ctx.reply.Bulk(*name);
  } else {
    ctx.reply.Null();
  }
  ctx.reply.Int(static_cast<int64_t>(count));
}

// Applies `change` to each of `names`, confirming each, and sets the
// client's subscribed mode from the count left.
void ChangeEach(CommandContext& ctx, std::string_view kind, Change change,
                std::span<const std::string> names) {
  const uint64_t id = ctx.client.id;
  for (const std::string& name : names) {
    Confirm(ctx, kind, &name, (ctx.pubsub.*change)(id, name));
  }
  ctx.client.subscribed =
      ctx.pubsub.ChannelCount(id) + ctx.pubsub.PatternCount(id) > 0;
}

// UNSUBSCRIBE / PUNSUBSCRIBE: the names given, or without any every name
// the client has (`all`), or a single [kind, nil, count] if it has none.
void UnsubscribeNamesOrAll(CommandContext& ctx, std::string_view kind,
                           Change change, List list) {
  std::span<const std::string> names = ctx.argv.subspan(1);
  if (!names.empty()) {
    ChangeEach(ctx, kind, change, names);
    return;
  }
  std::vector<std::string> all = (ctx.pubsub.*list)(ctx.client.id);
  if (!all.empty()) {
    ChangeEach(ctx, kind, change, all);
  } else {
    const uint64_t id = ctx.client.id;
    Confirm(ctx, kind, nullptr,
            ctx.pubsub.ChannelCount(id) + ctx.pubsub.PatternCount(id));
  }
}

constexpr std::string_view kPubSubHelp[] = {
    "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CHANNELS [<pattern>]",
    "    Return the currently active channels matching a <pattern> "
    "(default: '*').",
    "NUMPAT",
    "    Return number of subscriptions to patterns.",
    "NUMSUB [<channel> ...]",
    "    Return the number of subscribers for the specified channels, "
    "excluding",
    "    pattern subscriptions(default: no channels).",
    "HELP",
    "    Prints this help.",
};

}  // namespace

// SUBSCRIBE channel [channel ...]
void Subscribe(CommandContext& ctx) {
  ChangeEach(ctx, "subscribe", &PubSub::Subscribe, ctx.argv.subspan(1));
}

// UNSUBSCRIBE [channel ...]
void Unsubscribe(CommandContext& ctx) {
  UnsubscribeNamesOrAll(ctx, "unsubscribe", &PubSub::Unsubscribe,
                        &PubSub::ChannelsOf);
}

// PSUBSCRIBE pattern [pattern ...]
void PSubscribe(CommandContext& ctx) {
  ChangeEach(ctx, "psubscribe", &PubSub::PSubscribe, ctx.argv.subspan(1));
}

// PUNSUBSCRIBE [pattern ...]
void PUnsubscribe(CommandContext& ctx) {
  UnsubscribeNamesOrAll(ctx, "punsubscribe", &PubSub::PUnsubscribe,
                        &PubSub::PatternsOf);
}

// PUBLISH channel message: the number of clients that received it.
void Publish(CommandContext& ctx) {
  ctx.reply.Int(
      static_cast<int64_t>(ctx.pubsub.Publish(ctx.argv[1], ctx.argv[2])));
}

// PUBSUB CHANNELS [pattern] | NUMSUB [channel ...] | NUMPAT | HELP
void PubSubCommand(CommandContext& ctx) {
  const std::string& sub = ctx.argv[1];
  std::span<const std::string> rest = ctx.argv.subspan(2);
  if (EqualsIgnoreCase(sub, "CHANNELS")) {
    if (rest.size() > 1) {
      ReplyWrongArity(ctx.reply, "pubsub|channels");
      return;
    }
    std::optional<std::string_view> pattern;
    if (!rest.empty()) pattern = rest[0];
    std::vector<std::string> channels = ctx.pubsub.ActiveChannels(pattern);
    ctx.reply.Array(channels.size());
    for (const std::string& channel : channels) ctx.reply.Bulk(channel);
  } else if (EqualsIgnoreCase(sub, "NUMSUB")) {
    ctx.reply.Array(2 * rest.size());
    for (const std::string& channel : rest) {
      ctx.reply.Bulk(channel);
      ctx.reply.Int(static_cast<int64_t>(ctx.pubsub.NumSubscribers(channel)));
    }
  } else if (EqualsIgnoreCase(sub, "NUMPAT")) {
    if (!rest.empty()) {
      ReplyWrongArity(ctx.reply, "pubsub|numpat");
      return;
    }
    ctx.reply.Int(static_cast<int64_t>(ctx.pubsub.NumPatterns()));
  } else if (EqualsIgnoreCase(sub, "HELP")) {
    if (!rest.empty()) {
      ReplyWrongArity(ctx.reply, "pubsub|help");
      return;
    }
    ctx.reply.Array(std::size(kPubSubHelp));
    for (std::string_view line : kPubSubHelp) ctx.reply.Simple(line);
  } else {
    ReplyUnknownSubcommand(ctx.reply, "pubsub", sub);
  }
}

}  // namespace frontier::commands
