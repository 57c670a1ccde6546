// Connections: AUTH, CLIENT ID|SETNAME|GETNAME|SETINFO|INFO|LIST|KILL|HELP,
// HELLO, RESET.
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/args.h"
#include "server/auth.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/log.h"
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

// One CLIENT LIST / CLIENT INFO line, with Redis 7.2's fields in Redis's
// order so that tools written for Redis parse it. Fields that describe
// Redis features frontierd lacks (MULTI, redirection, shard channels) have
// their "unused" values; memory fields count the bytes frontierd holds.
std::string ClientLine(const ClientSnapshot& s, const PubSub& pubsub,
                       int64_t now_ms) {
  const ClientInfo& c = s.info;
  int64_t last =
      c.last_interaction_ms > 0 ? c.last_interaction_ms : c.created_ms;
  std::string flags;
  if (c.subscribed) flags += 'P';
  if (s.blocked) flags += 'b';
  if (s.closing) flags += 'c';
  if (flags.empty()) flags = "N";
  auto n = [](uint64_t v) { return std::to_string(v); };
  std::string line;
  line += "id=" + n(c.id);
  line += " addr=" + c.address;
  line += " laddr=" + c.local_address;
  line += " fd=" + std::to_string(c.fd);
  line += " name=" + c.name;
  line += " age=" + std::to_string((now_ms - c.created_ms) / 1000);
  line += " idle=" + std::to_string(std::max<int64_t>(now_ms - last, 0) / 1000);
  line += " flags=" + flags;
  line += " db=0 sub=" + n(pubsub.ChannelCount(c.id));
  line += " psub=" + n(pubsub.PatternCount(c.id)) + " ssub=0 multi=-1";
  line += " qbuf=" + n(s.query_buffer) + " qbuf-free=0 argv-mem=0";
  line += " multi-mem=0 rbs=0 rbp=0";
  line += " obl=0 oll=0 omem=" + n(s.output);
  line += " tot-mem=" + n(s.query_buffer + s.output);
  line += s.output > 0 ? " events=rw" : " events=r";
  line +=
      " cmd=" + (c.last_command.empty() ? std::string("NULL") : c.last_command);
  line += " user=" + c.user;
  line += " redir=-1 resp=2";
  line += " lib-name=" + c.lib_name + " lib-ver=" + c.lib_ver;
  line += '\n';
  return line;
}

// Authenticates the connection as `user`; false (and nothing changed) if
// the pair is wrong. Logs failures without the password, and without the
// user name unless it names a configured user (it might be a password
// typed in the wrong place).
bool LogIn(CommandContext& ctx, std::string_view user,
           std::string_view password) {
  std::optional<Role> role = Authenticate(ctx.config, user, password);
  if (!role) {
    bool known = user == "default";
    for (const UserSpec& spec : ctx.config.users) known |= spec.name == user;
    Log(LogLevel::kVerbose, "Failed AUTH for %s%s%s from %s (client id=%llu)",
        known ? "user '" : "an unknown user",
        known ? std::string(user).c_str() : "", known ? "'" : "",
        ctx.client.address.c_str(),
        static_cast<unsigned long long>(ctx.client.id));
    return false;
  }
  ctx.client.authenticated = true;
  ctx.client.user = std::string(user);
  ctx.client.role = *role;
  ctx.client.crawl_patterns.clear();
  for (const UserSpec& spec : ctx.config.users) {
    if (spec.name == user) ctx.client.crawl_patterns = spec.crawls;
  }
  return true;
}

