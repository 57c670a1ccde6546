// REPLICATION ANNOUNCE: the internal command by which a replica tells its
// master where clients reach it (docs/replication.md, "Finding the
// master"; server/replication_announcer.h sends it) and, once a second,
// where its log ends (server/replica_progress.h). Only a site of the
// group may be named, only the master takes it, and only a client that
// may run admin commands may send it (REPLICATION is admin-only: a
// replica logs in with cluster-auth-user/-pass or requirepass).
#include <string>

#include "server/args.h"
#include "server/commands/commands.h"

namespace frontier::commands {

// REPLICATION ANNOUNCE repl-address client-address [offset]
void ReplicationAnnounce(CommandContext& ctx) {
  if (ctx.argv.size() != 4 && ctx.argv.size() != 5) {
    ctx.reply.Error(
        "ERR syntax error: REPLICATION ANNOUNCE repl-address "
        "client-address [offset] (sent by a replica to its master)");
    return;
  }
  std::optional<uint64_t> offset;
  if (ctx.argv.size() == 5) {
    const std::optional<int64_t> n = ParseInt64(ctx.argv[4]);
    if (!n || *n < 0) {
      ctx.reply.Error("ERR invalid replication offset '" +
                      std::string(ctx.argv[4]) +
                      "': a non-negative integer");
      return;
    }
    offset = static_cast<uint64_t>(*n);
  }
  Status s = ctx.server.NoteReplicaAddress(ctx.argv[2], ctx.argv[3], offset);
  if (!s.ok()) {
    ctx.reply.Error("ERR " + s.message());
    return;
  }
  ctx.reply.Simple("OK");
}

}  // namespace frontier::commands
