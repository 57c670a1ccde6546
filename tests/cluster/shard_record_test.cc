#include "cluster/shard_record.h"

#include <gtest/gtest.h>

#include <string>

namespace frontier::cluster {
namespace {

ClusterMap Map(const std::string& text) {
  std::string error;
  std::optional<ClusterMap> map = ClusterMap::Parse(text, &error);
  EXPECT_TRUE(map) << error;
  return *map;
}


TEST(ShardRecordTest, RecordsMergedRangesAndReadsThemBack) {
  ClusterMap map = Map(
      "epoch 3\nshard a 0-99 200-300 100-199\nshard b 301-16383\n"
      "node a 127.0.0.2:7379\nnode b 127.0.0.3:7379\n");
  ShardRecord record = RecordOf(map, 0);
  EXPECT_EQ(record.ToText(), "shard a epoch 3 slots 0-300");
  std::optional<ShardRecord> back = ShardRecord::Parse(record.ToText());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->shard, "a");
  EXPECT_EQ(back->epoch, 3u);
  ASSERT_EQ(back->ranges.size(), 1u);
  EXPECT_EQ(back->ranges[0], (SlotRange{0, 300}));
  EXPECT_FALSE(ShardRecord::Parse("shard a epoch x slots 0-1"));
  EXPECT_FALSE(ShardRecord::Parse("shard a epoch 1 slots 5-1"));
  EXPECT_FALSE(ShardRecord::Parse(""));
}

TEST(ShardRecordTest, AMapMustAgreeWithTheRecord) {
  ClusterMap epoch3 = Map(
      "epoch 3\nshard a 0-8000\nshard b 8001-16383\n"
      "node a 127.0.0.2:7379\nnode b 127.0.0.3:7379\n");
  ShardRecord record = RecordOf(epoch3, 0);
  std::string why;
  EXPECT_TRUE(MapAgreesWithRecord(epoch3, 0, record, &why)) << why;

  // A newer map with the same slots (a member added): taken.
  ClusterMap epoch4 = Map(
      "epoch 4\nshard a 0-8000\nshard b 8001-16383\n"
      "node a 127.0.0.2:7379\nnode a 127.0.0.4:7379\n"
      "node b 127.0.0.3:7379\n");
  EXPECT_TRUE(MapAgreesWithRecord(epoch4, 0, record, &why)) << why;

  // An older map: refused, though its slots agree.
  record.epoch = 5;
  EXPECT_FALSE(MapAgreesWithRecord(epoch4, 0, record, &why));
  EXPECT_NE(why.find("older"), std::string::npos) << why;

  // Slots moved, whatever the epoch: refused (resharding is not built).
  ClusterMap moved = Map(
      "epoch 9\nshard a 0-8001\nshard b 8002-16383\n"
      "node a 127.0.0.2:7379\nnode b 127.0.0.3:7379\n");
  EXPECT_FALSE(MapAgreesWithRecord(moved, 0, record, &why));
  EXPECT_NE(why.find("0-8001"), std::string::npos) << why;

  // Another shard's data.
  EXPECT_FALSE(MapAgreesWithRecord(epoch3, 1, RecordOf(epoch3, 0), &why));
}

}  // namespace
}  // namespace frontier::cluster
