// Storage-layer tests of issue 8 §3 and §5: CONFIRM's status counters,
// adaptive politeness and recrawl, and the operators' site verbs (INFO,
// LIST, TOP, LIMIT, DELETE), with the clock passed in by the test.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "storage/frontier.h"

namespace frontier {
namespace {

constexpr int64_t kT0 = 1'700'000'000'000;  // a fixed "now" in ms

class FrontierSitesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/frontier_sites_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    opts_.dir = tmpl;
    opts_.cache_bytes = 8 << 20;
    opts_.politeness_delay_ms = 0;
    opts_.site_max_leases = 0;
  }
  void TearDown() override {
    fr_.reset();
    std::filesystem::remove_all(opts_.dir);
  }
  void Open() {
    fr_.reset();
    auto f = Frontier::Open(opts_);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    fr_ = std::move(f).value();
  }
  AddOutcome Add(const std::string& url, int64_t recrawl_ms = 0) {
    AddOptions o;
    if (recrawl_ms > 0) o.recrawl_ms = recrawl_ms;
    auto r = fr_->Add(url, "", o, now_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : AddOutcome::kRefused;
  }
  std::vector<std::string> Pop(size_t n) {
    auto r = fr_->Pop(n, 0, now_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<std::string>{};
  }
  bool Confirm(const std::string& url, ConfirmOptions o = {}) {
    auto r = fr_->Confirm(url, o, now_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && *r;
  }
  SiteInfo Site(const std::string& site) {
    auto r = fr_->GetSiteInfo(site, now_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r.ok() && r->has_value()) << site;
    return r.ok() && r->has_value() ? **r : SiteInfo{};
  }
  bool Seen(const std::string& url) {
    auto r = fr_->Seen(url);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && *r;
  }
  // Every page of a SITE LIST scan, `count` records at a time.
  std::vector<std::string> ScanAll(SiteFilter filter, size_t count,
                                   size_t* pages = nullptr) {
    std::vector<std::string> all;
    uint64_t cursor = 0;
    size_t n = 0;
    do {
      auto page = fr_->ListSites(filter, cursor, count, now_);
      EXPECT_TRUE(page.ok()) << page.status().ToString();
      if (!page.ok()) break;
      all.insert(all.end(), page->sites.begin(), page->sites.end());
      cursor = page->next_cursor;
    } while (cursor != 0 && ++n < 10'000);
    if (pages != nullptr) *pages = n + 1;
    return all;
  }

  FrontierOptions opts_;
  std::unique_ptr<Frontier> fr_;
  int64_t now_ = kT0;
};

ConfirmOptions WithStatus(int status) {
  ConfirmOptions o;
  o.status = status;
  return o;
}
ConfirmOptions WithFetchMs(int64_t ms) {
  ConfirmOptions o;
  o.fetch_ms = ms;
  return o;
}
ConfirmOptions WithChange(bool changed) {
  ConfirmOptions o;
  o.changed = changed;
  return o;
}

TEST_F(FrontierSitesTest, StatusClassesAreCountedAndSurviveReopen) {
  Open();
  const int statuses[] = {200, 204, 301, 404, 410, 503, 102};
  for (int i = 0; i < 8; ++i) Add("http://a.com/" + std::to_string(i));
  for (int i = 0; i < 7; ++i) {
    ASSERT_TRUE(
        Confirm("http://a.com/" + std::to_string(i), WithStatus(statuses[i])));
  }
  ASSERT_TRUE(Confirm("http://a.com/7"));  // no STATUS: not counted
  // An unknown or already confirmed URL is not a confirmation.
  EXPECT_FALSE(Confirm("http://nowhere.com/", WithStatus(200)));
  EXPECT_FALSE(Confirm("http://a.com/0", WithStatus(200)));
  auto check = [](const FrontierStats& s) {
    EXPECT_EQ(s.confirmed, 8u);
    EXPECT_EQ(s.confirmed_2xx, 2u);
    EXPECT_EQ(s.confirmed_3xx, 1u);
    EXPECT_EQ(s.confirmed_4xx, 2u);
    EXPECT_EQ(s.confirmed_5xx, 1u);
  };
  check(fr_->Stats());
  ASSERT_TRUE(fr_->Close(/*skip_checkpoint=*/false).ok());
  Open();
  check(fr_->Stats());
}

// politeness-delay-factor: the next fetch waits clamp(f x t, base, max).
TEST_F(FrontierSitesTest, FetchTimeStretchesTheSiteDelay) {
  opts_.politeness_delay_ms = 100;
  opts_.politeness_delay_factor = 2;
  opts_.politeness_max_delay_ms = 1000;
  Open();
  for (int i = 0; i < 4; ++i) Add("http://a.com/" + std::to_string(i));
  // Pops the site's next URL (queue order is by fingerprint) and CONFIRMs
  // it with a fetch time.
  auto fetch = [&](int64_t fetch_ms) {
    std::vector<std::string> popped = Pop(1);
    ASSERT_EQ(popped.size(), 1u);
    ASSERT_TRUE(Confirm(popped[0], WithFetchMs(fetch_ms)));
  };
  now_ += 50;
  ASSERT_NO_FATAL_FAILURE(fetch(300));
  SiteInfo info = Site("a.com");
  EXPECT_EQ(info.delay_ms, 600);
  EXPECT_EQ(info.delay_source, policy::DelaySource::kAdaptive);
  EXPECT_EQ(info.next_allowed_ms, now_ + 600);
  // Nothing before that moment, the next URL at it.
  const int64_t confirmed_at = now_;
  now_ = confirmed_at + 599;
  EXPECT_TRUE(Pop(1).empty());
  now_ = confirmed_at + 600;

  // A fast fetch never brings it below politeness-delay.
  ASSERT_NO_FATAL_FAILURE(fetch(10));
  info = Site("a.com");
  EXPECT_EQ(info.delay_ms, 100);
  EXPECT_EQ(info.delay_source, policy::DelaySource::kDefault);
  EXPECT_EQ(info.next_allowed_ms, now_ + 100);

  // A very slow one is capped at politeness-max-delay.
  now_ += 100;
  ASSERT_NO_FATAL_FAILURE(fetch(60'000));
  EXPECT_EQ(Site("a.com").delay_ms, 1000);
  EXPECT_EQ(Site("a.com").next_allowed_ms, now_ + 1000);

  // A DELAY above the cap is still the lower bound.
  ASSERT_TRUE(fr_->SetSiteDelay("a.com", 5000, now_).ok());
  now_ += 5000;
  ASSERT_NO_FATAL_FAILURE(fetch(60'000));
  info = Site("a.com");
  EXPECT_EQ(info.delay_ms, 5000);
  EXPECT_EQ(info.delay_source, policy::DelaySource::kSet);
  EXPECT_EQ(info.next_allowed_ms, now_ + 5000);
}

TEST_F(FrontierSitesTest, WithoutAFactorFetchTimeChangesNothing) {
  opts_.politeness_delay_ms = 100;
  Open();
  Add("http://a.com/0");
  ASSERT_TRUE(Confirm("http://a.com/0", WithFetchMs(5000)));
  SiteInfo info = Site("a.com");
  EXPECT_EQ(info.delay_ms, 100);
  EXPECT_EQ(info.delay_source, policy::DelaySource::kDefault);
  EXPECT_EQ(info.next_allowed_ms, now_ + 100);
}

TEST_F(FrontierSitesTest, ChangedAndUnchangedMoveTheRecrawlPeriod) {
  opts_.recrawl_adaptive = true;
  opts_.recrawl_min_ms = 60'000;
  opts_.recrawl_max_ms = 150'000;
  Open();
  Add("http://a.com/r", 100'000);
  Add("http://a.com/plain");
  ASSERT_TRUE(Confirm("http://a.com/r", WithChange(false)));
  auto period = [&](const std::string& url) {
    auto info = fr_->Info(url);
    EXPECT_TRUE(info.ok() && info->has_value());
    return info.ok() && info->has_value() ? (*info)->recrawl_ms : -1;
  };
  EXPECT_EQ(period("http://a.com/r"), 140'000);  // x 1.4
  auto info = fr_->Info("http://a.com/r");
  ASSERT_TRUE(info.ok() && info->has_value());
  EXPECT_EQ((*info)->due_ms, now_ + 140'000);  // the new period applies now
  ASSERT_TRUE(Confirm("http://a.com/r", WithChange(false)));
  EXPECT_EQ(period("http://a.com/r"), 150'000);  // capped at recrawl-max
  ASSERT_TRUE(Confirm("http://a.com/r", WithChange(true)));
  EXPECT_EQ(period("http://a.com/r"), 120'000);  // x 0.8
  for (int i = 0; i < 3; ++i) {                  // 96 s, 76.8 s, 61.44 s
    ASSERT_TRUE(Confirm("http://a.com/r", WithChange(true)));
  }
  EXPECT_EQ(period("http://a.com/r"), 61'440);
  ASSERT_TRUE(Confirm("http://a.com/r", WithChange(true)));
  EXPECT_EQ(period("http://a.com/r"), 60'000);  // floored at recrawl-min
  ASSERT_TRUE(Confirm("http://a.com/plain", WithChange(false)));
  EXPECT_EQ(period("http://a.com/plain"), 0);  // no period: none given

  // recrawl-adaptive off: CHANGED is only a report.
  FrontierOptions off = opts_;
  off.recrawl_adaptive = false;
  ASSERT_TRUE(fr_->UpdateOptions(off, now_).ok());
  ASSERT_TRUE(Confirm("http://a.com/r", WithChange(false)));
  EXPECT_EQ(period("http://a.com/r"), 60'000);
}

TEST_F(FrontierSitesTest, InfoOfUnknownAndInvalidSites) {
  Open();
  auto unknown = fr_->GetSiteInfo("nowhere.com", now_);
  ASSERT_TRUE(unknown.ok());
  EXPECT_FALSE(unknown->has_value());
  for (const char* bad : {"", "a b", "a.com/x", "http://"}) {
    auto r = fr_->GetSiteInfo(bad, now_);
    EXPECT_TRUE(r.status().IsInvalidArgument()) << bad;
  }
  Add("http://www.a.com/x");
  // A URL or a host names the site; the counts are the site's.
  SiteInfo info = Site("http://www.a.com/other");
  EXPECT_EQ(info.name, "www.a.com");
  EXPECT_EQ(info.queued, 1u);
  EXPECT_EQ(info.max_urls, 0u);
  EXPECT_EQ(info.next_allowed_ms, 0);
}

TEST_F(FrontierSitesTest, ListPagesReturnEverySiteOnce) {
  Open();
  std::set<std::string> want;
  for (int i = 0; i < 23; ++i) {
    const std::string site = "s" + std::to_string(i) + ".com";
    Add("http://" + site + "/");
    want.insert(site);
  }
  for (size_t count : {1, 5, 23, 100}) {
    size_t pages = 0;
    std::vector<std::string> got = ScanAll(SiteFilter::kAll, count, &pages);
    EXPECT_EQ(got.size(), want.size()) << count;
    EXPECT_EQ(std::set<std::string>(got.begin(), got.end()), want) << count;
    EXPECT_GE(pages, (want.size() + count - 1) / count) << count;
  }
}

TEST_F(FrontierSitesTest, ListFiltersReadyAndWaiting) {
  opts_.politeness_delay_ms = 1000;
  Open();
  Add("http://a.com/1");
  Add("http://a.com/2");
  Add("http://b.com/1");
  Add("http://c.com/1");
  ASSERT_TRUE(Confirm("http://c.com/1"));  // c.com: nothing queued
  // Pops a.com first or b.com first: one of them now waits.
  std::vector<std::string> popped = Pop(1);
  ASSERT_EQ(popped.size(), 1u);
  const bool a_first = popped[0] == "http://a.com/1";
  std::vector<std::string> waiting = ScanAll(SiteFilter::kWaiting, 10);
  std::vector<std::string> ready = ScanAll(SiteFilter::kReady, 10);
  if (a_first) {
    EXPECT_EQ(waiting, std::vector<std::string>{"a.com"});
    EXPECT_EQ(ready, std::vector<std::string>{"b.com"});
  } else {
    EXPECT_EQ(waiting, std::vector<std::string>{});  // b.com has no more
    EXPECT_EQ(ready, std::vector<std::string>{"a.com"});
  }
  EXPECT_TRUE(ScanAll(SiteFilter::kBlocked, 10).empty());
  EXPECT_EQ(ScanAll(SiteFilter::kAll, 10).size(), 3u);
  now_ += 1000;
  EXPECT_EQ(ScanAll(SiteFilter::kReady, 10).size(), a_first ? 2u : 1u);
}

TEST_F(FrontierSitesTest, TopSitesByQueuedUrls) {
  Open();
  for (int i = 0; i < 5; ++i) Add("http://big.com/" + std::to_string(i));
  for (int i = 0; i < 3; ++i) Add("http://mid.com/" + std::to_string(i));
  Add("http://small.com/");
  Add("http://gone.com/");
  ASSERT_TRUE(Confirm("http://gone.com/"));
  auto top = fr_->TopSites(2);
  ASSERT_TRUE(top.ok());
  ASSERT_EQ(top->size(), 2u);
  EXPECT_EQ((*top)[0].name, "big.com");
  EXPECT_EQ((*top)[0].queued, 5u);
  EXPECT_EQ((*top)[1].name, "mid.com");
  EXPECT_EQ((*top)[1].queued, 3u);
  // A site with nothing queued is not listed; after a reopen (cold cache)
  // the scan alone gives the same answer.
  ASSERT_TRUE(fr_->Close(false).ok());
  Open();
  top = fr_->TopSites(10);
  ASSERT_TRUE(top.ok());
  ASSERT_EQ(top->size(), 3u);
  EXPECT_EQ((*top)[2].name, "small.com");
}

// The dashboard's "Largest sites": by URLs held, so that an idle crawl
// (nothing queued or leased) still lists its sites, and after a reopen too.
TEST_F(FrontierSitesTest, LargestSitesByUrlsHeldWhenIdleAndAfterReopen) {
  Open();
  for (int i = 0; i < 3; ++i) Add("http://big.com/" + std::to_string(i));
  for (int i = 0; i < 2; ++i) Add("http://mid.com/" + std::to_string(i));
  Add("http://small.com/");
  for (int round = 0; round < 10 && fr_->Stats().done < 6; ++round) {
    for (const std::string& url : Pop(10)) EXPECT_TRUE(Confirm(url));
  }
  ASSERT_EQ(fr_->Stats().done, 6u);
  ASSERT_EQ(fr_->Stats().queued + fr_->Stats().leased, 0u);
  auto names = [](const std::vector<SiteSize>& sites) {
    std::vector<std::string> out;
    for (const SiteSize& s : sites) out.push_back(s.name);
    return out;
  };
  using Names = std::vector<std::string>;
  std::vector<SiteSize> largest = fr_->LargestSites(2);
  EXPECT_EQ(names(largest), (Names{"big.com", "mid.com"}));
  ASSERT_FALSE(largest.empty());
  EXPECT_EQ(largest[0].urls, 3u);
  EXPECT_EQ(largest[0].queued, 0u);
  ASSERT_TRUE(fr_->Close(false).ok());
  Open();
  EXPECT_EQ(names(fr_->LargestSites(10)),
            (Names{"big.com", "mid.com", "small.com"}));
}

TEST_F(FrontierSitesTest, SiteLimitCapsTheSiteAndSurvivesReopen) {
  opts_.site_max_urls = 3;
  Open();
  ASSERT_TRUE(fr_->SetSiteLimit("a.com", 1, now_).ok());
  EXPECT_EQ(Add("http://a.com/1"), AddOutcome::kAdded);
  EXPECT_EQ(Add("http://a.com/2"), AddOutcome::kRefused);
  EXPECT_EQ(Add("http://a.com/1"), AddOutcome::kKnown);  // known: not refused
  EXPECT_EQ(Site("a.com").max_urls, 1u);
  ASSERT_TRUE(fr_->Close(false).ok());
  Open();
  EXPECT_EQ(Add("http://a.com/3"), AddOutcome::kRefused);
  // A limit above site-max-urls raises it for this site only.
  ASSERT_TRUE(fr_->SetSiteLimit("a.com", 5, now_).ok());
  for (int i = 2; i <= 5; ++i) {
    EXPECT_EQ(Add("http://a.com/" + std::to_string(i) + "x"),
              AddOutcome::kAdded);
  }
  EXPECT_EQ(Add("http://a.com/6x"), AddOutcome::kRefused);
  // 0: back to site-max-urls (3, already exceeded).
  ASSERT_TRUE(fr_->SetSiteLimit("a.com", 0, now_).ok());
  EXPECT_EQ(Site("a.com").max_urls, 3u);
  EXPECT_EQ(Add("http://a.com/7x"), AddOutcome::kRefused);
  EXPECT_TRUE(fr_->SetSiteLimit("a b", 1, now_).IsInvalidArgument());
}

TEST_F(FrontierSitesTest, DeleteRemovesEveryUrlOfTheSiteOnly) {
  opts_.max_attempts = 1;
  Open();
  Add("http://a.com/queued");
  Add("http://a.com/leased");
  Add("http://a.com/done");
  Add("http://a.com/recrawl", 60'000);
  Add("http://a.com/dead");
  Add("http://b.com/keep");
  ASSERT_TRUE(Confirm("http://a.com/done"));
  ASSERT_TRUE(Confirm("http://a.com/recrawl"));
  // Lease a.com/leased and a.com/dead (and b.com/keep), fail the latter.
  std::vector<std::string> popped = Pop(10);
  ASSERT_EQ(popped.size(), 4u);
  auto failed = fr_->Fail("http://a.com/dead", FailOptions(), now_);
  ASSERT_TRUE(failed.ok() && *failed);
  ASSERT_TRUE(Confirm("http://a.com/queued"));  // done while queued...
  Add("http://a.com/queued2");                  // ...and a queued one
  const FrontierStats before = fr_->Stats();

  auto removed = fr_->DeleteSite("http://a.com/", now_);
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(*removed, 6u);
  for (const char* url :
       {"http://a.com/queued", "http://a.com/leased", "http://a.com/done",
        "http://a.com/recrawl", "http://a.com/dead", "http://a.com/queued2"}) {
    EXPECT_FALSE(Seen(url)) << url;
  }
  EXPECT_TRUE(Seen("http://b.com/keep"));
  auto gone = fr_->GetSiteInfo("a.com", now_);
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value());
  FrontierStats after = fr_->Stats();
  EXPECT_EQ(after.urls, before.urls - 6);
  EXPECT_EQ(after.sites, before.sites - 1);
  EXPECT_EQ(after.queued, 0u);
  EXPECT_EQ(after.leased, 1u);  // b.com/keep
  EXPECT_EQ(after.dead, 0u);
  EXPECT_EQ(after.done + after.scheduled, 0u);
  // The lease and the recrawl date are gone with it: nothing comes back.
  EXPECT_FALSE(Confirm("http://a.com/leased"));
  ASSERT_TRUE(Confirm("http://b.com/keep"));
  now_ += 10 * 60'000;
  EXPECT_TRUE(Pop(10).empty());
  EXPECT_EQ(fr_->Stats().urls, before.urls - 6);
  // The counts rebuilt from disk agree, and the site can come back.
  ASSERT_TRUE(fr_->Close(/*skip_checkpoint=*/true).ok());
  Open();
  EXPECT_EQ(fr_->Stats().urls, before.urls - 6);
  EXPECT_EQ(fr_->Stats().sites, before.sites - 1);
  EXPECT_FALSE(Seen("http://a.com/done"));
  EXPECT_EQ(Add("http://a.com/done"), AddOutcome::kAdded);
  EXPECT_EQ(Site("a.com").queued, 1u);

  auto unknown = fr_->DeleteSite("nowhere.com", now_);
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(*unknown, 0u);
  EXPECT_TRUE(fr_->DeleteSite("a b", now_).status().IsInvalidArgument());
}

TEST_F(FrontierSitesTest, DeleteUnderDomainScopeTakesEveryHost) {
  opts_.politeness_scope = SiteScope::kDomain;
  Open();
  Add("http://www.a.com/1");
  Add("http://blog.a.com/1");
  Add("http://a.com/1");
  Add("http://b.com/1");
  auto removed = fr_->DeleteSite("blog.a.com", now_);
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(*removed, 3u);
  EXPECT_FALSE(Seen("http://www.a.com/1"));
  EXPECT_FALSE(Seen("http://blog.a.com/1"));
  EXPECT_TRUE(Seen("http://b.com/1"));
  EXPECT_EQ(Pop(10), std::vector<std::string>{"http://b.com/1"});
}

}  // namespace
}  // namespace frontier