// CLIENT KILL addr | CLIENT KILL <filter> <value> ...: the clients to kill
// (self included if it matches), or an error reply already written.
std::optional<std::vector<uint64_t>> ClientsToKill(CommandContext& ctx,
                                                   bool* old_form) {
  std::vector<ClientSnapshot> clients = ctx.server.Clients();
  std::vector<uint64_t> ids;
  if (ctx.argv.size() == 3) {  // CLIENT KILL ip:port
    *old_form = true;
    for (const ClientSnapshot& c : clients) {
      if (c.info.address == ctx.argv[2]) ids.push_back(c.info.id);
    }
    return ids;
  }
  *old_form = false;
  if (ctx.argv.size() % 2 != 0) {
    ctx.reply.Error(errors::kSyntax);
    return std::nullopt;
  }
  std::optional<uint64_t> id;
  std::optional<std::string_view> addr, laddr, user;
  bool skipme = true;
  for (size_t i = 2; i < ctx.argv.size(); i += 2) {
    const std::string& filter = ctx.argv[i];
    const std::string& value = ctx.argv[i + 1];
    if (EqualsIgnoreCase(filter, "id")) {
      std::optional<int64_t> n = ParseInt64(value);
      if (!n || *n <= 0) {
        ctx.reply.Error(errors::kClientIdInvalid);
        return std::nullopt;
      }
      id = static_cast<uint64_t>(*n);
    } else if (EqualsIgnoreCase(filter, "addr")) {
      addr = value;
    } else if (EqualsIgnoreCase(filter, "laddr")) {
      laddr = value;
    } else if (EqualsIgnoreCase(filter, "user")) {
      user = value;
    } else if (EqualsIgnoreCase(filter, "skipme") &&
               (EqualsIgnoreCase(value, "yes") ||
                EqualsIgnoreCase(value, "no"))) {
      skipme = EqualsIgnoreCase(value, "yes");
    } else {
      ctx.reply.Error(errors::kSyntax);
      return std::nullopt;
    }
  }
  for (const ClientSnapshot& c : clients) {
    if (id && c.info.id != *id) continue;
    if (addr && c.info.address != *addr) continue;
    if (laddr && c.info.local_address != *laddr) continue;
    if (user && c.info.user != *user) continue;
    if (skipme && c.info.id == ctx.client.id) continue;
    ids.push_back(c.info.id);
  }
  return ids;
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
    "LIST [TYPE normal|pubsub] [ID <client-id> ...]",
    "    Return information about client connections (admin only).",
    "KILL <ip:port>",
    "    Kill connection made from <ip:port> (admin only).",
    "KILL <option> <value> [<option> <value> [...]]",
    "    Kill connections (admin only). Options are:",
    "    * ID <client-id>",
    "    * ADDR <ip:port>",
    "    * LADDR <ip:port>",
    "    * USER <username>",
    "    * SKIPME (YES|NO)",
    "      Skip killing the current connection (default: yes).",
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
    ClientSnapshot self;
    self.info = ctx.client;
    ctx.reply.Bulk(ClientLine(self, ctx.pubsub, ctx.now_ms));
  } else if (named("list")) {
    // CLIENT LIST [TYPE normal|pubsub] [ID id ...]: a client in
    // subscribed mode is "pubsub", every other one "normal".
    std::optional<std::vector<uint64_t>> only_ids;
    std::optional<bool> subscribed;
    bool none = false;
    for (size_t i = 2; i < ctx.argv.size(); ++i) {
      if (EqualsIgnoreCase(ctx.argv[i], "type") && i + 1 < ctx.argv.size()) {
        const std::string& type = ctx.argv[++i];
        if (EqualsIgnoreCase(type, "replica") ||
            EqualsIgnoreCase(type, "slave") ||
            EqualsIgnoreCase(type, "master")) {
          none = true;
        } else if (EqualsIgnoreCase(type, "pubsub") ||
                   EqualsIgnoreCase(type, "normal")) {
          subscribed = EqualsIgnoreCase(type, "pubsub");
        } else {
          ctx.reply.Error("ERR Unknown client type '" + type + "'");
          return;
        }
      } else if (EqualsIgnoreCase(ctx.argv[i], "id") &&
                 i + 1 < ctx.argv.size()) {
        only_ids.emplace();
        for (++i; i < ctx.argv.size(); ++i) {
          std::optional<int64_t> id = ParseInt64(ctx.argv[i]);
          if (!id || *id <= 0) {
            ctx.reply.Error("ERR Invalid client ID");
            return;
          }
          only_ids->push_back(static_cast<uint64_t>(*id));
        }
      } else {
        ctx.reply.Error(errors::kSyntax);
        return;
      }
    }
    std::string out;
    for (const ClientSnapshot& c : ctx.server.Clients()) {
      if (none) break;
      if (subscribed && c.info.subscribed != *subscribed) continue;
      if (only_ids && std::find(only_ids->begin(), only_ids->end(),
                                c.info.id) == only_ids->end()) {
        continue;
      }
      out += ClientLine(c, ctx.pubsub, ctx.now_ms);
    }
    ctx.reply.Bulk(out);
  } else if (named("kill")) {
    if (ctx.argv.size() < 3) {
      ReplyWrongArity(ctx.reply, "client|kill");
      return;
    }
    bool old_form = false;
    std::optional<std::vector<uint64_t>> ids = ClientsToKill(ctx, &old_form);
    if (!ids) return;
    if (old_form && ids->empty()) {
      ctx.reply.Error(errors::kNoSuchClient);
      return;
    }
    int64_t killed = 0;
    for (uint64_t id : *ids) {
      if (id == ctx.client.id) {
        ctx.effects.close_after_reply = true;  // after this reply, as Redis
        ++killed;
      } else if (ctx.server.KillClient(id)) {
        ++killed;
      }
    }
    if (old_form) {
      ctx.reply.Ok();
    } else {
      ctx.reply.Int(killed);
    }
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
  std::optional<std::pair<std::string_view, std::string_view>> credentials;
  for (; i < ctx.argv.size(); ++i) {
    const std::string& opt = ctx.argv[i];
    size_t left = ctx.argv.size() - i - 1;
    if (EqualsIgnoreCase(opt, "AUTH") && left >= 2) {
      credentials.emplace(ctx.argv[i + 1], ctx.argv[i + 2]);
      i += 2;
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
  // As Redis: credentials are checked before anything changes, and a
  // client that is not authenticated must give them.
  if (credentials) {
    if (!LogIn(ctx, credentials->first, credentials->second)) {
      ctx.reply.Error(errors::kWrongPass);
      return;
    }
  } else if (!ctx.client.authenticated) {
    ctx.reply.Error(errors::kHelloNoAuth);
    return;
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

// AUTH [username] password (Redis 6). A wrong pair leaves the connection
// as it was (authenticated or not).
void Auth(CommandContext& ctx) {
  if (ctx.argv.size() > 3) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  std::string_view user = "default";
  std::string_view password = ctx.argv[1];
  if (ctx.argv.size() == 3) {
    user = ctx.argv[1];
    password = ctx.argv[2];
  } else if (!AuthRequired(ctx.config)) {
    ctx.reply.Error(errors::kAuthNoPassword);
    return;
  }
  if (!LogIn(ctx, user, password)) {
    ctx.reply.Error(errors::kWrongPass);
    return;
  }
  ctx.reply.Ok();
}

// RESET: the connection as it was at connect, as Redis's RESET: every
// subscription dropped (without confirmations), the name cleared, and the
// default user again, so a server that requires AUTH wants it again.
// Library name and version stay: they still describe the client.
void Reset(CommandContext& ctx) {
  ctx.pubsub.RemoveClient(ctx.client.id);
  ctx.client.subscribed = false;
  ctx.client.reads_replica = false;
  ctx.client.name.clear();
  ctx.client.user = "default";
  ctx.client.authenticated = !AuthRequired(ctx.config);
  ctx.client.role = ctx.client.authenticated ? Role::kAdmin : Role::kNone;
  ctx.client.crawl = std::string(Frontier::kDefaultCrawl);
  ctx.client.crawl_patterns.clear();
  ctx.reply.Simple("RESET");
}

}  // namespace frontier::commands
