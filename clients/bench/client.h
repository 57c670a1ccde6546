// The spelling of the frontier verbs for each target: frontierd's own
// commands, or FCALLs of the Redis Functions peer in redis_frontier.lua. The
// connection itself is clients/common/resp_connection.h.
#pragma once

#include <string_view>
#include <vector>

#include "common/resp_connection.h"
#include "options.h"

namespace bench {

using frontier_client::CommandArgs;
using frontier_client::Connection;
using frontier_client::ReplyPtr;

// Builds the command for each verb. The Redis peer's keys are passed as
// KEYS, as Redis Functions expect.
class Verbs {
 public:
  explicit Verbs(Target target) : target_(target) {}

  void Add(CommandArgs& a, std::string_view url) const;
  void Madd(CommandArgs& a, std::string_view ref,
            const std::vector<std::string_view>& urls) const;
  // count 0: the single form (bulk or nil reply); else an array reply.
  void Pop(CommandArgs& a, int count) const;
  void Confirm(CommandArgs& a, std::string_view url) const;
  // Flat array of counter name/value pairs (STATS, or the peer's fstats).
  void Stats(CommandArgs& a) const;

 private:
  Target target_;
};

}  // namespace bench
