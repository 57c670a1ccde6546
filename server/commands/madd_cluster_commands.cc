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

namespace {

// One MADD's links in a MADDLINKS: the ref as the sending shard knows it,
// and the links (with their values, if `data` is not empty).
struct LinkGroup {
  Frontier::RemoteRef ref;
  std::vector<std::string_view> urls;
  std::vector<std::string_view> data;
};

// `ref depth depth-site` into `group`; false, having replied the error,
// if depth is neither '-' nor a depth.
bool ParseRemoteRef(ReplyWriter& reply, std::span<const std::string> head,
                    LinkGroup* group) {
  group->ref.url = head[0];
  if (head[1] != "-") {
    std::optional<int64_t> depth = ParseInt64(head[1]);
    if (!depth || *depth < 0 || *depth > kMaxLinkDepth) {
      reply.Error(errors::kLinksDepth);
      return false;
    }
    group->ref.depth = static_cast<int>(*depth);
  }
  group->ref.depth_site = head[2];
  return true;
}

// MADDLINKS GROUPS g, then g times `ref depth depth-site mode n` and the n
// links (mode DATA: n url and value pairs; mode -: n urls). False, having
// replied the error, unless the arguments are exactly that.
bool ParseGroups(ReplyWriter& reply, std::span<const std::string> args,
                 std::vector<LinkGroup>* groups) {
  std::optional<int64_t> count =
      args.empty() ? std::nullopt : ParseInt64(args[0]);
  if (!count || *count < 1 ||
      static_cast<uint64_t>(*count) > args.size() / 6) {
    reply.Error(errors::kLinksGroups);
    return false;
  }
  size_t at = 1;
  for (int64_t g = 0; g < *count; ++g) {
    if (args.size() - at < 5) {
      reply.Error(errors::kLinksGroups);
      return false;
    }
    LinkGroup group;
    if (!ParseRemoteRef(reply, args.subspan(at, 3), &group)) return false;
    const bool with_data = EqualsIgnoreCase(args[at + 3], "DATA");
    std::optional<int64_t> n = ParseInt64(args[at + 4]);
    const size_t width = with_data ? 2 : 1;
    if ((!with_data && args[at + 3] != "-") || !n || *n < 1 ||
        static_cast<uint64_t>(*n) > (args.size() - at - 5) / width) {
      reply.Error(errors::kLinksGroups);
      return false;
    }
    at += 5;
    for (int64_t i = 0; i < *n; ++i) {
      group.urls.push_back(args[at]);
      if (with_data) group.data.push_back(args[at + 1]);
      at += width;
    }
    groups->push_back(std::move(group));
  }
  if (at != args.size()) {
    reply.Error(errors::kLinksGroups);
    return false;
  }
  return true;
}

// What a group's links got: MOVED (a link of another shard: the two
// nodes' maps disagree; never stored here nor sent on), else the next of
// `outcomes`, in argument order.
struct GroupResult {
  std::vector<std::string> moved;
  std::vector<StatusOr<AddOutcome>> outcomes;
};

// Stores `group`'s links of this shard.
StatusOr<GroupResult> StoreGroup(CommandContext& ctx,
                                 const ClusterState& state,
                                 const LinkGroup& group) {
  const SiteRules rules = RulesOf(ctx.config);
  std::vector<std::pair<size_t, std::vector<size_t>>> owners =
      SplitLinks(group.urls, state, rules);
  GroupResult result;
  result.moved.resize(group.urls.size());
  for (size_t p = 1; p < owners.size(); ++p) {
    for (size_t i : owners[p].second) {
      result.moved[i] = std::string(errors::kMovedPrefix) +
                        std::to_string(SlotOfKey(group.urls[i], rules)) + " " +
                        state.master_of(owners[p].first).resp.ToString();
    }
  }
  const bool with_data = !group.data.empty();
  const Subset mine = SubsetOf(group.urls, with_data ? &group.data : nullptr,
                               owners[0].second);
  auto outcomes = ctx.frontier.AddLinksOfRemoteRef(
      group.ref, mine.urls, with_data ? &mine.data : nullptr, ctx.now_ms);
  if (!outcomes.ok()) return outcomes.status();
  result.outcomes = std::move(outcomes).value();
  return result;
}

void ReplyGroup(ReplyWriter& reply, const GroupResult& result) {
  size_t next = 0;
  for (const std::string& moved : result.moved) {
    if (!moved.empty()) {
      reply.Error(moved);
    } else {
      ReplyAddOutcome(reply, result.outcomes[next++]);
    }
  }
}

}  // namespace

// MADDLINKS ref depth depth-site url [url ...]
// MADDLINKS ref depth depth-site DATA url value [url value ...]
// MADDLINKS GROUPS g ref depth depth-site -|DATA n link... ... (MaddBatch)
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
  // Every group is checked before any is stored: bad input changes
  // nothing.
  std::vector<LinkGroup> groups;
  if (EqualsIgnoreCase(ctx.argv[1], "GROUPS")) {
    if (!ParseGroups(ctx.reply, ctx.argv.subspan(2), &groups)) return;
  } else {
    LinkGroup group;
    if (!ParseRemoteRef(ctx.reply, ctx.argv.subspan(1, 3), &group) ||
        !ParseLinks(ctx.reply, ctx.argv.subspan(4), &group.urls,
                    &group.data)) {
      return;
    }
    groups.push_back(std::move(group));
  }
  // One flat array of every group's elements, in order; an I/O error is
  // the whole reply (the pass fails with it).
  std::vector<GroupResult> results;
  size_t size = 0;
  for (const LinkGroup& group : groups) {
    StatusOr<GroupResult> one = StoreGroup(ctx, *state, group);
    if (!one.ok()) {
      ReplyStatus(ctx.reply, one.status());
      return;
    }
    size += one->moved.size();
    results.push_back(std::move(one).value());
  }
  ctx.reply.Array(size);
  for (const GroupResult& result : results) ReplyGroup(ctx.reply, result);
}

}  // namespace frontier::commands
