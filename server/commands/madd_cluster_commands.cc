// MADD over the shards of a cluster (docs/cluster.md): MADD runs on the
// shard of its ref, stores there the links of that shard, in the pass, and
// sends each other shard one MADDLINKS with its links, the ref, the ref's
// depth and its site under depth-scope, so that a link gets the depth a
// MADD on one node would give it. The replies are put back in argument
// order (ClusterGather); a shard that cannot answer gives error elements
// for its links only. Not atomic across shards.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "server/args.h"
#include "server/cluster_route.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/reply.h"
#include "url/url.h"

namespace frontier::commands {
namespace {

constexpr int64_t kMaxLinkDepth = 65535;

SiteRules RulesOf(const Config& config) {
  return SiteRules{config.politeness_scope, config.max_url_length};
}

// MADDLINKS runs only on another node's link (CLUSTER LINK) logged in as
// the user the links log in as: cluster-auth-user when cluster-auth-pass
// is set, else an admin (requirepass's default user).
bool FromClusterLink(const CommandContext& ctx) {
  if (!ctx.client.cluster_link) return false;
  if (ctx.config.cluster_auth_pass.empty()) {
    return ctx.client.role == Role::kAdmin;
  }
  return ctx.client.user == ctx.config.cluster_auth_user;
}

// The elements of `outcomes`, each its own RESP reply.
RelayedReply ElementsOf(const std::vector<StatusOr<AddOutcome>>& outcomes) {
  RelayedReply out;
  ReplyWriter whole(&out.resp);
  whole.Array(outcomes.size());
  out.elements.reserve(outcomes.size());
  for (const StatusOr<AddOutcome>& one : outcomes) {
    std::string element;
    ReplyWriter writer(&element);
    ReplyAddOutcome(writer, one);
    out.resp += element;
    out.elements.push_back(std::move(element));
  }
  return out;
}

// The links at `indices` (and their values, if any).
struct Subset {
  std::vector<std::string_view> urls;
  std::vector<std::string_view> data;
};
Subset SubsetOf(const std::vector<std::string_view>& urls,
                const std::vector<std::string_view>* data,
                const std::vector<size_t>& indices) {
  Subset out;
  for (size_t i : indices) {
    out.urls.push_back(urls[i]);
    if (data != nullptr) out.data.push_back((*data)[i]);
  }
  return out;
}

StatusOr<std::vector<StatusOr<AddOutcome>>> AddSubset(
    CommandContext& ctx, const Subset& links, bool with_data) {
  if (with_data) {
    return ctx.frontier.AddManyWithData(ctx.argv[1], links.urls, links.data,
                                        ctx.now_ms);
  }
  return ctx.frontier.AddMany(ctx.argv[1], links.urls, ctx.now_ms);
}

}  // namespace

bool SpreadMadd(CommandContext& ctx, const std::vector<std::string_view>& urls,
                const std::vector<std::string_view>* data) {
  const ClusterState& state = *ctx.server.cluster();
  const SiteRules rules = RulesOf(ctx.config);
  std::vector<std::pair<size_t, std::vector<size_t>>> owners =
      SplitLinks(urls, state, rules);
  if (owners.size() == 1) return false;  // every link is this shard's
  // What the other shards need of the ref: its depth here and its site
  // under depth-scope. A ref that is not a URL: MADD refuses it whole.
  const std::string_view ref = ctx.argv[1];
  std::string depth = "-";
  std::string depth_site;
  if (!ref.empty()) {
    StatusOr<NormalizedUrl> norm = NormalizeUrl(ref, rules.max_url_length);
    if (!norm.ok()) return false;
    depth_site = SiteOf(norm->host, ctx.config.depth_scope);
    StatusOr<std::optional<frontier::UrlInfo>> info = ctx.frontier.Info(ref);
    if (!info.ok()) {
      ReplyStatus(ctx.reply, info.status());
      return true;
    }
    if (*info) depth = std::to_string((*info)->depth);
  }
  // This shard's links, in the pass: an I/O error fails the MADD whole
  // before anything is sent.
  RelayedReply local;
  const Subset mine = SubsetOf(urls, data, owners[0].second);
  if (!mine.urls.empty()) {
    auto outcomes = AddSubset(ctx, mine, data != nullptr);
    if (!outcomes.ok()) {
      ReplyStatus(ctx.reply, outcomes.status());
      return true;
    }
    local = ElementsOf(*outcomes);
  } else {
    local = ElementsOf({});
  }
  std::vector<std::pair<size_t, std::vector<std::string>>> parts;
  std::vector<std::vector<size_t>> positions = {owners[0].second};
  for (size_t p = 1; p < owners.size(); ++p) {
    std::vector<std::string> argv = {"MADDLINKS", std::string(ref), depth,
                                     depth_site};
    if (data != nullptr) argv.emplace_back("DATA");
    for (size_t i : owners[p].second) {
      argv.emplace_back(urls[i]);
      if (data != nullptr) argv.emplace_back((*data)[i]);
    }
    parts.emplace_back(owners[p].first, std::move(argv));
    positions.push_back(std::move(owners[p].second));
  }
  ctx.server.SpreadLinks(ctx, std::move(local), std::move(parts),
                         ClusterGather::Place(urls.size(), std::move(positions)));
  return true;
}

// MADDLINKS ref depth depth-site url [url ...]
// MADDLINKS ref depth depth-site DATA url value [url value ...]
void MAddLinks(CommandContext& ctx) {
  const ClusterState* state = ctx.server.cluster();
  if (state == nullptr) {
    ctx.reply.Error(errors::kClusterDisabled);
    return;
  }
  if (!FromClusterLink(ctx)) {
    ctx.reply.Error(errors::kClusterInternal);
    return;
  }
  Frontier::RemoteRef ref;
  ref.url = ctx.argv[1];
  if (ctx.argv[2] != "-") {
    std::optional<int64_t> depth = ParseInt64(ctx.argv[2]);
    if (!depth || *depth < 0 || *depth > kMaxLinkDepth) {
      ctx.reply.Error(errors::kLinksDepth);
      return;
    }
    ref.depth = static_cast<int>(*depth);
  }
  ref.depth_site = ctx.argv[3];
  std::vector<std::string_view> urls;
  std::vector<std::string_view> data;
  if (!ParseLinks(ctx.reply, ctx.argv.subspan(4), &urls, &data)) return;
  // A link of another shard (the two nodes' maps disagree) is answered
  // MOVED, never stored here nor sent on.
  const SiteRules rules = RulesOf(ctx.config);
  std::vector<std::pair<size_t, std::vector<size_t>>> owners =
      SplitLinks(urls, *state, rules);
  std::vector<std::string> moved(urls.size());
  for (size_t p = 1; p < owners.size(); ++p) {
    for (size_t i : owners[p].second) {
      moved[i] = std::string(errors::kMovedPrefix) +
                 std::to_string(SlotOfKey(urls[i], rules)) + " " +
                 state->master_of(owners[p].first).resp.ToString();
    }
  }
  const bool with_data = !data.empty();
  const Subset mine =
      SubsetOf(urls, with_data ? &data : nullptr, owners[0].second);
  auto outcomes = ctx.frontier.AddLinksOfRemoteRef(
      ref, mine.urls, with_data ? &mine.data : nullptr, ctx.now_ms);
  if (!outcomes.ok()) {
    ReplyStatus(ctx.reply, outcomes.status());
    return;
  }
  ctx.reply.Array(urls.size());
  size_t next = 0;  // this shard's links come in argument order
  for (size_t i = 0; i < urls.size(); ++i) {
    if (!moved[i].empty()) {
      ctx.reply.Error(moved[i]);
    } else {
      ReplyAddOutcome(ctx.reply, (*outcomes)[next++]);
    }
  }
}

}  // namespace frontier::commands
