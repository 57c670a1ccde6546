// Which shard of the cluster a command is for (docs/cluster.md): the keys
// of a command (KeySpec: URLs, sites, origins) are placed by their site's
// slot, and a key written "{site}url" by a Redis Cluster client carries
// the site in its hash tag. Pure: the command and the map in, a decision
// out; no sockets, no storage.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/cluster_state.h"
#include "server/command_table.h"
#include "url/url.h"

namespace frontier {

// How a key is read: the site scope and URL length limit of the storage.
struct SiteRules {
  SiteScope scope = SiteScope::kHost;
  size_t max_url_length = 0;
};

// The site of a key as the storage names it: a URL's (or an origin's)
// site, or the site of a bare host or domain; nullopt if the key is none
// of these (the command's handler then says what is wrong with it).
std::optional<std::string> SiteOfKey(std::string_view key,
                                     const SiteRules& rules);

// CLUSTER KEYSLOT: the slot of a key written "{tag}..." is the tag's (as
// Redis); of a URL, a site or an origin, its site's; of anything else,
// Redis's key slot of the whole key.
int SlotOfKey(std::string_view key, const SiteRules& rules);

struct RouteDecision {
  enum class Kind {
    kHere,     // run here: the keys are this node's shard's, or none
    kMoved,    // a tagged key of another shard: reply `error` (MOVED)
    kForward,  // plain keys of another shard: forward to `shard`
    kFanOut,   // MSEEN of plain keys of several shards: see `parts`
    kError,    // reply `error` (a wrong tag, keys of several shards)
  };
  Kind kind = Kind::kHere;
  size_t shard = 0;
  // kMoved, kError: the whole error line; kForward: the MOVED line, for
  // a client that must not be forwarded (another node's link).
  std::string error;
  // kHere with tagged keys: argv with every "{site}" prefix taken off, for
  // the handler; empty when argv runs as it is.
  std::vector<std::string> stripped;
  // kFanOut: per shard, the argv positions of its keys (a key that is no
  // URL goes with this node's shard, whose handler names its error).
  std::vector<std::pair<size_t, std::vector<size_t>>> parts;
};

// Where `argv`, a command of `spec`, runs in the cluster `state`. A MADD
// runs where its ref lives (its KeySpec names the ref only, for COMMAND;
// a ref that is no URL runs here): its handler sends the links of other
// shards there (SplitLinks), but their hash tags are checked and taken
// off here too. An MSEEN of plain keys of several shards is split
// (kFanOut); any other command with keys of several shards is refused
// (CROSSSLOT).
RouteDecision DecideRoute(const CommandSpec& spec,
                          std::span<const std::string> argv,
                          const ClusterState& state, const SiteRules& rules);

// MADD's links by owner (docs/cluster.md): per shard, this node's first,
// the indices in `urls` of its links. A link that is no URL goes with
// this node's shard, whose storage names its error.
std::vector<std::pair<size_t, std::vector<size_t>>> SplitLinks(
    std::span<const std::string_view> urls, const ClusterState& state,
    const SiteRules& rules);

}  // namespace frontier
