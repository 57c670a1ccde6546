#include "partition/hint_rule.h"

#include <gtest/gtest.h>

namespace frontier::partition {
namespace {

Advice A(uint64_t capacity, uint64_t ready_sites, uint64_t leased,
         uint64_t waiting) {
  return Advise(HintInputs{capacity, ready_sites, leased, waiting});
}

TEST(HintRuleTest, Names) {
  EXPECT_EQ(AdviceName(Advice::kHurryUp), "hurry-up");
  EXPECT_EQ(AdviceName(Advice::kSteady), "steady");
  EXPECT_EQ(AdviceName(Advice::kSlowDown), "slow-down");
}

TEST(HintRuleTest, IdleWorkersWithNothingReadySlowDown) {
  EXPECT_EQ(A(0, 0, 0, 1), Advice::kSlowDown);
  EXPECT_EQ(A(4, 0, 4, 2), Advice::kSlowDown);  // all busy, others idle
  // Nothing to do and nobody waiting: no advice to change pace.
  EXPECT_EQ(A(0, 0, 0, 0), Advice::kSteady);
}

TEST(HintRuleTest, MoreLeasesThanPolitenessAllowsSlowDown) {
  EXPECT_EQ(A(2, 1, 3, 0), Advice::kSlowDown);
}

TEST(HintRuleTest, ReadySitesUnservedHurryUp) {
  EXPECT_EQ(A(10, 10, 0, 0), Advice::kHurryUp);
  EXPECT_EQ(A(10, 3, 7, 0), Advice::kHurryUp);  // 28 < 30
  // Three quarters of n leased: the pool keeps up, hold the pace.
  EXPECT_EQ(A(4, 1, 3, 0), Advice::kSteady);
  EXPECT_EQ(A(10, 2, 8, 0), Advice::kSteady);
  // A worker waits: ready URLs go to it next pass, no need to hurry.
  EXPECT_EQ(A(10, 10, 0, 1), Advice::kSteady);
}

TEST(HintRuleTest, BusyPoolIsSteady) {
  EXPECT_EQ(A(3, 0, 3, 0), Advice::kSteady);
  EXPECT_EQ(A(3, 1, 3, 0), Advice::kSteady);
}

}  // namespace
}  // namespace frontier::partition
