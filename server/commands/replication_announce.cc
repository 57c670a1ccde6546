// REPLICATION ANNOUNCE: the internal command by which a replica tells its
// master where clients reach it (docs/replication.md, "Finding the
// master"; server/replication_announcer.h sends it). Only a site of the
// group may be named, only the master takes it, and only a client that
// may run admin commands may send it (REPLICATION is admin-only: a
// replica logs in with cluster-auth-user/-pass or requirepass).
#include <string>

#include "server/commands/commands.h"

namespace frontier::commands {

// REPLICATION ANNOUNCE repl-address client-address
void ReplicationAnnounce(CommandContext& ctx) {
  if (ctx.argv.size() != 4) {
    ctx.reply.Error(
        "ERR syntax error: REPLICATION ANNOUNCE repl-address "
        "client-address (sent by a replica to its master)");
    return;
  }
  Status s = ctx.server.NoteReplicaAddress(ctx.argv[2], ctx.argv[3]);
  if (!s.ok()) {
    ctx.reply.Error("ERR " + s.message());
    return;
  }
  ctx.reply.Simple("OK");
}

}  // namespace frontier::commands
