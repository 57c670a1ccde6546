// Crawls (issue 22): namespaces with their own URLs, queue, sites and
// counters in one environment; politeness shared per site across them;
// CRAWL DELETE drops a crawl's files in one transaction; everything comes
// back after a reopen without a checkpoint (what a kill -9 leaves).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "storage/frontier_fixture.h"
#include "storage/host_gate.h"

namespace frontier {
namespace {

class FrontierCrawlsTest : public FrontierFixture {
 protected:
  void Use(std::string_view crawl) {
    Status s = fr_->UseCrawl(crawl);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  // A reopen without a checkpoint: recovery from the log alone.
  void Crash() {
    ASSERT_TRUE(fr_->FlushLog().ok());
    (void)fr_->Close(/*skip_checkpoint=*/true);
    Open();
  }
  std::vector<std::string> CrawlFiles() {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("crawl-", 0) == 0) out.push_back(name);
    }
    return out;
  }
};

TEST_F(FrontierCrawlsTest, NamesAreChecked) {
  EXPECT_TRUE(Frontier::ValidCrawlName("news"));
  EXPECT_TRUE(Frontier::ValidCrawlName("DEFAULT"));
  EXPECT_TRUE(Frontier::ValidCrawlName(std::string(255, 'x')));
  EXPECT_FALSE(Frontier::ValidCrawlName(""));
  EXPECT_FALSE(Frontier::ValidCrawlName(std::string(256, 'x')));
  EXPECT_FALSE(Frontier::ValidCrawlName("a b"));
  EXPECT_FALSE(Frontier::ValidCrawlName("a\tb"));
  EXPECT_FALSE(Frontier::ValidCrawlName("a\x7f"));
  EXPECT_FALSE(Frontier::ValidCrawlName("list"));
  EXPECT_FALSE(Frontier::ValidCrawlName("Info"));
  EXPECT_FALSE(Frontier::ValidCrawlName("DELETE"));
  Open();
  EXPECT_TRUE(fr_->UseCrawl("a b").IsInvalidArgument());
  EXPECT_EQ(fr_->CurrentCrawl(), "DEFAULT");
  EXPECT_TRUE(fr_->DeleteCrawl("DEFAULT").status().IsInvalidArgument());
  auto none = fr_->DeleteCrawl("nothing");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(*none);
  EXPECT_EQ(fr_->ListCrawls(), std::vector<std::string>{"DEFAULT"});
}

TEST_F(FrontierCrawlsTest, TheSameUrlIsPoppedInEachCrawl) {
  Open();
  EXPECT_EQ(Add("http://a.com/1"), AddOutcome::kAdded);
  Use("news");
  EXPECT_FALSE(*fr_->Seen("http://a.com/1"));
  EXPECT_EQ(Add("http://a.com/1"), AddOutcome::kAdded);
  EXPECT_EQ(Add("http://b.com/2"), AddOutcome::kAdded);
  EXPECT_EQ(fr_->Stats().urls, 2u);
  EXPECT_EQ(Pop(10).size(), 2u);
  Use("DEFAULT");
  EXPECT_EQ(fr_->Stats().urls, 1u);
  EXPECT_EQ(PopOne(), "http://a.com/1");
  EXPECT_TRUE(Confirm("http://a.com/1"));
  EXPECT_EQ(fr_->CrawlStats("news")->leased, 2u);
  EXPECT_EQ(fr_->CrawlStats("DEFAULT")->done, 1u);
  EXPECT_EQ(fr_->CrawlStats("other"), std::nullopt);
  EXPECT_EQ(fr_->ListCrawls(), (std::vector<std::string>{"DEFAULT", "news"}));
}

TEST_F(FrontierCrawlsTest, CrawlsComeBackAfterACrash) {
  Open();
  EXPECT_EQ(Add("http://a.com/0"), AddOutcome::kAdded);
  Use("b");
  for (int i = 0; i < 20; ++i) Add("http://a.com/" + std::to_string(i));
  EXPECT_EQ(Pop(5, 60'000).size(), 5u);
  Use("c");
  Add("http://c.com/1");
  Use("DEFAULT");
  Crash();
  EXPECT_EQ(fr_->ListCrawls(), (std::vector<std::string>{"DEFAULT", "b", "c"}));
  EXPECT_EQ(fr_->Stats().urls, 1u);
  FrontierStats b = *fr_->CrawlStats("b");
  EXPECT_EQ(b.urls, 20u);
  EXPECT_EQ(b.leased, 5u);
  EXPECT_EQ(b.queued, 15u);
  EXPECT_EQ(b.added, 20u);  // cumulative counters are the crawl's own
  Use("b");
  EXPECT_EQ(Pop(100).size(), 15u);
  // The leases of a crawl that is not current expire on Tick.
  Use("c");
  now_ += 61'000;
  Tick();
  EXPECT_EQ(fr_->CrawlStats("b")->expired, 5u);
  EXPECT_EQ(fr_->CrawlStats("b")->queued, 5u);
  EXPECT_EQ(fr_->CurrentCrawl(), "c");
}

TEST_F(FrontierCrawlsTest, CrawlsShareASitesDelay) {
  opts_.politeness_delay_ms = 1000;
  Open();
  Add("http://a.com/1");
  Add("http://a.com/2");
  Use("b");
  Add("http://a.com/1");
  Add("http://a.com/2");
  EXPECT_EQ(PopOne(), "http://a.com/1");
  Use("DEFAULT");
  EXPECT_EQ(PopOne(), "");  // b fetched from a.com a moment ago
  now_ += 1000;
  EXPECT_EQ(PopOne(), "http://a.com/1");
  Use("b");
  now_ += 999;
  EXPECT_EQ(PopOne(), "");
  now_ += 1;
  EXPECT_EQ(PopOne(), "http://a.com/2");
}

TEST_F(FrontierCrawlsTest, CrawlsShareASitesLeaseCap) {
  opts_.site_max_leases = 1;
  Open();
  Add("http://a.com/1");
  Use("b");
  Add("http://a.com/1");
  Add("http://z.com/1");
  Use("DEFAULT");
  EXPECT_EQ(PopOne(), "http://a.com/1");
  Use("b");
  EXPECT_EQ(Pop(10), std::vector<std::string>{"http://z.com/1"});
  Use("DEFAULT");
  EXPECT_TRUE(Confirm("http://a.com/1"));
  Use("b");
  now_ += HostGate::kRecheckMs;
  EXPECT_EQ(PopOne(), "http://a.com/1");
}

TEST_F(FrontierCrawlsTest, TheGateOutlivesARestart) {
  opts_.politeness_delay_ms = 60'000;
  // The start keeps the holds that have not ended by the wall clock.
  now_ = std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
             .count();
  Open();
  Use("b");
  Add("http://a.com/1");
  Use("DEFAULT");
  Add("http://a.com/1");
  EXPECT_EQ(PopOne(), "http://a.com/1");
  Crash();
  Use("b");
  EXPECT_EQ(PopOne(), "");  // the default crawl's fetch still holds a.com
}

TEST_F(FrontierCrawlsTest, DeleteDropsTheCrawlAtOnce) {
  Open();
  Add("http://a.com/1");
  Use("big");
  for (int i = 0; i < 2000; ++i) Add("http://a.com/" + std::to_string(i));
  EXPECT_FALSE(CrawlFiles().empty());
  auto deleted = fr_->DeleteCrawl("big");
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_TRUE(*deleted);
  EXPECT_EQ(fr_->CurrentCrawl(), "DEFAULT");
  EXPECT_TRUE(CrawlFiles().empty());
  EXPECT_EQ(fr_->ListCrawls(), std::vector<std::string>{"DEFAULT"});
  EXPECT_EQ(fr_->Stats().urls, 1u);
  Use("big");  // the name again: a new, empty crawl
  EXPECT_EQ(fr_->Stats().urls, 0u);
  EXPECT_FALSE(*fr_->Seen("http://a.com/5"));
  Add("http://a.com/5");
  Crash();
  EXPECT_EQ(fr_->ListCrawls(), (std::vector<std::string>{"DEFAULT", "big"}));
  EXPECT_EQ(fr_->CrawlStats("big")->urls, 1u);
  EXPECT_EQ(CrawlFiles().size(), 7u);  // the new crawl's files only
}

}  // namespace
}  // namespace frontier

namespace frontier {
namespace {

TEST_F(FrontierCrawlsTest, ALeaseAndADelayHoldTheOtherCrawlUntilBothEnd) {
  opts_.site_max_leases = 1;
  opts_.politeness_delay_ms = 1000;
  Open();
  Use("a");
  Add("http://one.com/1");
  Add("http://one.com/2");
  EXPECT_EQ(PopOne(), "http://one.com/1");
  Use("b");  // added while a fetches
  Add("http://one.com/1");
  Add("http://one.com/2");
  now_ += 300;
  EXPECT_EQ(PopOne(), "");
  now_ += 500;
  Use("a");
  EXPECT_TRUE(Confirm("http://one.com/1"));  // a's delay: until now + 1000
  Use("b");
  now_ += 999;
  Tick();
  EXPECT_EQ(PopOne(), "");
  now_ += 1;
  Tick();
  EXPECT_TRUE(fr_->HasReady(now_));
  EXPECT_EQ(PopOne(), "http://one.com/1");
}

}  // namespace
}  // namespace frontier
