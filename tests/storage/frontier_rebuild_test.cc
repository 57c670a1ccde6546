// The scheduler rebuilt at start finds every site's first queued URL,
// whatever the lengths of the sites' queues: the start walks the queue
// database in site order, stepping past short queues instead of searching
// again (SiteQueues::NextHead), and must give what a search gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/storage/frontier_fixture.h"

namespace frontier {
namespace {

// Run with the heads stored in the site records (this version's
// directories: the start reads no queue) and without them (an earlier
// version's: the start walks Q).
class FrontierRebuildTest : public FrontierFixture,
                            public ::testing::WithParamInterface<bool> {
 protected:
  void SetUp() override {
    FrontierFixture::SetUp();
    opts_.store_site_heads = GetParam();
  }

  // URLs of site number `site`: 0 to 11, and 40 for every 17th site
  // (above the walk's span of 32: searched for instead of read through).
  static int UrlsOf(int site) { return site % 17 == 5 ? 40 : site % 12; }
  static constexpr int kSites = 240;

  // Sites with UrlsOf() queued URLs, in several priorities so that a
  // site's first URL is not the first one added; some sites keep only
  // leases. Then every URL popped, after a reopen if `reopen`.
  std::vector<std::string> Crawl(bool reopen) {
    Open();
    for (int site = 0; site < kSites; ++site) {
      const int urls = UrlsOf(site);
      for (int u = 0; u < urls; ++u) {
        const std::string url = "http://s" + std::to_string(site) +
                                ".example/p" + std::to_string(u);
        Add(url, "", Prio((u * 7 + site) % 5));
      }
    }
    std::vector<std::string> popped = Pop(300, /*lease_ms=*/3'600'000);
    if (reopen) {
      fr_.reset();
      Open();
    }
    for (int i = 0; i < 40; ++i) {  // bounded: under 2,000 URLs, 100 a call
      std::vector<std::string> more = Pop(100, /*lease_ms=*/3'600'000);
      if (more.empty()) break;
      popped.insert(popped.end(), more.begin(), more.end());
    }
    fr_.reset();
    return popped;
  }
};

TEST_P(FrontierRebuildTest, ReopenedSchedulerPopsWhatTheLiveOneDoes) {
  const std::vector<std::string> live = Crawl(/*reopen=*/false);
  size_t all = 0;
  for (int site = 0; site < kSites; ++site) all += UrlsOf(site);
  ASSERT_EQ(live.size(), all);

  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
  const std::vector<std::string> rebuilt = Crawl(/*reopen=*/true);
  EXPECT_EQ(rebuilt, live);
}

TEST_P(FrontierRebuildTest, ReopenWithSitesWhollyLeasedOrEmptiedBetween) {
  Open();
  // a: 1 URL, b: 6 URLs, c: 2 URLs; then b's first five leased away and
  // a's one confirmed, so the walk meets sites whose Q entries are gone.
  Add("http://a.example/1");
  for (int u = 0; u < 6; ++u) Add("http://b.example/" + std::to_string(u));
  Add("http://c.example/1");
  Add("http://c.example/2");
  std::vector<std::string> first = Pop(9, /*lease_ms=*/3'600'000);
  ASSERT_EQ(first.size(), 9u);
  for (int u = 0; u < 6; ++u) {
    ASSERT_TRUE(
        fr_->Fail("http://b.example/" + std::to_string(u), {}, now_).ok());
  }
  ASSERT_TRUE(Confirm("http://a.example/1"));
  fr_.reset();
  Open();
  std::vector<std::string> after = Pop(20, /*lease_ms=*/3'600'000);
  std::sort(after.begin(), after.end());
  std::vector<std::string> want;
  for (int u = 0; u < 6; ++u)
    want.push_back("http://b.example/" + std::to_string(u));
  EXPECT_EQ(after, want);
}

INSTANTIATE_TEST_SUITE_P(Heads, FrontierRebuildTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? "Stored" : "ReadFromQueue";
                         });

}  // namespace
}  // namespace frontier
