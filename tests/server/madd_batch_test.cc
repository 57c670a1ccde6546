// Unit tests of MaddBatch (server/madd_batch.h): the MADDs of one pass for
// one peer as one MADDLINKS, and its reply cut back into each MADD's part.
#include "server/madd_batch.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace frontier {
namespace {

using Argv = std::vector<std::string>;

TEST(MaddBatchTest, OneGroupIsSentAndAnsweredAsAlone) {
  MaddBatch batch;
  const Argv alone = {"MADDLINKS", "http://r/", "2", "r", "http://a/",
                      "http://b/"};
  batch.Add(7, 1, alone);
  EXPECT_EQ(batch.Argv(), alone);
  EXPECT_EQ(batch.members()[0].links, 2u);
  const RelayedReply reply{"*2\r\n:1\r\n:0\r\n", false, {":1\r\n", ":0\r\n"}};
  const std::vector<RelayedReply> split = batch.Split(reply);
  ASSERT_EQ(split.size(), 1u);
  EXPECT_EQ(split[0].resp, reply.resp);
  EXPECT_EQ(split[0].elements, reply.elements);
}

TEST(MaddBatchTest, GroupsKeepEachRefAndTheirOrderAndSplitTheReply) {
  MaddBatch batch;
  batch.Add(3, 1, {"MADDLINKS", "http://r/", "-", "r", "http://a/"});
  batch.Add(5, 2,
            {"MADDLINKS", "http://q/", "4", "q", "DATA", "http://b/", "vb",
             "http://c/", "vc"});
  EXPECT_EQ(batch.Argv(),
            (Argv{"MADDLINKS", "GROUPS", "2", "http://r/", "-", "r", "-", "1",
                  "http://a/", "http://q/", "4", "q", "DATA", "2", "http://b/",
                  "vb", "http://c/", "vc"}));
  EXPECT_EQ(batch.bytes(), 29u + 46u);  // each argv's arguments
  const std::vector<RelayedReply> split = batch.Split(
      RelayedReply{"*3\r\n:1\r\n-ERR x\r\n:0\r\n",
                   false,
                   {":1\r\n", "-ERR x\r\n", ":0\r\n"}});
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(batch.members()[0].client, 3u);
  EXPECT_EQ(batch.members()[1].part, 2u);
  EXPECT_EQ(split[0].resp, "*1\r\n:1\r\n");
  EXPECT_EQ(split[0].elements, (Argv{":1\r\n"}));
  EXPECT_EQ(split[1].resp, "*2\r\n-ERR x\r\n:0\r\n");
  EXPECT_FALSE(split[1].error);
}

TEST(MaddBatchTest, AnErrorOrAWrongCountGoesToEveryMember) {
  MaddBatch batch;
  batch.Add(3, 1, {"MADDLINKS", "", "-", "", "http://a/"});
  batch.Add(4, 1, {"MADDLINKS", "", "-", "", "http://b/"});
  const RelayedReply timeout{"-TIMEOUT may or may not have run\r\n", true, {}};
  for (const RelayedReply& one : batch.Split(timeout)) {
    EXPECT_TRUE(one.error);
    EXPECT_EQ(one.resp, timeout.resp);
  }
  // Three elements for two links: each part gets the reply as it came,
  // which ClusterGather turns into its error elements.
  const RelayedReply odd{"*3\r\n:1\r\n:1\r\n:1\r\n",
                         false,
                         {":1\r\n", ":1\r\n", ":1\r\n"}};
  for (const RelayedReply& one : batch.Split(odd)) {
    EXPECT_EQ(one.elements.size(), 3u);
  }
}

}  // namespace
}  // namespace frontier
