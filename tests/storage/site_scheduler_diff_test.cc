// The compact SiteScheduler against the set-based one it replaced
// (site_scheduler_reference.h): random Place/Remove/Promote/Reset calls
// over several partitions, and after each call every answer and count the
// server reads must be the same, ties included (equal heads in one
// partition and across partitions, equal times).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "storage/site_scheduler.h"
#include "storage/site_scheduler_reference.h"

namespace frontier {
namespace {

struct Shape {
  uint32_t seed;
  size_t partitions;
  uint64_t sites;  // site numbers drawn from [1, sites]
  int steps;
};

class Driver {
 public:
  explicit Driver(const Shape& shape) : shape_(shape), rng_(shape.seed) {
    compact_.Reset(shape.partitions);
    reference_.Reset(shape.partitions);
  }

  void Run() {
    for (int step = 0; step < shape_.steps; ++step) {
      Act(step);
      Compare(step);
      if (HasFailure()) return;
    }
  }

 private:
  static bool HasFailure() { return ::testing::Test::HasFailure(); }

  uint64_t Pick(uint64_t n) {
    return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_);
  }

  // Few distinct heads, so that equal heads (ties) are common.
  QueuePos RandomHead() {
    QueuePos pos;
    pos.major = static_cast<uint16_t>(Pick(4));
    pos.minor = static_cast<uint16_t>(Pick(3));
    pos.url.url_fp = Pick(5);
    pos.url.host_fp = Pick(2);
    return pos;
  }

  uint64_t RandomSlots() {
    switch (Pick(8)) {
      case 0:
        return 0;
      case 1:  // above 32 bits: the wide path
        return (uint64_t{1} << 32) + Pick(3);
      default:
        return 1 + Pick(4);
    }
  }

  SiteScheduler::Placement RandomPlacement() {
    SiteScheduler::Placement p;
    if (Pick(6) != 0) p.head = RandomHead();
    p.at_lease_cap = Pick(6) == 0;
    // Around now: past, now, and a few ms ahead (equal times are common).
    p.next_allowed_ms = now_ms_ - 2 + static_cast<int64_t>(Pick(8));
    p.partition = static_cast<uint32_t>(Pick(shape_.partitions));
    p.slots_ready = RandomSlots();
    p.slots_other = Pick(3) == 0 ? 0 : RandomSlots();
    return p;
  }

  void Act(int step) {
    const uint64_t site = 1 + Pick(shape_.sites);
    const uint64_t what = Pick(100);
    if (what < 70) {
      const SiteScheduler::Placement p = RandomPlacement();
      compact_.Place(site, p, now_ms_);
      reference_.Place(site, p, now_ms_);
    } else if (what < 75) {
      // The same placement again (the fast path), or the current head with
      // new counts only.
      SiteScheduler::Placement p = RandomPlacement();
      p.head = reference_.HeadOf(site);
      compact_.Place(site, p, now_ms_);
      reference_.Place(site, p, now_ms_);
      compact_.Place(site, p, now_ms_);
      reference_.Place(site, p, now_ms_);
    } else if (what < 85) {
      compact_.Remove(site);
      reference_.Remove(site);
    } else if (what < 99) {
      now_ms_ += static_cast<int64_t>(Pick(3));
      compact_.Promote(now_ms_);
      reference_.Promote(now_ms_);
    } else if (step % 7 == 0) {
      compact_.Reset(shape_.partitions);
      reference_.Reset(shape_.partitions);
    }
  }

  void Compare(int step) {
    SCOPED_TRACE("step " + std::to_string(step));
    EXPECT_EQ(compact_.FirstReady(), reference_.FirstReady());
    for (size_t part = 0; part < shape_.partitions; ++part) {
      EXPECT_EQ(compact_.FirstReadyIn(part), reference_.FirstReadyIn(part));
      EXPECT_EQ(compact_.ready_count_in(part), reference_.ready_count_in(part));
      EXPECT_EQ(compact_.capacity_in(part), reference_.capacity_in(part));
    }
    EXPECT_EQ(compact_.NextWakeMs(), reference_.NextWakeMs());
    EXPECT_EQ(compact_.ready_count(), reference_.ready_count());
    EXPECT_EQ(compact_.tracked_count(), reference_.tracked_count());
    EXPECT_EQ(compact_.waiting_count(), reference_.waiting_count());
    EXPECT_EQ(compact_.partitions(), reference_.partitions());
    for (int i = 0; i < 3; ++i) {
      const uint64_t site = 1 + Pick(shape_.sites);
      EXPECT_EQ(compact_.HeadOf(site), reference_.HeadOf(site)) << site;
    }
  }

  Shape shape_;
  std::mt19937_64 rng_;
  int64_t now_ms_ = 1000;
  SiteScheduler compact_;
  SetScheduler reference_;
};

TEST(SiteSchedulerDiffTest, OnePartitionFewSites) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    Driver({seed, 1, 12, 2000}).Run();
    if (HasFailure()) return;
  }
}

TEST(SiteSchedulerDiffTest, SeveralPartitionsWithTies) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    Driver({seed, 1 + seed % 6, 40, 3000}).Run();
    if (HasFailure()) return;
  }
}

// Enough sites to grow the site index and its buckets several times, and
// to reuse freed slots.
TEST(SiteSchedulerDiffTest, ManySitesGrowAndReuseSlots) {
  Driver({7, 4, 5000, 60000}).Run();
}

TEST(SiteSchedulerDiffTest, DrainingByPopOrderMatches) {
  // The server's own pattern: POP the first ready site, then place it
  // again with a later head, or waiting on its delay, or blocked.
  std::mt19937_64 rng(3);
  SiteScheduler compact;
  SetScheduler reference;
  compact.Reset(3);
  reference.Reset(3);
  int64_t now = 0;
  for (uint64_t site = 1; site <= 3000; ++site) {
    SiteScheduler::Placement p;
    QueuePos head;
    head.major = static_cast<uint16_t>(rng() % 5);
    head.url.url_fp = rng() % 1000;
    p.head = head;
    p.partition = static_cast<uint32_t>(site % 3);
    p.slots_ready = 1;
    p.next_allowed_ms = static_cast<int64_t>(rng() % 50);
    compact.Place(site, p, now);
    reference.Place(site, p, now);
  }
  for (int pop = 0; pop < 20000; ++pop) {
    now += static_cast<int64_t>(rng() % 2);
    compact.Promote(now);
    reference.Promote(now);
    auto first = reference.FirstReady();
    ASSERT_EQ(compact.FirstReady(), first) << pop;
    ASSERT_EQ(compact.NextWakeMs(), reference.NextWakeMs()) << pop;
    if (!first) continue;
    SiteScheduler::Placement p;
    QueuePos head = first->second;
    head.url.url_fp += 1 + rng() % 7;
    if (rng() % 10 != 0) p.head = head;  // else its last URL went
    p.partition = static_cast<uint32_t>(first->first % 3);
    p.slots_ready = 1;
    p.slots_other = 1;
    p.at_lease_cap = rng() % 8 == 0;
    p.next_allowed_ms = now + static_cast<int64_t>(rng() % 30);
    compact.Place(first->first, p, now);
    reference.Place(first->first, p, now);
    ASSERT_EQ(compact.ready_count(), reference.ready_count()) << pop;
    ASSERT_EQ(compact.waiting_count(), reference.waiting_count()) << pop;
    ASSERT_EQ(compact.tracked_count(), reference.tracked_count()) << pop;
  }
}

}  // namespace
}  // namespace frontier
