// SiteScheduler: per-partition ready sets, the any-partition view and the
// partitions' capacities.
#include "storage/site_scheduler.h"

#include <gtest/gtest.h>

namespace frontier {
namespace {

QueuePos Pos(uint16_t depth, uint64_t url_fp) {
  QueuePos p;
  p.major = depth;
  p.url.url_fp = url_fp;
  return p;
}

SiteScheduler::Placement Ready(uint32_t partition, QueuePos head,
                               uint64_t slots = 1) {
  SiteScheduler::Placement p;
  p.head = head;
  p.partition = partition;
  p.slots_ready = slots;
  return p;
}

TEST(SiteSchedulerTest, FirstReadyPerPartitionAndAcrossThem) {
  SiteScheduler s;
  s.Reset(3);
  s.Place(1, Ready(1, Pos(3, 1)), 0);
  s.Place(2, Ready(2, Pos(2, 2)), 0);
  s.Place(3, Ready(1, Pos(1, 3)), 0);
  EXPECT_EQ(s.ready_count(), 3u);
  EXPECT_EQ(s.ready_count_in(1), 2u);
  EXPECT_EQ(s.ready_count_in(0), 0u);
  EXPECT_EQ(s.FirstReady()->first, 3u);
  EXPECT_EQ(s.FirstReadyIn(2)->first, 2u);
  EXPECT_EQ(s.FirstReadyIn(1)->first, 3u);
  EXPECT_FALSE(s.FirstReadyIn(0));
  // The head of partition 1 leaves: the any view follows.
  s.Remove(3);
  EXPECT_EQ(s.FirstReady()->first, 2u);
  EXPECT_EQ(s.FirstReadyIn(1)->first, 1u);
  s.Remove(2);
  EXPECT_EQ(s.FirstReady()->first, 1u);
  // A site moves to another partition (a new map).
  s.Place(1, Ready(2, Pos(3, 1)), 0);
  EXPECT_FALSE(s.FirstReadyIn(1));
  EXPECT_EQ(s.FirstReadyIn(2)->first, 1u);
  EXPECT_EQ(s.FirstReady()->first, 1u);
}

TEST(SiteSchedulerTest, CapacityFollowsReadinessAndLeases) {
  SiteScheduler s;
  s.Reset(2);
  SiteScheduler::Placement p = Ready(1, Pos(1, 1), /*slots=*/3);
  p.slots_other = 1;
  p.next_allowed_ms = 100;  // waiting until 100
  s.Place(7, p, 0);
  EXPECT_EQ(s.capacity_in(1), 1u);
  EXPECT_EQ(s.ready_count_in(1), 0u);
  s.Promote(100);
  EXPECT_EQ(s.capacity_in(1), 3u);
  EXPECT_EQ(s.ready_count_in(1), 1u);
  // Nothing queued but a lease: idle, counted, not ready, not tracked.
  SiteScheduler::Placement idle;
  idle.partition = 1;
  idle.slots_other = 1;
  s.Place(7, idle, 100);
  EXPECT_EQ(s.capacity_in(1), 1u);
  EXPECT_EQ(s.ready_count(), 0u);
  EXPECT_EQ(s.tracked_count(), 0u);
  EXPECT_FALSE(s.HeadOf(7));
  s.Place(7, SiteScheduler::Placement(), 100);  // no lease left: forgotten
  EXPECT_EQ(s.capacity_in(1), 0u);
  EXPECT_EQ(s.capacity_in(0), 0u);
}

}  // namespace
}  // namespace frontier
