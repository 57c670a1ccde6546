#include "cluster/cluster_map.h"

#include <gtest/gtest.h>

#include <string>

#include "cluster/key_slot.h"

namespace frontier::cluster {
namespace {

constexpr char kThreeShards[] = R"(# three shards of three
epoch 3
shard a 0-5460
shard b 5461-10922
shard c 10923-16383

node a 127.0.0.2:7379 repl 127.0.0.2:7400
node a 127.0.0.3:7379 repl 127.0.0.3:7400
node a 127.0.0.4:7379 repl 127.0.0.4:7400   # a comment after a line
node b 127.0.0.5:7379
node c [::1]:7381 id 00112233445566778899aabbccddeeff00112233
)";

ClusterMap MustParse(std::string_view text) {
  std::string error;
  std::optional<ClusterMap> map = ClusterMap::Parse(text, &error);
  EXPECT_TRUE(map.has_value()) << error;
  return map.value_or(ClusterMap());
}

std::string ErrorOf(std::string_view text) {
  std::string error;
  EXPECT_FALSE(ClusterMap::Parse(text, &error).has_value()) << text;
  return error;
}

TEST(ClusterMapTest, ParsesShardsNodesAndOwners) {
  ClusterMap map = MustParse(kThreeShards);
  EXPECT_EQ(map.epoch(), 3u);
  ASSERT_EQ(map.shards().size(), 3u);
  ASSERT_EQ(map.nodes().size(), 5u);
  EXPECT_EQ(map.shards()[0].nodes.size(), 3u);
  EXPECT_EQ(map.ShardOfSlot(0), 0u);
  EXPECT_EQ(map.ShardOfSlot(5460), 0u);
  EXPECT_EQ(map.ShardOfSlot(5461), 1u);
  EXPECT_EQ(map.ShardOfSlot(16383), 2u);
  EXPECT_EQ(map.ShardOfSlot(SiteSlot("example.com")), 1u);  // slot 8592
  const Node& v6 = map.nodes()[4];
  EXPECT_EQ(v6.resp.host, "::1");
  EXPECT_EQ(v6.resp.port, 7381);
  EXPECT_EQ(v6.resp.ToString(), "[::1]:7381");
  EXPECT_EQ(v6.id, "00112233445566778899aabbccddeeff00112233");
  EXPECT_FALSE(v6.repl.has_value());
  EXPECT_EQ(map.nodes()[0].repl->ToString(), "127.0.0.2:7400");
  EXPECT_EQ(map.FindNode({"127.0.0.3", 7379}), 1u);
  EXPECT_FALSE(map.FindNode({"127.0.0.3", 7380}).has_value());
  EXPECT_EQ(map.FindShard("c"), 2u);
}

TEST(ClusterMapTest, DefaultNodeIdIsStableAndPerAddress) {
  ClusterMap map = MustParse(kThreeShards);
  const std::string& id = map.nodes()[0].id;
  EXPECT_EQ(id.size(), 40u);
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(id, DefaultNodeId({"127.0.0.2", 7379}));
  // SHA-1("127.0.0.2:7379"), computed with `printf %s 127.0.0.2:7379 |
  // sha1sum`.
  EXPECT_EQ(id, "6c784c80e757489d066b283f8bcb607c5dda9b9b");
  EXPECT_NE(map.nodes()[1].id, id);
}

TEST(ClusterMapTest, ToTextRoundTrips) {
  ClusterMap map = MustParse(kThreeShards);
  ClusterMap again = MustParse(map.ToText());
  EXPECT_TRUE(again == map);
  EXPECT_EQ(again.ToText(), map.ToText());
}

TEST(ClusterMapTest, SingleSlotsAndScatteredRanges) {
  ClusterMap map = MustParse(
      "epoch 1\nshard x 0-99 200 202-16383\nshard y 100-199 201\n"
      "node x h1:1\nnode y h2:2\n");
  EXPECT_EQ(map.ShardOfSlot(200), 0u);
  EXPECT_EQ(map.ShardOfSlot(201), 1u);
  EXPECT_EQ(map.ShardOfSlot(150), 1u);
}

TEST(ClusterMapTest, GapsAndOverlapsAreRefusedNamingTheSlot) {
  EXPECT_EQ(ErrorOf("epoch 1\nshard a 0-100\nshard b 102-16383\n"
                    "node a h:1\nnode b h:2\n"),
            "slot 101 belongs to no shard");
  EXPECT_EQ(ErrorOf("epoch 1\nshard a 0-100\nshard b 100-16383\n"
                    "node a h:1\nnode b h:2\n"),
            "slot 100 is claimed by shard 'a' and shard 'b'");
}

TEST(ClusterMapTest, BadLinesAreRefusedWithTheirLineNumber) {
  const std::string head = "epoch 1\nshard a 0-16383\nnode a h:1\n";
  EXPECT_EQ(ErrorOf(head + "shard b 16384\n"),
            "line 4: '16384' is not a slot or a range of slots in 0..16383");
  EXPECT_EQ(ErrorOf(head + "shard b 9-3\n"),
            "line 4: '9-3' is not a slot or a range of slots in 0..16383");
  EXPECT_EQ(ErrorOf(head + "shards b 1\n"),
            "line 4: unknown keyword 'shards' (epoch, shard or node)");
  EXPECT_EQ(ErrorOf(head + "node z h:2\n"),
            "line 4: node of an undeclared shard 'z'");
  EXPECT_EQ(ErrorOf(head + "node a h:1\n"),
            "line 4: node h:1 repeats the address or id of node h:1");
  EXPECT_EQ(ErrorOf(head + "node a h:0\n"),
            "line 4: 'h:0' has no port in 1..65535");
  EXPECT_EQ(ErrorOf(head + "node a ::1:7379\n"),
            "line 4: '::1:7379' has no valid host");
  EXPECT_EQ(ErrorOf(head + "node a h:2 id ABC\n"),
            "line 4: node id 'ABC' is not 40 lower-case hex digits");
  EXPECT_EQ(ErrorOf(head + "node a h:2 repl h:3 repl h:4\n"),
            "line 4: unexpected 'repl' (repl and id, once each)");
  EXPECT_EQ(ErrorOf(head + "epoch 2\n"), "line 4: a second epoch line");
  EXPECT_EQ(ErrorOf(head + "shard a 1\n"), "line 4: shard 'a' declared twice");
  EXPECT_EQ(ErrorOf("shard a 0-16383\nnode a h:1\n"), "no 'epoch N' line");
  EXPECT_EQ(ErrorOf("epoch 0\n"), "line 1: expected 'epoch N' with N >= 1");
  EXPECT_EQ(ErrorOf("epoch 1\nshard a 0-16383\n"), "shard 'a' has no node");
  EXPECT_EQ(ErrorOf("epoch 1\n"), "no shard");
}

}  // namespace
}  // namespace frontier::cluster
