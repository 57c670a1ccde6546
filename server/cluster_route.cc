#include "server/cluster_route.h"

#include <algorithm>

#include "cluster/key_slot.h"
#include "server/args.h"
#include "server/errors.h"

namespace frontier {
namespace {

// A key written "{tag}rest": the tag and the rest; nullopt for a key
// without a non-empty tag at its start.
struct Tagged {
  std::string_view tag;
  std::string_view rest;
};
std::optional<Tagged> SplitTag(std::string_view key) {
  if (key.size() < 3 || key[0] != '{') return std::nullopt;
  const size_t close = key.find('}');
  if (close == std::string_view::npos || close == 1) return std::nullopt;
  return Tagged{key.substr(1, close - 1), key.substr(close + 1)};
}

// The argument positions whose keys are read: KeySpec's, and MADD's links
// (MADD ref url... or MADD ref DATA url value...), whose hash tags are
// checked and taken off, though only the ref places a MADD.
std::vector<size_t> PlacingKeys(const CommandSpec& spec,
                                std::span<const std::string> argv) {
  std::vector<size_t> positions = KeyPositions(spec, argv);
  if (spec.name == "madd" && argv.size() > 2) {
    const bool data = EqualsIgnoreCase(argv[2], "DATA");
    for (size_t i = data ? 3 : 2; i < argv.size(); i += data ? 2 : 1) {
      positions.push_back(i);
    }
  }
  return positions;
}

// Puts `index` in the part of shard `owner`, a new one at the end if
// `parts` has none yet.
void AddToPart(std::vector<std::pair<size_t, std::vector<size_t>>>& parts,
               size_t owner, size_t index) {
  auto part = std::find_if(parts.begin(), parts.end(),
                           [owner](const auto& p) { return p.first == owner; });
  if (part == parts.end()) {
    parts.push_back({owner, {}});
    part = parts.end() - 1;
  }
  part->second.push_back(index);
}

}  // namespace

std::optional<std::string> SiteOfKey(std::string_view key,
                                     const SiteRules& rules) {
  if (key.find("://") != std::string_view::npos) {
    StatusOr<NormalizedUrl> url = NormalizeUrl(key, rules.max_url_length);
    if (!url.ok()) return std::nullopt;
    return SiteOf(url->host, rules.scope);
  }
  // A bare host or domain, read as the storage reads SITE's argument.
  if (key.empty() || key.find_first_of("/?#@") != std::string_view::npos) {
    return std::nullopt;
  }
  StatusOr<NormalizedUrl> url =
      NormalizeUrl("http://" + std::string(key) + "/", rules.max_url_length);
  if (!url.ok()) return std::nullopt;
  return SiteOf(url->host, rules.scope);
}

int SlotOfKey(std::string_view key, const SiteRules& rules) {
  if (SplitTag(key)) return cluster::KeySlot(key);
  if (std::optional<std::string> site = SiteOfKey(key, rules)) {
    return cluster::SiteSlot(*site);
  }
  return cluster::KeySlot(key);
}

RouteDecision DecideRoute(const CommandSpec& spec,
                          std::span<const std::string> argv,
                          const ClusterState& state, const SiteRules& rules) {
  RouteDecision decision;
  std::optional<size_t> shard;
  int first_slot = -1;
  bool tagged = false;
  bool several = false;
  std::vector<std::optional<size_t>> owners(argv.size());
  for (size_t pos : PlacingKeys(spec, argv)) {
    const std::string& key = argv[pos];
    int slot = -1;
    bool tag = false;
    if (std::optional<Tagged> t = SplitTag(key)) {
      std::optional<std::string> site = SiteOfKey(t->rest, rules);
      if (site && *site != t->tag) {
        decision.kind = RouteDecision::Kind::kError;
        decision.error = std::string(errors::kWrongTagPrefix);
        decision.error.append(t->tag)
            .append(errors::kWrongTagMiddle)
            .append(*site)
            .append(errors::kWrongTagSuffix);
        return decision;
      }
      if (decision.stripped.empty()) {
        decision.stripped.assign(argv.begin(), argv.end());
      }
      decision.stripped[pos] = std::string(t->rest);
      slot = cluster::SiteSlot(t->tag);
      tag = true;
    } else if (std::optional<std::string> site = SiteOfKey(key, rules)) {
      slot = cluster::SiteSlot(*site);
    } else {
      continue;  // not a URL or a site: the handler says so, here
    }
    const size_t owner = state.map->ShardOfSlot(slot);
    owners[pos] = owner;
    if (spec.name == "madd" && pos != 1) continue;  // placed by its ref
    tagged = tagged || tag;
    several = several || (shard && *shard != owner);
    if (first_slot < 0) first_slot = slot;
    if (!shard) shard = owner;
  }
  if (several) {
    if (tagged || spec.name != "mseen") {
      decision.kind = RouteDecision::Kind::kError;
      decision.error = std::string(errors::kCrossSlot);
      return decision;
    }
    decision.kind = RouteDecision::Kind::kFanOut;
    for (size_t pos = 1; pos < argv.size(); ++pos) {
      AddToPart(decision.parts, owners[pos].value_or(state.self_shard()),
                pos);
    }
    return decision;
  }
  if (!shard || *shard == state.self_shard()) return decision;
  decision.stripped.clear();
  decision.shard = *shard;
  decision.kind =
      tagged ? RouteDecision::Kind::kMoved : RouteDecision::Kind::kForward;
  decision.error = std::string(errors::kMovedPrefix) +
                   std::to_string(first_slot) + " " +
                   state.master_of(*shard).resp.ToString();
  return decision;
}

std::vector<std::pair<size_t, std::vector<size_t>>> SplitLinks(
    std::span<const std::string_view> urls, const ClusterState& state,
    const SiteRules& rules) {
  std::vector<std::pair<size_t, std::vector<size_t>>> parts = {
      {state.self_shard(), {}}};
  for (size_t i = 0; i < urls.size(); ++i) {
    size_t owner = state.self_shard();
    if (std::optional<std::string> site = SiteOfKey(urls[i], rules)) {
      owner = state.map->ShardOfSlot(cluster::SiteSlot(*site));
    }
    AddToPart(parts, owner, i);
  }
  return parts;
}

}  // namespace frontier
