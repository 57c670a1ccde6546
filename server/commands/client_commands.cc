// Connection identity: CLIENT ID|SETNAME|GETNAME|SETINFO|INFO|HELP, HELLO.
#include <array>
#include <string>

#include "server/args.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/reply.h"
#include "server/version.h"

namespace frontier::commands {
namespace {

// Redis's rule for client names and library names: printable ASCII
// without spaces ('!' .. '~'); an empty name clears it.
bool ValidClientName(std::string_view name) {
  for (char c : name) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

std::string ClientInfoLine(const ClientInfo& c, int64_t now_ms) {
  return "id=" + std::to_string(c.id) + " addr=" + c.address +
         " name=" + c.name +
         " age=" + std::to_string((now_ms - c.created_ms) / 1000) +
         " db=0 lib-name=" + c.lib_name + " lib-ver=" + c.lib_ver + "\n";
}

constexpr std::string_view kClientHelp[] = {
    "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "ID",
    "    Return the ID of the current connection.",
    "GETNAME",
    "    Return the name of the current connection.",
    "SETNAME <name>",
    "    Assign the name <name> to the current connection.",
    "SETINFO <LIB-NAME|LIB-VER> <value>",
    "    Set client library name or version.",
    "INFO",
    "    Return information about the current connection.",
    "HELP",
    "    Print this help.",
};

}  // namespace

// CLIENT subcommand [args]
void Client(CommandContext& ctx) {
  const std::string& sub = ctx.argv[1];
  auto named = [&](std::string_view name) {
    return EqualsIgnoreCase(sub, name);
  };
  // Subcommand arity, reported as Redis does ("client|setname").
  auto arity_ok = [&](size_t want, std::string_view full) {
    if (ctx.argv.size() == want) return true;
    ReplyWrongArity(ctx.reply, full);
    return false;
  };

  if (named("id")) {
    if (!arity_ok(2, "client|id")) return;
    ctx.reply.Int(static_cast<int64_t>(ctx.client.id));
  } else if (named("getname")) {
    if (!arity_ok(2, "client|getname")) return;
    if (ctx.client.name.empty()) {
      ctx.reply.Null();
    } else {
      ctx.reply.Bulk(ctx.client.name);
    }
  } else if (named("setname")) {
    if (!arity_ok(3, "client|setname")) return;
    if (!ValidClientName(ctx.argv[2])) {
      ctx.reply.Error(errors::kClientNameInvalid);
      return;
    }
    ctx.client.name = ctx.argv[2];
    ctx.reply.Ok();
  } else if (named("setinfo")) {
    if (!arity_ok(4, "client|setinfo")) return;
    const std::string& attr = ctx.argv[2];
    const std::string& value = ctx.argv[3];
    std::string* field =
        EqualsIgnoreCase(attr, "lib-name")  ? &ctx.client.lib_name
        : EqualsIgnoreCase(attr, "lib-ver") ? &ctx.client.lib_ver
                                            : nullptr;
    if (field == nullptr) {
      ctx.reply.Error(std::string(errors::kUnrecognizedOptionPrefix) + attr +
                      "'");
      return;
    }
    if (!ValidClientName(value)) {
      ctx.reply.Error(errors::kClientNameInvalid);
      return;
    }
    *field = value;
    ctx.reply.Ok();
  } else if (named("info")) {
    if (!arity_ok(2, "client|info")) return;
    ctx.reply.Bulk(ClientInfoLine(ctx.client, ctx.now_ms));
  } else if (named("help")) {
    if (!arity_ok(2, "client|help")) return;
    ctx.reply.Array(std::size(kClientHelp));
    for (std::string_view line : kClientHelp) ctx.reply.Simple(line);
  } else {
    ReplyUnknownSubcommand(ctx.reply, "client", sub);
  }
}

// HELLO [protover [AUTH username password] [SETNAME clientname]]
// Only RESP2 is spoken: no protover or 2 returns the server's map (as a
// flat array, as Redis does in RESP2); 3 and anything else get NOPROTO.
void Hello(CommandContext& ctx) {
  size_t i = 1;
  if (ctx.argv.size() > 1) {
    std::optional<int64_t> version = ParseInt64(ctx.argv[1]);
    if (!version) {
      ctx.reply.Error(errors::kProtoNotInteger);
      return;
    }
    if (*version != 2) {
      ctx.reply.Error(errors::kNoProto);
      return;
    }
    i = 2;
  }
  std::optional<std::string> new_name;
  for (; i < ctx.argv.size(); ++i) {
    const std::string& opt = ctx.argv[i];
    size_t left = ctx.argv.size() - i - 1;
    if (EqualsIgnoreCase(opt, "AUTH") && left >= 2) {
      i += 2;  // no authentication: any credentials are accepted
    } else if (EqualsIgnoreCase(opt, "SETNAME") && left >= 1) {
      new_name = ctx.argv[++i];
      if (!ValidClientName(*new_name)) {
        ctx.reply.Error(errors::kClientNameInvalid);
        return;
      }
    } else {
      ctx.reply.Error(std::string(errors::kHelloOptionPrefix) + opt + "'");
      return;
    }
  }
  if (new_name) ctx.client.name = *new_name;

  ctx.reply.Array(14);
  ctx.reply.Bulk("server");
  ctx.reply.Bulk("frontierd");
  ctx.reply.Bulk("version");
  ctx.reply.Bulk(kFrontierdVersion);
  ctx.reply.Bulk("proto");
  ctx.reply.Int(2);
  ctx.reply.Bulk("id");
  ctx.reply.Int(static_cast<int64_t>(ctx.client.id));
  ctx.reply.Bulk("mode");
  ctx.reply.Bulk("standalone");
  ctx.reply.Bulk("role");
  ctx.reply.Bulk("master");
  ctx.reply.Bulk("modules");
  ctx.reply.Array(0);
}

}  // namespace frontier::commands
