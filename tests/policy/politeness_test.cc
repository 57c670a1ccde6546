// Tests for the per-site delay: default, DELAY, Crawl-delay and the
// adaptive factor.
#include "policy/politeness.h"

#include <gtest/gtest.h>

namespace frontier::policy {
namespace {

using std::nullopt;

SiteDelayInputs In(std::optional<int64_t> set_ms,
                   std::optional<int64_t> crawl_delay_ms,
                   std::optional<int64_t> fetch_ms) {
  SiteDelayInputs in;
  in.set_ms = set_ms;
  in.crawl_delay_ms = crawl_delay_ms;
  in.fetch_ms = fetch_ms;
  return in;
}

PolitenessPolicy Adaptive(double factor) {
  PolitenessPolicy p;
  p.delay_ms = 1000;
  p.max_delay_ms = 30000;
  p.delay_factor = factor;
  p.max_crawl_delay_ms = 300000;
  return p;
}

TEST(Politeness, DefaultWhenNothingElseIsKnown) {
  EXPECT_EQ(SiteDelayAfterFetch(Adaptive(0), SiteDelayInputs()),
            (SiteDelay{1000, DelaySource::kDefault}));
  EXPECT_EQ(SiteDelayAfterFetch(Adaptive(0), In(nullopt, nullopt, 20000)),
            (SiteDelay{1000, DelaySource::kDefault}))
      << "factor 0 is off";
}

TEST(Politeness, AdaptiveIsClampedBetweenDelayAndMax) {
  const PolitenessPolicy p = Adaptive(5);
  EXPECT_EQ(SiteDelayAfterFetch(p, In(nullopt, nullopt, 100)),
            (SiteDelay{1000, DelaySource::kDefault}))
      << "a fast site is never visited more often than politeness-delay";
  EXPECT_EQ(SiteDelayAfterFetch(p, In(nullopt, nullopt, 700)),
            (SiteDelay{3500, DelaySource::kAdaptive}));
  EXPECT_EQ(SiteDelayAfterFetch(p, In(nullopt, nullopt, 60000)),
            (SiteDelay{30000, DelaySource::kAdaptive}));
  EXPECT_EQ(SiteDelayAfterFetch(p, In(nullopt, nullopt, -5)),
            (SiteDelay{1000, DelaySource::kDefault}));
}

TEST(Politeness, CrawlDelayIsALowerBoundCappedByTheMax) {
  const PolitenessPolicy p = Adaptive(5);
  EXPECT_EQ(SiteDelayAfterFetch(p, In(nullopt, 10000, nullopt)),
            (SiteDelay{10000, DelaySource::kRobots}));
  EXPECT_EQ(SiteDelayAfterFetch(p, In(nullopt, 10000, 1000)),
            (SiteDelay{10000, DelaySource::kRobots}));
  EXPECT_EQ(SiteDelayAfterFetch(p, In(nullopt, 10000, 3000)),
            (SiteDelay{15000, DelaySource::kAdaptive}));
  EXPECT_EQ(SiteDelayAfterFetch(p, In(nullopt, 3600000, nullopt)),
            (SiteDelay{300000, DelaySource::kRobots}))
      << "robots-max-crawl-delay caps it";
  EXPECT_EQ(SiteDelayAfterFetch(p, In(nullopt, 3600000, 100000)),
            (SiteDelay{300000, DelaySource::kRobots}))
      << "above politeness-max-delay, the crawl-delay still holds";
  EXPECT_EQ(SiteDelayAfterFetch(p, In(nullopt, 200, nullopt)),
            (SiteDelay{1000, DelaySource::kDefault}))
      << "robots.txt never makes the crawler faster than its default";
}

TEST(Politeness, DelaySetWinsOverCrawlDelay) {
  const PolitenessPolicy p = Adaptive(5);
  EXPECT_EQ(SiteDelayAfterFetch(p, In(200, 10000, nullopt)),
            (SiteDelay{200, DelaySource::kSet}));
  EXPECT_EQ(SiteDelayAfterFetch(p, In(200, nullopt, 100)),
            (SiteDelay{500, DelaySource::kAdaptive}));
  EXPECT_EQ(SiteDelayAfterFetch(p, In(60000, nullopt, 100000)),
            (SiteDelay{60000, DelaySource::kSet}));
  EXPECT_EQ(SiteDelayAfterFetch(Adaptive(0), In(0, nullopt, nullopt)),
            (SiteDelay{0, DelaySource::kSet}));
}

TEST(Politeness, SourceNames) {
  EXPECT_EQ(DelaySourceName(DelaySource::kDefault), "default");
  EXPECT_EQ(DelaySourceName(DelaySource::kAdaptive), "adaptive");
  EXPECT_EQ(DelaySourceName(DelaySource::kRobots), "robots");
  EXPECT_EQ(DelaySourceName(DelaySource::kSet), "set");
}

}  // namespace
}  // namespace frontier::policy
