// ReplicaProgress (server/replica_progress.h): the master's record of
// where each replica's log ends, and the lag ROLE, INFO and /metrics show.
#include "server/replica_progress.h"

#include <gtest/gtest.h>

namespace frontier {
namespace {

TEST(ReplicaProgressTest, KeepsTheLatestReportPerSite) {
  ReplicaProgress p;
  EXPECT_FALSE(p.Find("127.0.0.3:7400"));
  p.Note("127.0.0.3:7400", 100, 1'000);
  p.Note("127.0.0.4:7400", 90, 1'500);
  p.Note("127.0.0.3:7400", 250, 2'000);  // the latest wins
  ASSERT_TRUE(p.Find("127.0.0.3:7400"));
  EXPECT_EQ(p.Find("127.0.0.3:7400")->offset, 250u);
  EXPECT_EQ(p.Find("127.0.0.3:7400")->at_ms, 2'000);
  EXPECT_EQ(p.Find("127.0.0.4:7400")->offset, 90u);
  p.RetainIf([](std::string_view repl) { return repl == "127.0.0.4:7400"; });
  EXPECT_FALSE(p.Find("127.0.0.3:7400"));
  EXPECT_TRUE(p.Find("127.0.0.4:7400"));
  p.Clear();
  EXPECT_FALSE(p.Find("127.0.0.4:7400"));
}

TEST(ReplicaProgressTest, LagIsWhatTheReplicaLacksAndHowOldItsReportIs) {
  // Caught up, reported 1.9 s ago: lag 0 bytes, 1 whole second.
  ReplicaLag l = LagOf(ReplicaReport{5'000, 10'000}, 5'000, 11'900);
  EXPECT_EQ(l.offset, 5'000u);
  EXPECT_EQ(l.lag_bytes, 0u);
  EXPECT_EQ(l.lag_seconds, 1);
  // Behind by 1234 bytes, reported just now.
  l = LagOf(ReplicaReport{3'766, 10'000}, 5'000, 10'000);
  EXPECT_EQ(l.lag_bytes, 1'234u);
  EXPECT_EQ(l.lag_seconds, 0);
  // Reported after the master read its own end: not ahead, lacking nothing.
  l = LagOf(ReplicaReport{6'000, 10'000}, 5'000, 10'000);
  EXPECT_EQ(l.lag_bytes, 0u);
  // A clock step back does not make the lag negative.
  EXPECT_EQ(LagOf(ReplicaReport{1, 10'000}, 1, 9'000).lag_seconds, 0);
  // No report yet: offset 0, lacking everything, lag unknown.
  l = LagOf(std::nullopt, 5'000, 10'000);
  EXPECT_EQ(l.offset, 0u);
  EXPECT_EQ(l.lag_bytes, 5'000u);
  EXPECT_EQ(l.lag_seconds, -1);
}

}  // namespace
}  // namespace frontier
