// Unit tests of the cluster's routing decision (server/cluster_route.h),
// the command table's key positions and the gathering of split replies
// (server/cluster_gather.h): which shard a command is for, MOVED for a
// tagged key of another shard, the tag stripped for one of this shard, a
// wrong tag and keys of two shards refused, a plain MSEEN split, a MADD
// placed by its ref and its links split by owner.
#include "server/cluster_route.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cluster/key_slot.h"
#include "server/cluster_gather.h"
#include "server/command_table.h"

namespace frontier {
namespace {

// Three shards as in docs/cluster.md; this node is shard b's.
ClusterState ThreeShards() {
  std::string error;
  auto map = cluster::ClusterMap::Parse(
      "epoch 1\n"
      "shard a 0-5460\nshard b 5461-10922\nshard c 10923-16383\n"
      "node a 127.0.0.2:7001\nnode b 127.0.0.3:7002\nnode c 127.0.0.4:7003\n",
      &error);
  EXPECT_TRUE(map) << error;
  ClusterState state;
  state.map = std::make_shared<const cluster::ClusterMap>(std::move(*map));
  state.self = 1;
  state.masters = {0, 1, 2};
  return state;
}

// A host of `shard` (0, 1, 2 = a, b, c): h<i>.example for the first i
// that lands there.
std::string HostOf(size_t shard, int skip = 0) {
  const ClusterState state = ThreeShards();
  for (int i = 0;; ++i) {
    const std::string host = "h" + std::to_string(i) + ".example";
    if (state.map->ShardOfSlot(cluster::SiteSlot(host)) == shard &&
        skip-- == 0) {
      return host;
    }
  }
}

RouteDecision Route(std::vector<std::string> argv) {
  static const ClusterState state = ThreeShards();
  const CommandSpec* spec = FindCommand(argv[0]);
  EXPECT_NE(spec, nullptr);
  return DecideRoute(*spec, argv, state, SiteRules{SiteScope::kHost, 8192});
}

TEST(ClusterRouteTest, KeyPositionsFollowTheKeySpec) {
  const std::vector<std::string> add = {"ADD", "http://a/", "http://r/"};
  EXPECT_EQ(KeyPositions(*FindCommand("add"), add), std::vector<size_t>({1}));
  const std::vector<std::string> mseen = {"MSEEN", "x", "y", "z"};
  EXPECT_EQ(KeyPositions(*FindCommand("mseen"), mseen),
            std::vector<size_t>({1, 2, 3}));
  const std::vector<std::string> info = {"SITE", "info", "a.example"};
  EXPECT_EQ(KeyPositions(*FindCommand("site"), info), std::vector<size_t>({2}));
  const std::vector<std::string> list = {"SITE", "LIST"};
  EXPECT_TRUE(KeyPositions(*FindCommand("site"), list).empty());
  const std::vector<std::string> pop = {"POP", "COUNT", "3"};
  EXPECT_TRUE(KeyPositions(*FindCommand("pop"), pop).empty());
}

TEST(ClusterRouteTest, PlainKeysOfThisShardRunHereOthersAreForwarded) {
  const std::string here = "http://" + HostOf(1) + "/a";
  EXPECT_EQ(Route({"ADD", here}).kind, RouteDecision::Kind::kHere);
  EXPECT_TRUE(Route({"ADD", here}).stripped.empty());
  const RouteDecision there = Route({"SEEN", "http://" + HostOf(2) + "/a"});
  EXPECT_EQ(there.kind, RouteDecision::Kind::kForward);
  EXPECT_EQ(there.shard, 2u);
  // A site argument and an origin place a command as a URL of the site.
  EXPECT_EQ(Route({"SITE", "INFO", HostOf(0)}).shard, 0u);
  EXPECT_EQ(Route({"ROBOTS", "GET", "https://" + HostOf(2)}).shard, 2u);
  // Not a URL or a site: the handler says so, here.
  EXPECT_EQ(Route({"ADD", "ftp://"}).kind, RouteDecision::Kind::kHere);
  EXPECT_EQ(Route({"POP"}).kind, RouteDecision::Kind::kHere);
}

TEST(ClusterRouteTest, TaggedKeysAreStrippedHereAndMovedElsewhere) {
  const std::string site = HostOf(1);
  const RouteDecision here =
      Route({"ADD", "{" + site + "}http://" + site + "/a", "x"});
  EXPECT_EQ(here.kind, RouteDecision::Kind::kHere);
  EXPECT_EQ(here.stripped,
            std::vector<std::string>({"ADD", "http://" + site + "/a", "x"}));
  const std::string other = HostOf(2);
  const RouteDecision moved =
      Route({"SEEN", "{" + other + "}http://" + other + "/a"});
  EXPECT_EQ(moved.kind, RouteDecision::Kind::kMoved);
  EXPECT_EQ(moved.error, "MOVED " + std::to_string(cluster::SiteSlot(other)) +
                             " 127.0.0.4:7003");
}

TEST(ClusterRouteTest, AWrongTagAndKeysOfTwoShardsAreRefused) {
  const RouteDecision wrong =
      Route({"ADD", "{" + HostOf(1) + "}http://" + HostOf(1, 1) + "/"});
  EXPECT_EQ(wrong.kind, RouteDecision::Kind::kError);
  EXPECT_EQ(wrong.error, "ERR hash tag '{" + HostOf(1) +
                             "}' names another site than the URL's ('" +
                             HostOf(1, 1) + "')");
  // The tag must be the site as the storage names it (lower case).
  EXPECT_EQ(Route({"ADD", "{H0.example}http://H0.example/"}).kind,
            RouteDecision::Kind::kError);
  const std::string a = HostOf(0), c = HostOf(2);
  const RouteDecision cross = Route({"MSEEN", "{" + a + "}http://" + a + "/",
                                     "{" + c + "}http://" + c + "/"});
  EXPECT_EQ(cross.kind, RouteDecision::Kind::kError);
  EXPECT_EQ(cross.error,
            "CROSSSLOT Keys in request don't hash to the same slot");
  // A MADD's link with a wrong tag refuses the MADD.
  EXPECT_EQ(Route({"MADD", "http://" + HostOf(1) + "/",
                   "{" + a + "}http://" + c + "/"})
                .kind,
            RouteDecision::Kind::kError);
}

TEST(ClusterRouteTest, AMaddIsPlacedByItsRefAlone) {
  // Links of other shards: it runs here, where its ref lives (its handler
  // sends them on), their tags taken off.
  const std::string b = HostOf(1), c = HostOf(2);
  const RouteDecision here =
      Route({"MADD", "http://" + b + "/", "{" + c + "}http://" + c + "/",
             "http://" + HostOf(0) + "/"});
  EXPECT_EQ(here.kind, RouteDecision::Kind::kHere);
  EXPECT_EQ(here.stripped,
            std::vector<std::string>({"MADD", "http://" + b + "/",
                                      "http://" + c + "/",
                                      "http://" + HostOf(0) + "/"}));
  EXPECT_EQ(Route({"MADD", "http://" + b + "/", "DATA",
                   "http://" + c + "/", "value"})
                .kind,
            RouteDecision::Kind::kHere);
  // A ref of another shard: forwarded there whole, or MOVED if tagged,
  // whatever its links.
  const RouteDecision forward =
      Route({"MADD", "http://" + c + "/", "http://" + b + "/"});
  EXPECT_EQ(forward.kind, RouteDecision::Kind::kForward);
  EXPECT_EQ(forward.shard, 2u);
  EXPECT_EQ(Route({"MADD", "{" + c + "}http://" + c + "/", "http://" + b + "/"})
                .kind,
            RouteDecision::Kind::kMoved);
  // An empty ref (or one that is no URL) runs here.
  EXPECT_EQ(Route({"MADD", "", "http://" + c + "/"}).kind,
            RouteDecision::Kind::kHere);
}

TEST(ClusterRouteTest, SplitLinksGroupsLinksByOwnerThisShardFirst) {
  const ClusterState state = ThreeShards();
  const std::string l0 = "http://" + HostOf(2) + "/", l1 = "ftp://bad",
                    l2 = "http://" + HostOf(0) + "/",
                    l3 = "http://" + HostOf(2, 1) + "/",
                    l4 = "http://" + HostOf(1) + "/";
  const std::vector<std::string_view> links = {l0, l1, l2, l3, l4};
  using Parts = std::vector<std::pair<size_t, std::vector<size_t>>>;
  EXPECT_EQ(SplitLinks(links, state, SiteRules{SiteScope::kHost, 8192}),
            Parts({{1, {1, 4}}, {2, {0, 3}}, {0, {2}}}));
  // All of this shard's: one part (nothing to send).
  const std::vector<std::string_view> mine = {l4, l1};
  EXPECT_EQ(SplitLinks(mine, state, SiteRules{SiteScope::kHost, 8192}),
            Parts({{1, {0, 1}}}));
}

TEST(ClusterRouteTest, APlainMseenOverSeveralShardsIsSplitByShard) {
  const RouteDecision d =
      Route({"MSEEN", "http://" + HostOf(2) + "/", "http://" + HostOf(0) + "/",
             "ftp://bad", "http://" + HostOf(2, 1) + "/"});
  ASSERT_EQ(d.kind, RouteDecision::Kind::kFanOut);
  using Parts = std::vector<std::pair<size_t, std::vector<size_t>>>;
  // In order of first appearance; the bad key goes with this node's shard.
  EXPECT_EQ(d.parts, Parts({{2, {1, 4}}, {0, {2}}, {1, {3}}}));
}

TEST(ClusterGatherTest, PlacesAnswersInArgumentOrderAndErrorsPerPart) {
  ClusterGather g = ClusterGather::Place(4, {{0, 3}, {1}, {2}});
  g.Add(0, RelayedReply{"*2\r\n:1\r\n:0\r\n", false, {":1\r\n", ":0\r\n"}});
  EXPECT_FALSE(g.done());
  g.Add(2, RelayedReply{"*1\r\n:1\r\n", false, {":1\r\n"}});
  g.Add(1, RelayedReply{"-TIMEOUT x\r\n", true, {}});
  ASSERT_TRUE(g.done());
  EXPECT_EQ(g.Reply(), "*4\r\n:1\r\n-TIMEOUT x\r\n:1\r\n:0\r\n");
}

TEST(ClusterGatherTest, SumsCountersByNameAndAnErrorWins) {
  ClusterGather g = ClusterGather::Sum(2);
  g.Add(0, RelayedReply{
               "",
               false,
               {"$4\r\nurls\r\n", ":3\r\n", "$5\r\nsites\r\n", ":1\r\n"}});
  g.Add(1, RelayedReply{
               "",
               false,
               {"$4\r\nurls\r\n", ":4\r\n", "$5\r\nsites\r\n", ":2\r\n"}});
  ASSERT_TRUE(g.done());
  EXPECT_EQ(g.Reply(), "*4\r\n$4\r\nurls\r\n:7\r\n$5\r\nsites\r\n:3\r\n");
  ClusterGather failed = ClusterGather::Sum(2);
  failed.Add(0, RelayedReply{"-CLUSTERDOWN x\r\n", true, {}});
  failed.Add(1, RelayedReply{"", false, {"$4\r\nurls\r\n", ":4\r\n"}});
  EXPECT_EQ(failed.Reply(), "-CLUSTERDOWN x\r\n");
}

TEST(ClusterGatherTest, MergesTopListsLargestFirstTiesByName) {
  ClusterGather g = ClusterGather::Top(2, 3);
  g.Add(0, RelayedReply{"",
                        false,
                        {"$1\r\nb\r\n", ":5\r\n", "$1\r\nc\r\n", ":1\r\n"}});
  g.Add(1, RelayedReply{"",
                        false,
                        {"$1\r\nd\r\n", ":7\r\n", "$1\r\na\r\n", ":5\r\n"}});
  ASSERT_TRUE(g.done());
  EXPECT_EQ(g.Reply(),
            "*6\r\n$1\r\nd\r\n:7\r\n$1\r\na\r\n:5\r\n$1\r\nb\r\n:5\r\n");
}

TEST(ClusterGatherTest, SumKeepsTheFirstRepliesOtherValues) {
  // PARTITION INFO ... CLUSTER: suffixes is an array, the rest integers.
  ClusterGather g = ClusterGather::Sum(2);
  const std::string suffixes = "*1\r\n$3\r\nedu\r\n";
  g.Add(0, RelayedReply{
               "",
               false,
               {"$8\r\nsuffixes\r\n", suffixes, "$5\r\nsites\r\n", ":2\r\n"}});
  g.Add(1, RelayedReply{
               "",
               false,
               {"$8\r\nsuffixes\r\n", "*0\r\n", "$5\r\nsites\r\n", ":3\r\n"}});
  ASSERT_TRUE(g.done());
  EXPECT_EQ(g.Reply(),
            "*4\r\n$8\r\nsuffixes\r\n" + suffixes + "$5\r\nsites\r\n:5\r\n");
}

TEST(ClusterGatherTest, HintWorksTheAdviceOutFromTheSums) {
  // Each shard alone says hurry-up or steady; summed, the workers hold
  // more leases than the cluster's n allows: slow-down.
  const auto hint = [](std::string_view advice, int n, int ready, int leased,
                       int waiting) {
    const auto field = [](std::string_view name) {
      return "$" + std::to_string(name.size()) + "\r\n" + std::string(name) +
             "\r\n";
    };
    const auto integer = [](int v) { return ":" + std::to_string(v) + "\r\n"; };
    return RelayedReply{"",
                        false,
                        {field("advice"), field(advice), field("n"), integer(n),
                         field("ready_sites"), integer(ready), field("leased"),
                         integer(leased), field("waiting"), integer(waiting)}};
  };
  ClusterGather g = ClusterGather::Hint(2);
  g.Add(0, hint("steady", 1, 0, 4, 0));
  g.Add(1, hint("hurry-up", 2, 2, 0, 0));
  ASSERT_TRUE(g.done());
  EXPECT_EQ(g.Reply(),
            "*10\r\n$6\r\nadvice\r\n$9\r\nslow-down\r\n$1\r\nn\r\n:3\r\n"
            "$11\r\nready_sites\r\n:2\r\n$6\r\nleased\r\n:4\r\n"
            "$7\r\nwaiting\r\n:0\r\n");
}

TEST(ClusterGatherTest, APageGetsTheClustersCursor) {
  const std::string sites = "*1\r\n$9\r\na.example\r\n";
  const auto page = [&](std::string_view next) {
    return RelayedReply{"",
                        false,
                        {"$" + std::to_string(next.size()) + "\r\n" +
                             std::string(next) + "\r\n",
                         sites}};
  };
  ClusterGather middle = ClusterGather::Page(1, 3);
  middle.Add(0, page("12345"));
  EXPECT_EQ(middle.Reply(), "*2\r\n$7\r\n1:12345\r\n" + sites);
  ClusterGather shard_end = ClusterGather::Page(1, 3);
  shard_end.Add(0, page("0"));
  EXPECT_EQ(shard_end.Reply(), "*2\r\n$3\r\n2:0\r\n" + sites);
  ClusterGather last = ClusterGather::Page(2, 3);
  last.Add(0, page("0"));
  EXPECT_EQ(last.Reply(), "*2\r\n$1\r\n0\r\n" + sites);
  ClusterGather failed = ClusterGather::Page(0, 3);
  failed.Add(0, RelayedReply{"-ERR invalid cursor\r\n", true, {}});
  EXPECT_EQ(failed.Reply(), "-ERR invalid cursor\r\n");
}

TEST(ClusterGatherTest, ClusterCursorsParse) {
  EXPECT_EQ(ParseClusterCursor("0"),
            std::make_pair(size_t{0}, std::string("0")));
  EXPECT_EQ(ParseClusterCursor("2:618"),
            std::make_pair(size_t{2}, std::string("618")));
  EXPECT_EQ(ClusterCursor(2, "618"), "2:618");
  for (std::string_view bad : {"", "x", "5", ":1", "1:", "a:1", "123456:1"}) {
    EXPECT_FALSE(ParseClusterCursor(bad)) << bad;
  }
}

TEST(ClusterRouteTest, KeySlotOfAUrlIsItsSites) {
  const SiteRules rules{SiteScope::kHost, 8192};
  EXPECT_EQ(SlotOfKey("http://WWW.Example.com:80/x?y", rules),
            cluster::SiteSlot("www.example.com"));
  EXPECT_EQ(SlotOfKey("{user1000}.following", rules),
            cluster::KeySlot("user1000"));
  const SiteRules domain{SiteScope::kDomain, 8192};
  EXPECT_EQ(SlotOfKey("https://a.b.example.co.uk/", domain),
            cluster::SiteSlot("example.co.uk"));
}

}  // namespace
}  // namespace frontier
