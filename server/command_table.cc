#include "server/command_table.h"

#include <array>
#include <unordered_map>

#include "server/args.h"
#include "server/commands/commands.h"
#include "server/reply.h"

namespace frontier {
namespace {

namespace c = commands;

constexpr uint32_t kW = kCmdWrite, kR = kCmdReadOnly, kA = kCmdAdmin,
                   kF = kCmdFast, kB = kCmdBlocking;

// THE command table. Adding a command is one line here plus its handler.
constexpr std::array kCommands = {
    // Frontier verbs.
    CommandSpec{"add", c::Add, -2, kW, "frontier",
                "Adds a URL, optionally with its referrer, priority and "
                "recrawl period."},
    CommandSpec{"madd", c::MAdd, -3, kW, "frontier",
                "Adds the links of one page in one transaction."},
    CommandSpec{"pop", c::Pop, -1, kW, "frontier",
                "Leases the next URL(s) from ready sites."},
    CommandSpec{"bpop", c::BPop, -2, kW | kB, "frontier",
                "Like POP, but waits up to a timeout for a URL."},
    CommandSpec{"confirm", c::Confirm, 2, kW | kF, "frontier",
                "Marks a URL as fetched."},
    CommandSpec{"fail", c::Fail, -2, kW | kF, "frontier",
                "Reports a failed fetch of a leased URL."},
    CommandSpec{"recrawl", c::Recrawl, 3, kW | kF, "frontier",
                "Sets or clears a URL's recrawl period."},
    CommandSpec{"seen", c::Seen, 2, kR | kF, "frontier",
                "Tells whether a URL is known."},
    CommandSpec{"urlinfo", c::UrlInfo, 2, kR | kF, "frontier",
                "Returns a URL's record."},
    CommandSpec{"delay", c::Delay, 3, kW | kF, "frontier",
                "Sets a site's politeness delay."},
    CommandSpec{"stats", c::Stats, 1, kR | kF, "frontier",
                "Returns the frontier's counters."},
    // Connection and server housekeeping.
    CommandSpec{"ping", c::Ping, -1, kF, "connection", "Pings the server."},
    CommandSpec{"echo", c::Echo, 2, kF, "connection",
                "Returns the given string."},
    CommandSpec{"quit", c::Quit, -1, kF, "connection",
                "Closes the connection."},
    CommandSpec{"select", c::Select, 2, kF, "connection",
                "Selects database 0 (the only one)."},
    CommandSpec{"client", c::Client, -2, 0, "connection",
                "CLIENT ID|SETNAME|GETNAME|SETINFO|INFO."},
    CommandSpec{"hello", c::Hello, -1, kF, "connection",
                "Handshakes with the server (RESP2 only)."},
    CommandSpec{"dbsize", c::DbSize, 1, kR | kF, "server",
                "Returns the number of known URLs."},
    CommandSpec{"time", c::Time, 1, kF, "server", "Returns the server time."},
    CommandSpec{"info", c::Info, -1, 0, "server",
                "Returns information and statistics about the server."},
    CommandSpec{"command", c::Command, -1, 0, "server",
                "Returns details about commands."},
    CommandSpec{"shutdown", c::Shutdown, -1, kA, "server",
                "Checkpoints and stops the server."},
};

constexpr std::pair<uint32_t, std::string_view> kFlagNames[] = {
    {kCmdWrite, "write"}, {kCmdReadOnly, "readonly"}, {kCmdAdmin, "admin"},
    {kCmdFast, "fast"},   {kCmdBlocking, "blocking"},
};

// Longest command name we look up; longer names are unknown.
constexpr size_t kMaxNameLen = 16;

}  // namespace

std::span<const CommandSpec> Commands() { return kCommands; }

const CommandSpec* FindCommand(std::string_view name) {
  static const std::unordered_map<std::string_view, const CommandSpec*>
      kByName = [] {
        std::unordered_map<std::string_view, const CommandSpec*> map;
        for (const CommandSpec& spec : kCommands) map[spec.name] = &spec;
        return map;
      }();
  if (name.size() > kMaxNameLen) return nullptr;
  // Lower-case into a stack buffer: no allocation per command.
  char lower[kMaxNameLen];
  for (size_t i = 0; i < name.size(); ++i) {
    char ch = name[i];
    lower[i] =
        (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch - 'A' + 'a') : ch;
  }
  auto it = kByName.find(std::string_view(lower, name.size()));
  return it == kByName.end() ? nullptr : it->second;
}

bool ArityAccepts(int arity, size_t argc) {
  if (arity >= 0) return argc == static_cast<size_t>(arity);
  return argc >= static_cast<size_t>(-arity);
}

std::vector<std::string_view> CommandFlagNames(uint32_t flags) {
  std::vector<std::string_view> names;
  for (const auto& [bit, name] : kFlagNames) {
    if (flags & bit) names.push_back(name);
  }
  return names;
}

const CommandSpec* RunCommand(CommandContext& ctx) {
  const CommandSpec* spec = FindCommand(ctx.argv[0]);
  if (spec == nullptr) {
    ReplyUnknownCommand(ctx.reply, ctx.argv);
    return nullptr;
  }
  if (!ArityAccepts(spec->arity, ctx.argv.size())) {
    ReplyWrongArity(ctx.reply, spec->name);
    return nullptr;
  }
  spec->handler(ctx);
  return spec;
}

}  // namespace frontier
