// StatsSources: what the HTTP side reads to answer /metrics and
// /api/stats. Everything is borrowed from the Server, which outlives the
// HTTP listener; nothing here is written.
#pragma once

#include "server/command_context.h"
#include "server/config.h"
#include "server/pubsub.h"
#include "server/server_stats.h"
#include "storage/frontier.h"

namespace frontier {

struct StatsSources {
  const Config& config;
  const Frontier& frontier;
  const ServerStats& stats;
  const ServerControl& control;  // for the list of clients
  const PubSub& pubsub;
};

}  // namespace frontier
