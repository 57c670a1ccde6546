// robots.txt across crawls (issue 22): the rules live in the shared
// policy.db, so an origin's Crawl-delay holds the site for every crawl's
// fetch (not only the crawl that stored the rules), and new rules send
// every crawl's excluded URLs they allow back to that crawl's queue, each
// crawl's re-check resumable after a reopen without a checkpoint.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "robots/agent_rules.h"
#include "storage/bdb.h"
#include "storage/frontier_fixture.h"
#include "storage/policy_records.h"
#include "storage/records.h"

namespace frontier {
namespace {

class FrontierCrawlRobotsTest : public FrontierFixture {
 protected:
  void SetUp() override {
    FrontierFixture::SetUp();
    opts_.robots = true;
    opts_.robots_agent = "testbot";
  }
  void Use(std::string_view crawl) {
    Status s = fr_->UseCrawl(crawl);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  void SetRules(std::string_view body) {
    Status s = fr_->RobotsSet("http://one.test", 200, body, now_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  // A reopen without a checkpoint: recovery from the log alone.
  void Crash() {
    ASSERT_TRUE(fr_->FlushLog().ok());
    (void)fr_->Close(/*skip_checkpoint=*/true);
    Open();
  }
  // Adds /p/0 … /p/<n-1> of one.test to the current crawl and pops until
  // the robots gate has excluded them all (a POP excludes a few heads).
  void AddExcluded(int n) {
    for (int i = 0; i < n; ++i) Add("http://one.test/p/" + std::to_string(i));
    for (int i = 0; i < 2 * n && fr_->Stats().excluded < uint64_t(n); ++i) {
      EXPECT_EQ(PopOne(), "");
    }
    ASSERT_EQ(fr_->Stats().excluded, uint64_t(n));
  }
  uint64_t Excluded(std::string_view crawl) {
    return fr_->CrawlStats(crawl)->excluded;
  }
};

TEST_F(FrontierCrawlRobotsTest, CrawlDelayHoldsTheSiteForEveryCrawl) {
  // The start keeps the holds not ended by the wall clock: the test's
  // clock is the wall clock, so that the reopen below keeps them.
  now_ = std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
             .count();
  Open();
  Use("a");
  SetRules("User-agent: *\nCrawl-delay: 1\n");  // stored through crawl a
  for (int i = 0; i < 4; ++i) Add("http://one.test/" + std::to_string(i));
  Use("b");
  for (int i = 0; i < 4; ++i) Add("http://one.test/" + std::to_string(i));

  // Which URL of the site comes first is Q order; only the site counts.
  auto fetch = [this] {
    const std::string url = PopOne();
    if (!url.empty()) {
      EXPECT_TRUE(Confirm(url));
    }
    return !url.empty();
  };
  Use("a");
  EXPECT_TRUE(fetch());
  Use("b");
  now_ += 999;
  EXPECT_FALSE(fetch());  // a's Crawl-delay holds b
  now_ += 1;
  EXPECT_TRUE(fetch());
  Use("a");
  now_ += 999;
  EXPECT_FALSE(fetch());  // and b's fetch holds a for the Crawl-delay
  now_ += 1;
  EXPECT_TRUE(fetch());

  // After a crash: a's fetch still holds b, and a crawl that never fetched
  // from the site before takes the delay from the stored rules.
  Crash();
  Use("b");
  EXPECT_FALSE(fetch());
  Use("c");
  Add("http://one.test/c");
  now_ += 1000;
  EXPECT_TRUE(fetch());
  Use("b");
  now_ += 999;
  EXPECT_FALSE(fetch());
  now_ += 1;
  EXPECT_TRUE(fetch());
}

TEST_F(FrontierCrawlRobotsTest, TheDefaultCrawlAloneKeepsItsOwnDelay) {
  // One crawl: the gate is off and the site record's delay is the one the
  // robots report stored, as before crawls.
  Open();
  SetRules("User-agent: *\nCrawl-delay: 2\n");
  Add("http://one.test/1");
  Add("http://one.test/2");
  EXPECT_EQ(PopOne(), "http://one.test/1");
  now_ += 1999;
  EXPECT_EQ(PopOne(), "");
  now_ += 1;
  EXPECT_EQ(PopOne(), "http://one.test/2");
}

TEST_F(FrontierCrawlRobotsTest, NewRulesBringBackEveryCrawlsExcludedUrls) {
  Open();
  SetRules("User-agent: *\nDisallow: /p\n");
  AddExcluded(3);  // the default crawl's
  Use("b");
  AddExcluded(5);
  Use("a");  // a crawl with nothing of the origin stores the new rules
  SetRules("User-agent: *\nDisallow: /p/1\n");
  for (int i = 0; i < 5; ++i) Tick();
  EXPECT_EQ(Excluded("DEFAULT"), 1u);  // /p/1 only
  EXPECT_EQ(fr_->CrawlStats("DEFAULT")->queued, 2u);
  EXPECT_EQ(Excluded("b"), 1u);
  EXPECT_EQ(fr_->CrawlStats("b")->queued, 4u);
  Use("b");
  std::vector<std::string> got = Pop(10);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{
                     "http://one.test/p/0", "http://one.test/p/2",
                     "http://one.test/p/3", "http://one.test/p/4"}));
}

TEST_F(FrontierCrawlRobotsTest, AReCheckResumesInEachCrawlAfterACrash) {
  constexpr int kUrls = 1200;  // more than two re-check batches (500)
  Open();
  SetRules("User-agent: *\nDisallow: /p\n");
  Use("b");
  AddExcluded(kUrls);
  Use("DEFAULT");
  // /p/1, /p/10../p/19, /p/100../p/199, /p/1000../p/1199 stay out.
  SetRules("User-agent: *\nDisallow: /p/1\n");
  constexpr uint64_t kKept = 1 + 10 + 100 + 200;
  EXPECT_EQ(Excluded("b"), uint64_t{kUrls});  // b's share waits for Tick
  Tick();  // one batch of b's
  const uint64_t after_one = Excluded("b");
  EXPECT_LT(after_one, uint64_t{kUrls});
  EXPECT_GT(after_one, kKept);
  Crash();
  EXPECT_EQ(Excluded("b"), after_one);
  for (int i = 0; i < 10; ++i) Tick();
  EXPECT_EQ(Excluded("b"), kKept);
  EXPECT_EQ(fr_->CrawlStats("b")->queued, kUrls - kKept);
  // Done: nothing left pending after another reopen.
  Crash();
  Tick();
  EXPECT_EQ(Excluded("b"), kKept);
  EXPECT_EQ(fr_->CrawlStats("b")->queued, kUrls - kKept);
}

TEST_F(FrontierCrawlRobotsTest, OneRobotsFetchPerOriginAcrossCrawls) {
  Open();
  Use("a");
  Add("http://one.test/1");
  EXPECT_EQ(PopOne(), "http://one.test/robots.txt");
  Use("b");
  Add("http://one.test/1");
  EXPECT_EQ(PopOne(), "");  // a's fetch of it is in flight
  // a's worker died: its lease ends, and b's POP fetches the robots.txt.
  now_ += opts_.lease_timeout_ms + 1;
  Use("a");
  Tick();
  Use("b");
  EXPECT_EQ(PopOne(), "http://one.test/robots.txt");
  // a's robots fetch is queued again, but b's is in flight: a waits.
  Use("a");
  EXPECT_EQ(PopOne(), "");
  now_ += 200;
  EXPECT_EQ(PopOne(), "");
  Use("b");
  ConfirmOptions o;
  o.status = 200;
  o.body = "User-agent: *\nDisallow: /private\n";
  ASSERT_TRUE(fr_->Confirm("http://one.test/robots.txt", o, now_).ok());
  // b's rules are fresh: a's own fetch is not needed any more.
  Use("a");
  now_ += 200;
  EXPECT_EQ(PopOne(), "http://one.test/1");
  EXPECT_EQ(Info("http://one.test/robots.txt").state, UrlState::kDone);
  EXPECT_EQ(fr_->CrawlStats("a")->queued, 0u);
  // A robots.txt a client adds is fetched as asked.
  Add("http://one.test/robots.txt?again");
  EXPECT_EQ(PopOne(), "http://one.test/robots.txt?again");
}

// A directory of a version before per-crawl re-checks: its policy record
// held the re-check's pending flag and position. Written here by hand, the
// frontier closed: the origin's new rules, a re-check pending and started.
void WriteLegacyPendingRecheck(const std::string& dir, std::string_view body) {
  DbEnv env(0);
  ASSERT_EQ(env.open(dir.c_str(),
                     DB_CREATE | DB_INIT_LOG | DB_INIT_MPOOL | DB_INIT_TXN |
                         DB_RECOVER | DB_PRIVATE,
                     0644),
            0);
  {
    bdb::Database policy;
    ASSERT_TRUE(policy.Open(&env, "policy.db", 0).ok());
    const auto key = EncodePolicyKey(Fingerprint("http://one.test"));
    std::string value;
    ASSERT_TRUE(policy.Get(nullptr, key, &value).ok());
    PolicyRecord p;
    ASSERT_TRUE(DecodePolicyRecord(value, &p));
    p.rules = robots::RulesForAgent(body, "testbot").Serialize();
    p.recheck = true;
    p.recheck_started = true;
    p.recheck_after = UrlKey{1, 2};
    bdb::Txn txn;
    ASSERT_TRUE(txn.Begin(&env).ok());
    ASSERT_TRUE(policy.Put(txn.get(), key, EncodePolicyRecord(p)).ok());
    ASSERT_TRUE(txn.Commit().ok());
    ASSERT_TRUE(policy.Close().ok());
  }
  ASSERT_EQ(env.close(0), 0);
}

TEST_F(FrontierCrawlRobotsTest,
       AReCheckPendingInAnOlderDirectoryRunsInEachCrawl) {
  Open();
  SetRules("User-agent: *\nDisallow: /p\n");
  AddExcluded(3);
  Use("b");
  AddExcluded(3);
  ASSERT_TRUE(fr_->Close(/*skip_checkpoint=*/false).ok());
  fr_.reset();
  WriteLegacyPendingRecheck(dir_, "User-agent: *\nDisallow: /p/1\n");
  Open();
  for (int i = 0; i < 3; ++i) Tick();
  EXPECT_EQ(Excluded("DEFAULT"), 1u);
  EXPECT_EQ(Excluded("b"), 1u);
  EXPECT_EQ(fr_->CrawlStats("b")->queued, 2u);
  // Converted once: the next start finds nothing pending.
  Crash();
  Tick();
  EXPECT_EQ(Excluded("b"), 1u);
  EXPECT_EQ(fr_->CrawlStats("b")->queued, 2u);
}

}  // namespace
}  // namespace frontier
