// What a command handler gets and what it can ask of the event loop.
//
// A handler reads its arguments, calls the Frontier, writes exactly one
// reply through `reply`, and records in `effects` anything the loop must do
// afterwards (close the connection, block the client, shut down). It never
// touches sockets or other clients: there is no server object to reach.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "protocol/reply_writer.h"
#include "server/config.h"
#include "server/server_stats.h"
#include "storage/frontier.h"

namespace frontier {

// Identity of one client connection (CLIENT ID/SETNAME/GETNAME/SETINFO).
struct ClientInfo {
  uint64_t id = 0;
  std::string address;  // "ip:port" of the peer
  std::string name;     // "" = unset
  std::string lib_name, lib_ver;
  int64_t created_ms = 0;
};

// A BPOP that found nothing: wait for URLs until `deadline_ms`.
struct BlockRequest {
  int64_t deadline_ms = 0;  // wall clock; 0 = wait forever
  size_t count = 1;
  bool with_count = false;  // reply shape, see ReplyPopped
  int64_t lease_ms = 0;     // 0 = lease-timeout
};

struct CommandEffects {
  bool close_after_reply = false;       // QUIT
  std::optional<BlockRequest> block;    // BPOP with nothing ready
  std::optional<bool> shutdown_nosave;  // SHUTDOWN [NOSAVE]
};

struct CommandContext {
  std::span<const std::string> argv;  // argv[0] is the command name
  ReplyWriter& reply;
  Frontier& frontier;
  const Config& config;
  const ServerStats& stats;
  ClientInfo& client;
  int64_t now_ms;  // wall clock, read once per command
  CommandEffects& effects;
};

using CommandHandler = void (*)(CommandContext& ctx);

}  // namespace frontier
