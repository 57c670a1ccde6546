// Housekeeping that clients send on connect or operators type:
// PING ECHO QUIT SELECT DBSIZE TIME SHUTDOWN BACKUP.
#include <chrono>
#include <string>

#include "server/args.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/log.h"
#include "server/reply.h"

namespace frontier::commands {

// PING [message]. In subscribed mode, as Redis (RESP2), an array
// ["pong", message or ""], which a subscriber's reader takes as a push.
void Ping(CommandContext& ctx) {
  if (ctx.argv.size() > 2) {
    ReplyWrongArity(ctx.reply, "ping");
  } else if (ctx.client.subscribed) {
    ctx.reply.Array(2);
    ctx.reply.Bulk("pong");
    ctx.reply.Bulk(ctx.argv.size() == 2 ? std::string_view(ctx.argv[1]) : "");
  } else if (ctx.argv.size() == 2) {
    ctx.reply.Bulk(ctx.argv[1]);
  } else {
    ctx.reply.Simple("PONG");
  }
}

// ECHO message
void Echo(CommandContext& ctx) { ctx.reply.Bulk(ctx.argv[1]); }

// QUIT: +OK, then the loop closes the connection once the reply is sent.
void Quit(CommandContext& ctx) {
  ctx.reply.Ok();
  ctx.effects.close_after_reply = true;
}

// SELECT index: there is one database, 0.
void Select(CommandContext& ctx) {
  std::optional<int64_t> index = ParseInt64(ctx.argv[1]);
  if (!index) {
    ctx.reply.Error(errors::kNotInteger);
  } else if (*index != 0) {
    ctx.reply.Error(errors::kDbIndexOutOfRange);
  } else {
    ctx.reply.Ok();
  }
}

// DBSIZE: the number of known URLs.
void DbSize(CommandContext& ctx) {
  ctx.reply.Int(static_cast<int64_t>(ctx.frontier.Stats().urls));
}

// TIME: [unix seconds, microseconds] as bulk strings.
void Time(CommandContext& ctx) {
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count();
  ctx.reply.Array(2);
  ctx.reply.Bulk(std::to_string(us / 1'000'000));
  ctx.reply.Bulk(std::to_string(us % 1'000'000));
}

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE]. Like Redis, success sends no reply:
// the loop stops, checkpoints (unless NOSAVE) and the connection closes.
void Shutdown(CommandContext& ctx) {
  bool nosave = false, save = false;
  for (size_t i = 1; i < ctx.argv.size(); ++i) {
    const std::string& word = ctx.argv[i];
    if (EqualsIgnoreCase(word, "NOSAVE")) {
      nosave = true;
    } else if (EqualsIgnoreCase(word, "SAVE")) {
      save = true;
    } else if (EqualsIgnoreCase(word, "NOW") ||
               EqualsIgnoreCase(word, "FORCE")) {
      // Nothing to wait for or force: accepted for compatibility.
    } else if (EqualsIgnoreCase(word, "ABORT") && ctx.argv.size() == 2) {
      ctx.reply.Error(errors::kNoShutdownInProgress);
      return;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  if (nosave && save) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  ctx.effects.shutdown_nosave = nosave;
}

// BACKUP path: a consistent copy of the data directory in `path`, an
// absolute path that does not exist yet or is an empty directory (see
// Frontier::BeginBackup). The copy runs on a thread of its own while the
// loop serves other clients; this client gets +OK once the copy is
// complete, recovered and on disk (docs/operations.md, "Backup and restore"). A bad
// path is "-ERR backup target ...", a second BACKUP while one runs "-ERR a
// backup is already in progress ...", a failed copy "-ERR storage error:
// ...".
void Backup(CommandContext& ctx) {
  Status s = ctx.server.StartBackup(ctx.argv[1], ctx.client.id);
  if (!s.ok()) {
    Log(LogLevel::kWarning, "BACKUP to %s refused: %s", ctx.argv[1].c_str(),
        s.ToString().c_str());
    ReplyStatus(ctx.reply, s);
    return;
  }
  ctx.effects.await_backup = true;
}

}  // namespace frontier::commands
