// Tests for the back-off series: doubling, cap, jitter bounds, Retry-After.
#include "policy/backoff.h"

#include <gtest/gtest.h>

#include <random>

namespace frontier::policy {
namespace {

constexpr double kNoJitter = 0.5;

TEST(Backoff, DoublesFromInitialUpToMax) {
  const BackoffPolicy policy;  // 60 s, 86400 s, ±10%
  EXPECT_EQ(BackoffDelayMs(policy, 1, kNoJitter), 60000);
  EXPECT_EQ(BackoffDelayMs(policy, 2, kNoJitter), 120000);
  EXPECT_EQ(BackoffDelayMs(policy, 3, kNoJitter), 240000);
  EXPECT_EQ(BackoffDelayMs(policy, 11, kNoJitter), 61440000);
  EXPECT_EQ(BackoffDelayMs(policy, 12, kNoJitter), 86400000) << "capped";
  EXPECT_EQ(BackoffDelayMs(policy, 4000000000u, kNoJitter), 86400000);
  EXPECT_EQ(BackoffDelayMs(policy, 0, kNoJitter), 60000) << "0 reads as 1";
}

TEST(Backoff, JitterIsTenPercentEitherWay) {
  const BackoffPolicy policy;
  EXPECT_EQ(BackoffDelayMs(policy, 1, 0.0), 54000);
  EXPECT_EQ(BackoffDelayMs(policy, 1, 0.75), 63000);
  EXPECT_EQ(BackoffDelayMs(policy, 1, 0.99), 65880);
  EXPECT_EQ(BackoffDelayMs(policy, 1, -3), 54000) << "clamped into [0, 1)";
  EXPECT_EQ(BackoffDelayMs(policy, 1, 7), 66000);
  // Never above the cap, even jittered upwards.
  EXPECT_EQ(BackoffDelayMs(policy, 20, 0.99), 86400000);
  EXPECT_EQ(BackoffDelayMs(policy, 20, 0.0), 77760000);
}

TEST(Backoff, JitterSpreadsSitesBlockedTogether) {
  const BackoffPolicy policy;
  std::mt19937_64 random(42);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int64_t lo = INT64_MAX;
  int64_t hi = 0;
  for (int i = 0; i < 1000; ++i) {
    const int64_t d = BackoffDelayMs(policy, 3, unit(random));
    ASSERT_GE(d, 216000);
    ASSERT_LE(d, 264000);
    lo = std::min(lo, d);
    hi = std::max(hi, d);
  }
  EXPECT_GT(hi - lo, 40000) << "the delays spread over most of ±10%";
}

TEST(Backoff, RetryAfterReplacesTheSeriesUpToMax) {
  const BackoffPolicy policy;
  EXPECT_EQ(BlockDelayMs(policy, 5, 30000, 0.0), 30000) << "no jitter";
  EXPECT_EQ(BlockDelayMs(policy, 1, 0, 0.9), 0);
  EXPECT_EQ(BlockDelayMs(policy, 1, 999999999999, 0.5), 86400000);
  EXPECT_EQ(BlockDelayMs(policy, 2, std::nullopt, 0.5), 120000);
}

TEST(Backoff, OddPolicies) {
  EXPECT_EQ(
      BackoffDelayMs({.initial_ms = 0, .max_ms = 1000, .jitter = 0.1}, 9, 0.5),
      0);
  EXPECT_EQ(BackoffDelayMs({.initial_ms = 5000, .max_ms = 1000, .jitter = 0.1},
                           1, 0.5),
            1000)
      << "initial above max is max";
  EXPECT_EQ(BackoffDelayMs({.initial_ms = 1000, .max_ms = 100000, .jitter = 0},
                           3, 0.0),
            4000);
}

}  // namespace
}  // namespace frontier::policy
