// Tests for the adaptive recrawl period.
#include "policy/recrawl.h"

#include <gtest/gtest.h>

namespace frontier::policy {
namespace {

TEST(Recrawl, UnchangedGrowsChangedShrinks) {
  const RecrawlPolicy p;  // +40%, -20%, [60 s, 1 year]
  EXPECT_EQ(NextRecrawlPeriodMs(p, 3600000, ContentChange::kUnchanged),
            5040000);
  EXPECT_EQ(NextRecrawlPeriodMs(p, 3600000, ContentChange::kChanged), 2880000);
  EXPECT_EQ(NextRecrawlPeriodMs(p, 3600000, ContentChange::kNotSaid), 3600000);
}

TEST(Recrawl, StaysWithinMinAndMax) {
  const RecrawlPolicy p;
  EXPECT_EQ(NextRecrawlPeriodMs(p, 70000, ContentChange::kChanged), 60000);
  EXPECT_EQ(NextRecrawlPeriodMs(p, 60000, ContentChange::kChanged), 60000);
  EXPECT_EQ(NextRecrawlPeriodMs(p, 30000000000, ContentChange::kUnchanged),
            31536000000);
  int64_t period = 60000;
  for (int i = 0; i < 100; ++i) {
    period = NextRecrawlPeriodMs(p, period, ContentChange::kUnchanged);
  }
  EXPECT_EQ(period, 31536000000);
  for (int i = 0; i < 100; ++i) {
    period = NextRecrawlPeriodMs(p, period, ContentChange::kChanged);
  }
  EXPECT_EQ(period, 60000);
}

TEST(Recrawl, UrlsWithoutAPeriodKeepNone) {
  const RecrawlPolicy p;
  EXPECT_EQ(NextRecrawlPeriodMs(p, 0, ContentChange::kUnchanged), 0);
  EXPECT_EQ(NextRecrawlPeriodMs(p, -1, ContentChange::kChanged), -1);
}

TEST(Recrawl, OtherRates) {
  RecrawlPolicy p;
  p.inc_rate = 1.0;
  p.dec_rate = 0.5;
  p.min_ms = 1000;
  p.max_ms = 10000;
  EXPECT_EQ(NextRecrawlPeriodMs(p, 3000, ContentChange::kUnchanged), 6000);
  EXPECT_EQ(NextRecrawlPeriodMs(p, 3000, ContentChange::kChanged), 1500);
  EXPECT_EQ(NextRecrawlPeriodMs(p, 500, ContentChange::kUnchanged), 1000)
      << "a period below min comes back within bounds";
}

}  // namespace
}  // namespace frontier::policy
