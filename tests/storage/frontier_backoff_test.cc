// Storage-layer tests of issue 8 §2 and §4: the back-off of a site that
// answers 429/503 (the series, Retry-After, blocks in POP, durability),
// SITE BLOCK, and the lease verbs EXTEND and RELEASE. The clock is the
// test's.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "frontier_fixture.h"
#include "storage/frontier.h"
#include "storage/records.h"

namespace frontier {
namespace {

constexpr int64_t kSecond = 1000;

class BackoffTest : public FrontierFixture {
 protected:
  void Add(const std::string& url, int priority = 5000) {
    ASSERT_EQ(FrontierFixture::Add(url, "", Prio(priority)), AddOutcome::kAdded)
        << url;
  }
  std::vector<std::string> PopAll() { return Pop(100); }
  bool FailWith(const std::string& url, std::optional<int> status,
                std::optional<std::string> retry_after = std::nullopt,
                int64_t delay_ms = 0) {
    FailOptions o;
    o.status = status;
    o.delay_ms = delay_ms;
    if (retry_after) o.retry_after = *retry_after;
    auto r = fr_->Fail(url, o, now_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && *r;
  }
  // Whether something can be popped at `at_ms` (the clock only moves on).
  bool ReadyAt(int64_t at_ms) {
    now_ = at_ms;
    return fr_->HasReady(at_ms);
  }
  // The block that starts now, measured by when the site's one URL comes
  // back: after `at_least_ms` and by `at_most_ms` from now (both bounds
  // included). Leaves the clock at the end, the URL leased again.
  void ExpectBlockBetween(int64_t at_least_ms, int64_t at_most_ms,
                          const std::string& url) {
    const int64_t start = now_;
    EXPECT_TRUE(PopAll().empty()) << "blocked at once";
    EXPECT_FALSE(ReadyAt(start + at_least_ms - 1)) << "block too short";
    EXPECT_TRUE(ReadyAt(start + at_most_ms)) << "block too long";
    EXPECT_EQ(PopOne(), url);
  }
};

TEST_F(BackoffTest, A429BlocksTheWholeSiteAndCountsNoAttempt) {
  Open();
  Add("http://a.com/1", 1);
  Add("http://a.com/2", 2);
  Add("http://b.com/1", 3);
  ASSERT_EQ(PopOne(), "http://a.com/1");
  ASSERT_TRUE(FailWith("http://a.com/1", 429));

  UrlInfo info = Info("http://a.com/1");
  EXPECT_EQ(info.state, UrlState::kQueued);
  EXPECT_EQ(info.attempts, 0);
  // Neither a.com URL is handed out; b.com is not held back.
  EXPECT_EQ(PopAll(), std::vector<std::string>{"http://b.com/1"});
  FrontierStats stats = fr_->Stats();
  EXPECT_EQ(stats.blocked_sites, 1u);
  EXPECT_EQ(stats.backoffs, 1u);
  EXPECT_EQ(stats.failed, 1u);

  // backoff-initial 60 s, ±10%: the URL keeps its place in the queue.
  EXPECT_FALSE(ReadyAt(kT0 + 54 * kSecond - 1));
  EXPECT_TRUE(ReadyAt(kT0 + 66 * kSecond));
  EXPECT_EQ(PopAll(),
            (std::vector<std::string>{"http://a.com/1", "http://a.com/2"}));
  EXPECT_EQ(fr_->Stats().blocked_sites, 0u);
}

TEST_F(BackoffTest, TheSeriesDoublesUpToTheCapAndAConfirmEndsIt) {
  opts_.backoff_initial_ms = 10 * kSecond;
  opts_.backoff_max_ms = 50 * kSecond;
  Open();
  const std::string url = "http://a.com/";
  Add(url);
  ASSERT_EQ(PopOne(), url);
  for (int64_t base : {10, 20, 40, 50, 50}) {
    SCOPED_TRACE("block of " + std::to_string(base) + " s");
    ASSERT_TRUE(FailWith(url, 503));
    // ±10% jitter, never past the cap.
    ExpectBlockBetween(base * 900, std::min<int64_t>(base * 1100, 50'000), url);
  }
  EXPECT_EQ(Info(url).attempts, 0);
  EXPECT_EQ(fr_->Stats().backoffs, 5u);

  // A success ends the series: the next 429 starts it again.
  Add("http://a.com/next");
  ASSERT_TRUE(Confirm(url));
  ASSERT_EQ(PopOne(), "http://a.com/next");
  ASSERT_TRUE(FailWith("http://a.com/next", 429));
  ExpectBlockBetween(9 * kSecond, 11 * kSecond, "http://a.com/next");
}

TEST_F(BackoffTest, JitterSpreadsSitesBlockedTogether) {
  opts_.backoff_initial_ms = 100 * kSecond;
  Open();
  for (int i = 0; i < 20; ++i) Add("http://s" + std::to_string(i) + ".com/");
  std::vector<std::string> popped = PopAll();
  ASSERT_EQ(popped.size(), 20u);
  for (const std::string& u : popped) ASSERT_TRUE(FailWith(u, 429));
  // The 20 blocks end at different moments between 90 and 110 s.
  size_t back = 0, moments = 0;
  for (int64_t t = kT0 + 90 * kSecond; t <= kT0 + 110 * kSecond; t += 500) {
    now_ = t;
    size_t n = PopAll().size();
    back += n;
    if (n > 0) ++moments;
  }
  EXPECT_EQ(back, 20u);
  EXPECT_GE(moments, 5u) << "the blocks should not all end together";
}

TEST_F(BackoffTest, RetryAfterInSecondsReplacesTheSeries) {
  Open();
  Add("http://a.com/");
  ASSERT_EQ(PopOne(), "http://a.com/");
  ASSERT_TRUE(FailWith("http://a.com/", 429, " 120 "));
  ExpectBlockBetween(120 * kSecond, 120 * kSecond, "http://a.com/");
}

TEST_F(BackoffTest, RetryAfterAsAnHttpDate) {
  Open();
  Add("http://a.com/");
  ASSERT_EQ(PopOne(), "http://a.com/");
  // kT0 + 300 s, in IMF-fixdate.
  ASSERT_TRUE(FailWith("http://a.com/", 503, "Tue, 14 Nov 2023 22:18:20 GMT"));
  ExpectBlockBetween(300 * kSecond, 300 * kSecond, "http://a.com/");
  // A date in the past: no wait, but still a back-off (no attempt).
  ASSERT_TRUE(FailWith("http://a.com/", 503, "Tue, 14 Nov 2023 22:00:00 GMT"));
  EXPECT_EQ(PopOne(), "http://a.com/");
  EXPECT_EQ(Info("http://a.com/").attempts, 0);
}

TEST_F(BackoffTest, RetryAfterBackoffsAreStepsOfTheSeriesToo) {
  opts_.backoff_initial_ms = 10 * kSecond;
  Open();
  Add("http://a.com/");
  ASSERT_EQ(PopOne(), "http://a.com/");
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(FailWith("http://a.com/", 429, "1"));
    ExpectBlockBetween(kSecond, kSecond, "http://a.com/");
  }
  ASSERT_TRUE(FailWith("http://a.com/", 429));  // the fourth: 8 x 10 s
  ExpectBlockBetween(72 * kSecond, 88 * kSecond, "http://a.com/");
}

TEST_F(BackoffTest, RetryAfterIsCappedAtBackoffMax) {
  opts_.backoff_max_ms = 3600 * kSecond;
  Open();
  Add("http://a.com/");
  ASSERT_EQ(PopOne(), "http://a.com/");
  ASSERT_TRUE(FailWith("http://a.com/", 429, "99999999"));
  ExpectBlockBetween(3600 * kSecond, 3600 * kSecond, "http://a.com/");
}

TEST_F(BackoffTest, AnUnreadableRetryAfterIsIgnored) {
  Open();
  int i = 0;
  for (std::string garbage : {"soon", "1.5", "-3", "", "Tue, 99 Nov 2023"}) {
    SCOPED_TRACE("Retry-After '" + garbage + "'");
    const std::string url = "http://a.com/" + std::to_string(i++);
    Add(url);
    ASSERT_EQ(PopOne(), url);
    ASSERT_TRUE(FailWith(url, 429, garbage));
    // As if there were none: the series' first step, 60 s ±10%.
    ExpectBlockBetween(54 * kSecond, 66 * kSecond, url);
    EXPECT_EQ(Info(url).attempts, 0);
    ASSERT_TRUE(Confirm(url));  // ends the series for the next round
  }
}

TEST_F(BackoffTest, OtherFailuresCountAttemptsAndDoNotBlock) {
  opts_.max_attempts = 2;
  Open();
  Add("http://a.com/");
  ASSERT_EQ(PopOne(), "http://a.com/");
  ASSERT_TRUE(FailWith("http://a.com/", 500));
  EXPECT_EQ(Info("http://a.com/").attempts, 1);
  ASSERT_EQ(PopOne(), "http://a.com/");  // not blocked
  EXPECT_EQ(fr_->Stats().backoffs, 0u);
  ASSERT_TRUE(FailWith("http://a.com/", std::nullopt));
  EXPECT_EQ(Info("http://a.com/").state, UrlState::kDead);
}

TEST_F(BackoffTest, RateLimitingNeverKillsAUrl) {
  opts_.max_attempts = 2;
  opts_.backoff_initial_ms = kSecond;
  opts_.backoff_max_ms = kSecond;
  Open();
  Add("http://a.com/");
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(PopOne(), "http://a.com/") << i;
    ASSERT_TRUE(FailWith("http://a.com/", 429));
    now_ += 2 * kSecond;
  }
  EXPECT_EQ(Info("http://a.com/").state, UrlState::kQueued);
}

TEST_F(BackoffTest, TheStatusCodesAreConfigurable) {
  opts_.backoff_status_codes = {418};
  Open();
  Add("http://a.com/");
  ASSERT_EQ(PopOne(), "http://a.com/");
  ASSERT_TRUE(FailWith("http://a.com/", 429));  // not listed: an attempt
  EXPECT_EQ(Info("http://a.com/").attempts, 1);
  ASSERT_EQ(PopOne(), "http://a.com/");
  ASSERT_TRUE(FailWith("http://a.com/", 418));
  EXPECT_EQ(Info("http://a.com/").attempts, 1);
  EXPECT_TRUE(PopAll().empty());

  FrontierOptions none = opts_;
  none.backoff_status_codes.clear();
  ASSERT_TRUE(fr_->UpdateOptions(none, now_).ok());
  now_ += 86400 * kSecond;
  ASSERT_EQ(PopOne(), "http://a.com/");
  ASSERT_TRUE(FailWith("http://a.com/", 418));
  EXPECT_EQ(Info("http://a.com/").attempts, 2);
}

TEST_F(BackoffTest, ABurstOf429sIsOneStepOfTheSeries) {
  Open();
  Add("http://a.com/1", 1);
  Add("http://a.com/2", 2);
  Add("http://a.com/3", 3);
  ASSERT_EQ(PopAll().size(), 3u);  // no lease cap in these tests
  for (const char* u : {"http://a.com/1", "http://a.com/2", "http://a.com/3"}) {
    ASSERT_TRUE(FailWith(u, 429));
  }
  EXPECT_EQ(fr_->Stats().backoffs, 3u);
  // Still the first step (60 s ±10%), not the third (240 s).
  EXPECT_FALSE(ReadyAt(kT0 + 54 * kSecond - 1));
  EXPECT_TRUE(ReadyAt(kT0 + 66 * kSecond));
  ASSERT_EQ(PopOne(), "http://a.com/1");
  // The next 429 after the block is the second step: 120 s.
  ASSERT_TRUE(FailWith("http://a.com/1", 429));
  ExpectBlockBetween(108 * kSecond, 132 * kSecond, "http://a.com/1");
}

TEST_F(BackoffTest, AFailWithDelayAndABackoffWaitsForBoth) {
  Open();
  Add("http://a.com/1", 1);
  Add("http://a.com/2", 2);
  ASSERT_EQ(PopOne(), "http://a.com/1");
  ASSERT_TRUE(
      FailWith("http://a.com/1", 429, "10", /*delay_ms=*/100 * kSecond));
  EXPECT_EQ(Info("http://a.com/1").state, UrlState::kScheduled);
  EXPECT_EQ(Info("http://a.com/1").attempts, 0);
  now_ += 10 * kSecond;
  EXPECT_EQ(PopAll(), std::vector<std::string>{"http://a.com/2"});
  now_ += 90 * kSecond;
  EXPECT_EQ(PopAll(), std::vector<std::string>{"http://a.com/1"});
}

TEST_F(BackoffTest, BlocksAndSeriesSurviveAStopWithoutCheckpoint) {
  Open();
  Add("http://a.com/1", 1);
  Add("http://b.com/1", 2);
  ASSERT_EQ(PopOne(), "http://a.com/1");
  ASSERT_TRUE(FailWith("http://a.com/1", 429, "600"));
  ASSERT_TRUE(fr_->FlushLog().ok());
  ASSERT_TRUE(fr_->Close(/*skip_checkpoint=*/true).ok());  // as kill -9
  Open();
  FrontierStats stats = fr_->Stats();
  EXPECT_EQ(stats.blocked_sites, 1u);
  EXPECT_EQ(stats.backoffs, 1u);
  EXPECT_EQ(PopAll(), std::vector<std::string>{"http://b.com/1"});
  ASSERT_TRUE(Confirm("http://b.com/1"));
  EXPECT_FALSE(ReadyAt(kT0 + 600 * kSecond - 1));
  EXPECT_TRUE(ReadyAt(kT0 + 600 * kSecond));
  ASSERT_EQ(PopOne(), "http://a.com/1");
  // The series went on from where it was: the second step, 120 s ±10%.
  ASSERT_TRUE(FailWith("http://a.com/1", 429));
  ExpectBlockBetween(108 * kSecond, 132 * kSecond, "http://a.com/1");
}

TEST_F(BackoffTest, SiteBlockHoldsTheSiteAndZeroUnblocks) {
  Open();
  Add("http://a.com/1", 1);
  Add("http://b.com/1", 2);
  ASSERT_TRUE(fr_->BlockSite("a.com", 30 * kSecond, now_).ok());
  EXPECT_EQ(fr_->Stats().blocked_sites, 1u);
  EXPECT_EQ(PopAll(), std::vector<std::string>{"http://b.com/1"});
  now_ += 10 * kSecond;
  EXPECT_TRUE(PopAll().empty());
  // A URL names its site too.
  ASSERT_TRUE(fr_->BlockSite("http://A.com/anything", 0, now_).ok());
  EXPECT_EQ(fr_->Stats().blocked_sites, 0u);
  EXPECT_EQ(PopAll(), std::vector<std::string>{"http://a.com/1"});

  // A block may also be made shorter.
  ASSERT_TRUE(fr_->Confirm("http://a.com/1", {}, now_).ok());
  Add("http://a.com/2");
  ASSERT_TRUE(fr_->BlockSite("a.com", 3600 * kSecond, now_).ok());
  ASSERT_TRUE(fr_->BlockSite("a.com", 5 * kSecond, now_).ok());
  EXPECT_FALSE(ReadyAt(now_ + 5 * kSecond - 1));
  EXPECT_TRUE(ReadyAt(now_ + 1));
}

TEST_F(BackoffTest, ABlockBeforeTheSiteHasUrlsApplies) {
  Open();
  ASSERT_TRUE(fr_->BlockSite("later.com", 30 * kSecond, now_).ok());
  EXPECT_EQ(fr_->Stats().sites, 1u);
  Add("http://later.com/");
  EXPECT_TRUE(PopAll().empty());
  now_ += 30 * kSecond;
  EXPECT_EQ(PopOne(), "http://later.com/");
  // Unblocking a site the frontier never saw creates nothing.
  ASSERT_TRUE(fr_->BlockSite("never.com", 0, now_).ok());
  EXPECT_EQ(fr_->Stats().sites, 1u);
}

TEST_F(BackoffTest, BlocksEndInStatsAtTheNextTick) {
  Open();
  ASSERT_TRUE(fr_->BlockSite("a.com", 30 * kSecond, now_).ok());
  ASSERT_TRUE(fr_->BlockSite("b.com", 60 * kSecond, now_).ok());
  EXPECT_EQ(fr_->Stats().blocked_sites, 2u);
  ASSERT_TRUE(fr_->Tick(kT0 + 30 * kSecond).ok());
  EXPECT_EQ(fr_->Stats().blocked_sites, 1u);
  ASSERT_TRUE(fr_->Tick(kT0 + 60 * kSecond).ok());
  EXPECT_EQ(fr_->Stats().blocked_sites, 0u);
}

TEST_F(BackoffTest, SiteBlockRefusesBadInputAndChangesNothing) {
  Open();
  Add("http://a.com/");
  for (const char* bad : {"a.com/path", "http://", "", "a b.com", "x@a.com"}) {
    Status s = fr_->BlockSite(bad, 10 * kSecond, now_);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad << ": " << s.ToString();
  }
  EXPECT_TRUE(fr_->BlockSite("a.com", -1, now_).IsInvalidArgument());
  EXPECT_EQ(fr_->Stats().blocked_sites, 0u);
  EXPECT_EQ(fr_->Stats().sites, 1u);
  EXPECT_EQ(PopOne(), "http://a.com/");
}

TEST_F(BackoffTest, ExtendMovesTheLeaseDeadline) {
  Open();
  Add("http://a.com/");
  ASSERT_EQ(Pop(1, 10 * kSecond).size(), 1u);
  now_ += 5 * kSecond;
  auto r = fr_->Extend("http://a.com/", 100 * kSecond, now_);
  ASSERT_TRUE(r.ok() && *r);
  EXPECT_EQ(Info("http://a.com/").due_ms, now_ + 100 * kSecond);
  // Past the old deadline the lease holds.
  now_ += 50 * kSecond;
  ASSERT_TRUE(fr_->Tick(now_).ok());
  EXPECT_EQ(Info("http://a.com/").state, UrlState::kLeased);
  EXPECT_EQ(fr_->Stats().expired, 0u);
  // And it still runs out at the new one, counting an attempt.
  now_ += 50 * kSecond;
  EXPECT_EQ(PopOne(), "http://a.com/");
  EXPECT_EQ(Info("http://a.com/").attempts, 1);
  EXPECT_EQ(fr_->Stats().expired, 1u);
}

TEST_F(BackoffTest, ExtendMayShortenAndAnswersZeroWhenNotLeased) {
  Open();
  Add("http://a.com/");
  Add("http://b.com/");
  ASSERT_EQ(Pop(1, 100 * kSecond).size(), 1u);
  const std::string leased = Info("http://a.com/").state == UrlState::kLeased
                                 ? "http://a.com/"
                                 : "http://b.com/";
  const std::string queued =
      leased == "http://a.com/" ? "http://b.com/" : "http://a.com/";
  auto r = fr_->Extend(leased, kSecond, now_);
  ASSERT_TRUE(r.ok() && *r);
  now_ += kSecond;
  EXPECT_EQ(PopAll().size(), 2u);  // both: the lease ran out

  for (const char* u : {"http://unknown.com/", "http://a.com/other"}) {
    r = fr_->Extend(u, kSecond, now_);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_FALSE(*r) << u;
  }
  ASSERT_TRUE(Confirm(queued));
  r = fr_->Extend(queued, kSecond, now_);  // done, not leased
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
  EXPECT_TRUE(fr_->Extend(leased, 0, now_).status().IsInvalidArgument());
  EXPECT_TRUE(
      fr_->Extend("not a url", kSecond, now_).status().IsInvalidArgument());
}

TEST_F(BackoffTest, ReleaseFreesTheSitesSlotAtOnce) {
  opts_.site_max_leases = 1;
  opts_.politeness_delay_ms = 0;
  Open();
  Add("http://a.com/1", 1);
  Add("http://a.com/2", 2);
  ASSERT_EQ(PopOne(), "http://a.com/1");
  EXPECT_TRUE(PopAll().empty()) << "one lease per site";
  auto r = fr_->Release("http://a.com/1", 0, now_);
  ASSERT_TRUE(r.ok() && *r);
  UrlInfo info = Info("http://a.com/1");
  EXPECT_EQ(info.state, UrlState::kQueued);
  EXPECT_EQ(info.attempts, 0);
  EXPECT_EQ(fr_->Stats().leased, 0u);
  EXPECT_EQ(fr_->Stats().queued, 2u);
  EXPECT_EQ(PopOne(), "http://a.com/1");  // at once, first in line again
}

TEST_F(BackoffTest, ReleaseWithADelaySchedulesTheUrl) {
  opts_.site_max_leases = 1;
  Open();
  Add("http://a.com/1", 1);
  Add("http://a.com/2", 2);
  ASSERT_EQ(PopOne(), "http://a.com/1");
  auto r = fr_->Release("http://a.com/1", 30 * kSecond, now_);
  ASSERT_TRUE(r.ok() && *r);
  EXPECT_EQ(Info("http://a.com/1").state, UrlState::kScheduled);
  EXPECT_EQ(Info("http://a.com/1").due_ms, now_ + 30 * kSecond);
  EXPECT_EQ(PopOne(), "http://a.com/2");  // the slot is free meanwhile
  ASSERT_TRUE(Confirm("http://a.com/2"));
  now_ += 30 * kSecond;
  EXPECT_EQ(PopOne(), "http://a.com/1");
  EXPECT_EQ(Info("http://a.com/1").attempts, 0);
}

TEST_F(BackoffTest, ReleaseAnswersZeroWhenNotLeasedAndRefusesBadInput) {
  Open();
  Add("http://a.com/");
  auto r = fr_->Release("http://a.com/", 0, now_);  // queued, not leased
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
  r = fr_->Release("http://unknown.com/", 0, now_);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
  ASSERT_EQ(PopOne(), "http://a.com/");
  EXPECT_TRUE(
      fr_->Release("http://a.com/", -1, now_).status().IsInvalidArgument());
  EXPECT_EQ(Info("http://a.com/").state, UrlState::kLeased);
  ASSERT_TRUE(Confirm("http://a.com/"));
  r = fr_->Release("http://a.com/", 0, now_);  // done
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
  EXPECT_EQ(Info("http://a.com/").state, UrlState::kDone);
}

// --- The counters record -----------------------------------------------

// A version 1 record as frontierd wrote it before `backoffs`: 7 state
// counters and 8 cumulative ones, each 8 bytes big-endian.
std::string CountersV1(const std::vector<uint64_t>& values) {
  std::string out(1, '\x01');
  for (uint64_t v : values) {
    for (int shift = 56; shift >= 0; shift -= 8) {
      out.push_back(static_cast<char>(v >> shift));
    }
  }
  return out;
}

TEST(CountersRecordTest, AVersion1RecordReadsWithBackoffsAtZero) {
  std::vector<uint64_t> values;
  for (uint64_t i = 1; i <= 15; ++i) values.push_back(i * 100);
  FrontierStats s;
  s.backoffs = 77;  // must be reset: the old record has none
  ASSERT_TRUE(DecodeStats(CountersV1(values), &s));
  EXPECT_EQ(s.added, 800u);
  EXPECT_EQ(s.recrawled, 1500u);
  EXPECT_EQ(s.backoffs, 0u);
  values.pop_back();  // one short
  EXPECT_FALSE(DecodeStats(CountersV1(values), &s));
}

TEST(CountersRecordTest, TheCurrentRecordRoundTrips) {
  FrontierStats s;
  s.urls = 9;
  s.added = 1;
  s.recrawled = 2;
  s.backoffs = 3;
  s.blocked_sites = 4;  // in memory only
  FrontierStats read;
  ASSERT_TRUE(DecodeStats(EncodeStats(s), &read));
  EXPECT_EQ(read.urls, 9u);
  EXPECT_EQ(read.added, 1u);
  EXPECT_EQ(read.recrawled, 2u);
  EXPECT_EQ(read.backoffs, 3u);
  EXPECT_EQ(read.blocked_sites, 0u);
}

TEST(CountersRecordTest, ARecordFromANewerVersionIsRefused) {
  FrontierStats s;
  std::string record = EncodeStats(s);
  // Version 2: 1 + 7 * 8 bytes, then the count of cumulative counters
  // (one byte while below 128). One counter more than this version has:
  const size_t count_at = 1 + 7 * 8;
  ASSERT_LT(static_cast<unsigned char>(record[count_at]), 127);
  record[count_at] = static_cast<char>(record[count_at] + 1);
  record.append(8, '\0');
  FrontierStats read;
  EXPECT_FALSE(DecodeStats(record, &read));
  // Truncated or padded records are corrupt.
  std::string good = EncodeStats(s);
  EXPECT_FALSE(DecodeStats(good.substr(0, good.size() - 1), &read));
  EXPECT_FALSE(DecodeStats(good + "x", &read));
}

}  // namespace
}  // namespace frontier
