// Storage-layer tests of what URL Frontier's API added (issue 23): the
// node-wide pause (SetPaused), a site's cap on done URLs
// (SetSiteDoneLimit), the SCAN-style URL listing (ListUrls) and POP of one
// site (PopSite); each kept across a reopen where it is state.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "storage/frontier_fixture.h"

namespace frontier {
namespace {

class FrontierLimitsTest : public FrontierFixture {
 protected:
  // Every URL of a URLS scan in slices of `count`, and how many calls it
  // took.
  std::vector<std::string> ScanAll(const UrlFilter& filter, size_t count,
                                   int* calls = nullptr) {
    std::vector<std::string> all;
    std::string cursor = "0";
    int n = 0;
    do {
      auto page = fr_->ListUrls(filter, cursor, count);
      EXPECT_TRUE(page.ok()) << page.status().ToString();
      if (!page.ok()) break;
      EXPECT_LE(page->urls.size(), count);
      all.insert(all.end(), page->urls.begin(), page->urls.end());
      cursor = page->next_cursor;
    } while (cursor != "0" && ++n < 1000);
    if (calls != nullptr) *calls = n + 1;
    return all;
  }
};

TEST_F(FrontierLimitsTest, PauseHoldsEveryPopAndSurvivesReopen) {
  Open();
  Add("http://a.com/1");
  Add("http://a.com/2");
  EXPECT_FALSE(fr_->Paused());
  ASSERT_TRUE(fr_->SetPaused(true).ok());
  EXPECT_TRUE(fr_->Paused());
  EXPECT_TRUE(Pop(10).empty());
  EXPECT_FALSE(fr_->HasReady(now_));
  // Everything but hand-outs works: a new URL is stored.
  EXPECT_EQ(Add("http://b.com/"), AddOutcome::kAdded);
  // Every crawl.
  ASSERT_TRUE(fr_->UseCrawl("other").ok());
  Add("http://c.com/");
  EXPECT_TRUE(Pop(10).empty());
  ASSERT_TRUE(fr_->Close(false).ok());
  Open();
  EXPECT_TRUE(fr_->Paused());
  EXPECT_TRUE(Pop(10).empty());
  // Resumed from another crawl than the default one.
  ASSERT_TRUE(fr_->UseCrawl("other").ok());
  ASSERT_TRUE(fr_->SetPaused(false).ok());
  EXPECT_EQ(Pop(10), std::vector<std::string>{"http://c.com/"});
  ASSERT_TRUE(fr_->UseCrawl(Frontier::kDefaultCrawl).ok());
  EXPECT_EQ(Pop(10).size(), 3u);
  ASSERT_TRUE(fr_->Close(false).ok());
  Open();
  EXPECT_FALSE(fr_->Paused());
}

TEST_F(FrontierLimitsTest, PauseInsideAPassIsCommittedAtOnce) {
  Open();
  Add("http://a.com/");
  fr_->BeginPass();
  Add("http://b.com/");
  ASSERT_TRUE(fr_->SetPaused(true).ok());
  EXPECT_TRUE(Pop(10).empty());
  ASSERT_TRUE(fr_->EndPass().ok());
  ASSERT_TRUE(fr_->Close(false).ok());
  Open();
  EXPECT_TRUE(fr_->Paused());
  auto seen = fr_->Seen("http://b.com/");
  ASSERT_TRUE(seen.ok());
  EXPECT_TRUE(*seen);
}

TEST_F(FrontierLimitsTest, DoneLimitHoldsTheSiteAtItsCapAndSurvivesReopen) {
  Open();
  for (int i = 0; i < 5; ++i) Add("http://a.com/" + std::to_string(i));
  Add("http://b.com/");
  ASSERT_TRUE(fr_->SetSiteDoneLimit("a.com", 2, now_).ok());
  auto info = fr_->GetSiteInfo("a.com", now_);
  ASSERT_TRUE(info.ok() && info->has_value());
  EXPECT_EQ((*info)->done_limit, 2u);
  // Leases may run past the cap: only done URLs count.
  auto leased = fr_->PopSite("a.com", 3, 0, now_);
  ASSERT_TRUE(leased.ok());
  ASSERT_EQ(leased->size(), 3u);
  Confirm((*leased)[0].url);
  Confirm((*leased)[1].url);
  // Two done: nothing more of a.com, b.com still goes.
  EXPECT_EQ(Pop(10), std::vector<std::string>{"http://b.com/"});
  EXPECT_FALSE(fr_->HasReady(now_));
  for (SiteFilter f : {SiteFilter::kReady, SiteFilter::kWaiting}) {
    auto page = fr_->ListSites(f, 0, 100, now_);
    ASSERT_TRUE(page.ok());
    EXPECT_TRUE(page->sites.empty());
  }
  EXPECT_TRUE(Confirm((*leased)[2].url));  // a lease out still confirms
  ASSERT_TRUE(fr_->Close(false).ok());
  Open();
  EXPECT_TRUE(Pop(10).empty());
  ASSERT_TRUE(fr_->SetSiteDoneLimit("a.com", 0, now_).ok());
  EXPECT_EQ(Pop(10).size(), 2u);
  EXPECT_TRUE(fr_->SetSiteDoneLimit("a b", 1, now_).IsInvalidArgument());
}

TEST_F(FrontierLimitsTest, ListUrlsScansInSlicesWithFilters) {
  Open();
  std::vector<std::string> a, all;
  for (int i = 0; i < 23; ++i) a.push_back("http://a.com/p" + std::to_string(i));
  all = a;
  all.push_back("http://b.com/P1");
  all.push_back("http://c.com/q");
  for (const std::string& url : all) Add(url);
  int calls = 0;
  std::vector<std::string> seen = ScanAll({}, 5, &calls);
  EXPECT_EQ(std::multiset<std::string>(seen.begin(), seen.end()),
            std::multiset<std::string>(all.begin(), all.end()));
  EXPECT_EQ(calls, 5);  // 25 records, 5 a call
  UrlFilter site;
  site.site = "a.com";
  seen = ScanAll(site, 4);
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()),
            std::set<std::string>(a.begin(), a.end()));
  UrlFilter match;
  match.match = "/p1";
  seen = ScanAll(match, 100);
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::string>{
                      "http://a.com/p1", "http://a.com/p10", "http://a.com/p11",
                      "http://a.com/p12", "http://a.com/p13", "http://a.com/p14",
                      "http://a.com/p15", "http://a.com/p16", "http://a.com/p17",
                      "http://a.com/p18", "http://a.com/p19"}));
  match.match = "B.COM/p";
  EXPECT_TRUE(ScanAll(match, 100).empty());
  match.ignore_case = true;
  EXPECT_EQ(ScanAll(match, 100), std::vector<std::string>{"http://b.com/P1"});
  EXPECT_TRUE(fr_->ListUrls({}, "garbage", 5).status().IsInvalidArgument());
  UrlFilter bad;
  bad.site = "a b";
  EXPECT_TRUE(fr_->ListUrls(bad, "0", 5).status().IsInvalidArgument());
  // Another crawl's URLs are its own.
  ASSERT_TRUE(fr_->UseCrawl("other").ok());
  EXPECT_TRUE(ScanAll({}, 10).empty());
}

TEST_F(FrontierLimitsTest, PopSiteTakesThatSiteOnly) {
  Open();
  Add("http://a.com/1");
  Add("http://a.com/2");
  Add("http://b.com/1");
  auto got = fr_->PopSite("a.com", 10, 0, now_);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 2u);
  for (const PoppedUrl& p : *got) EXPECT_EQ(p.url.rfind("http://a.com/", 0), 0u);
  got = fr_->PopSite("a.com", 10, 0, now_);
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->empty());
  got = fr_->PopSite("nowhere.com", 10, 0, now_);
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->empty());
  EXPECT_TRUE(fr_->PopSite("a b", 1, 0, now_).status().IsInvalidArgument());
  EXPECT_EQ(Pop(10), std::vector<std::string>{"http://b.com/1"});
}

}  // namespace
}  // namespace frontier
