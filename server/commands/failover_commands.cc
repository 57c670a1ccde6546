// FAILOVER: a planned hand-over of the master role in a replication group
// (docs/replication.md, "Moving the master on purpose"), in the shape of
// Redis 6.2's FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms], and
// REPLICATION TAKEOVER, the internal command the master sends the target.
// The hand-over itself runs on the loop: server/server_handover.cc.
#include <string>

#include "server/args.h"
#include "server/commands/commands.h"
#include "server/reply.h"

namespace frontier::commands {
namespace {

// Without TIMEOUT: how long the target has to catch up and take over.
constexpr int64_t kDefaultTimeoutMs = 5000;
constexpr int64_t kMaxTimeoutMs = 600000;

}  // namespace

void Failover(CommandContext& ctx) {
  std::string target;
  bool abort = false;
  std::optional<int64_t> timeout;
  for (size_t i = 1; i < ctx.argv.size(); ++i) {
    const std::string word = ToLower(ctx.argv[i]);
    if (word == "to" && i + 2 < ctx.argv.size() && target.empty()) {
      const std::optional<int64_t> port = ParseInt64(ctx.argv[i + 2]);
      if (!port || *port <= 0 || *port > 65535) {
        ctx.reply.Error("ERR invalid port '" + std::string(ctx.argv[i + 2]) +
                        "'");
        return;
      }
      const std::string& host = ctx.argv[i + 1];
      target = host.find(':') != std::string::npos
                   ? "[" + host + "]:" + std::to_string(*port)
                   : host + ":" + std::to_string(*port);
      i += 2;
    } else if (word == "timeout" && i + 1 < ctx.argv.size() && !timeout) {
      timeout = ParseInt64(ctx.argv[++i]);
      if (!timeout || *timeout <= 0 || *timeout > kMaxTimeoutMs) {
        ctx.reply.Error("ERR FAILOVER timeout must be an integer of ms from "
                        "1 to " + std::to_string(kMaxTimeoutMs));
        return;
      }
    } else if (word == "abort" && !abort) {
      abort = true;
    } else if (word == "force") {
      ctx.reply.Error(
          "ERR FAILOVER FORCE is not supported: the target takes over only "
          "once it has the master's whole log, so that no acknowledged "
          "write is lost");
      return;
    } else {
      ctx.reply.Error(
          "ERR syntax error: FAILOVER [TO host port] [TIMEOUT ms] | "
          "FAILOVER ABORT");
      return;
    }
  }
  if (abort) {
    if (!target.empty() || timeout) {
      ctx.reply.Error("ERR FAILOVER ABORT takes no other argument");
      return;
    }
    Status s = ctx.server.AbortHandover();
    if (!s.ok()) {
      ctx.reply.Error("ERR " + s.message());
      return;
    }
    ctx.reply.Ok();
    return;
  }
  Status s = ctx.server.StartHandover(target, timeout.value_or(kDefaultTimeoutMs),
                                      ctx.client.id);
  if (!s.ok()) {
    ctx.reply.Error("ERR " + s.message());
    return;
  }
  ctx.effects.await_handover = true;  // answered when it ends
}

// REPLICATION TAKEOVER offset deadline-ms: sent by a master handing its
// role to this replica; see ServerControl::TakeOverMaster.
void ReplicationTakeover(CommandContext& ctx) {
  const bool shaped = ctx.argv.size() == 4;
  const std::optional<int64_t> offset =
      shaped ? ParseInt64(ctx.argv[2]) : std::nullopt;
  const std::optional<int64_t> deadline =
      shaped ? ParseInt64(ctx.argv[3]) : std::nullopt;
  if (!offset || *offset < 0 || !deadline) {
    ctx.reply.Error(
        "ERR syntax error: REPLICATION TAKEOVER offset deadline-ms (sent by "
        "a master in FAILOVER to its target)");
    return;
  }
  Status s =
      ctx.server.TakeOverMaster(static_cast<uint64_t>(*offset), *deadline);
  if (!s.ok()) {
    // The log still short: TRYAGAIN, which the master asks again on.
    if (s.IsTryAgain()) {
      ReplyStatus(ctx.reply, s);
    } else {
      ctx.reply.Error("ERR " + s.message());
    }
    return;
  }
  ctx.reply.Ok();
}

}  // namespace frontier::commands
