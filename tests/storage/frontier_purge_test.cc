// Storage-layer tests of PURGE (Frontier::PurgeUrls, frontier_purge.cc;
// URL Frontier's PurgeURLs): URLs first stored before a date leave in
// every state, in slices, with exact counts across a reopen between
// slices; the others, and other sites under a site filter, stay.
#include <algorithm>
#include <string>
#include <vector>

#include "storage/frontier_fixture.h"

namespace frontier {
namespace {

class FrontierPurgeTest : public FrontierFixture {
 protected:
  // Runs a whole purge in slices of `count`; the URLs it removed.
  uint64_t PurgeAll(std::string_view site, int64_t before_ms, size_t count,
                    int* calls = nullptr) {
    uint64_t removed = 0;
    std::string cursor = "0";
    int n = 0;
    do {
      auto page = fr_->PurgeUrls(site, before_ms, cursor, count, now_);
      EXPECT_TRUE(page.ok()) << page.status().ToString();
      if (!page.ok()) break;
      EXPECT_LE(page->removed, count);
      removed += page->removed;
      cursor = page->next_cursor;
    } while (cursor != "0" && ++n < 1000);
    if (calls != nullptr) *calls = n + 1;
    return removed;
  }
  bool Known(std::string_view url) {
    auto seen = fr_->Seen(url);
    EXPECT_TRUE(seen.ok());
    return seen.ok() && *seen;
  }
  // The crawl's counters must be the sum of what its sites hold.
  void ExpectCounts(uint64_t urls, uint64_t queued, uint64_t leased,
                    uint64_t done, uint64_t scheduled) {
    FrontierStats st = fr_->Stats();
    EXPECT_EQ(st.urls, urls);
    EXPECT_EQ(st.queued, queued);
    EXPECT_EQ(st.leased, leased);
    EXPECT_EQ(st.done, done);
    EXPECT_EQ(st.scheduled, scheduled);
  }
};

TEST_F(FrontierPurgeTest, RemovesOldUrlsInEveryStateAndKeepsNewOnes) {
  Open();
  AddOptions with_data;
  with_data.data = "v";
  Add("http://a.com/queued", "", with_data);
  Add("http://a.com/leased");
  Add("http://a.com/done");
  Add("http://a.com/retry");
  Add("http://b.com/old");
  // Leased, then done, then scheduled for a retry: a.com's three first
  // in queue order are whatever POP gives; pin them by URL.
  auto leased = fr_->PopSite("a.com", 3, 60'000, now_);
  ASSERT_TRUE(leased.ok());
  ASSERT_EQ(leased->size(), 3u);
  Confirm((*leased)[0].url);
  Fail((*leased)[1].url, 3'600'000);
  const std::string still_leased = (*leased)[2].url;
  ExpectCounts(5, 2, 1, 1, 1);

  now_ += 10'000;
  Add("http://a.com/new");
  Add("http://b.com/new");
  EXPECT_EQ(PurgeAll("", kT0 + 5'000, 2), 5u);
  ExpectCounts(2, 2, 0, 0, 0);
  for (const char* url : {"http://a.com/queued", "http://a.com/leased",
                          "http://a.com/done", "http://a.com/retry",
                          "http://b.com/old"}) {
    EXPECT_FALSE(Known(url)) << url;
  }
  // A lease ended by the purge no longer confirms, as after SITE DELETE.
  auto confirmed = fr_->Confirm(still_leased, {}, now_);
  EXPECT_FALSE(confirmed.ok() && *confirmed);
  // The retry date that was removed never brings its URL back.
  now_ += 7'200'000;
  Tick();
  auto info = fr_->GetSiteInfo("a.com", now_);
  ASSERT_TRUE(info.ok() && info->has_value());
  EXPECT_EQ((*info)->queued, 1u);
  EXPECT_EQ((*info)->leased, 0u);
  EXPECT_EQ((*info)->done + (*info)->scheduled, 0u);
  std::vector<std::string> popped = Pop(10);
  std::sort(popped.begin(), popped.end());
  EXPECT_EQ(popped,
            (std::vector<std::string>{"http://a.com/new", "http://b.com/new"}));
  ASSERT_TRUE(fr_->Close(false).ok());
  Open();
  ExpectCounts(2, 0, 2, 0, 0);
  EXPECT_EQ(PurgeAll("", kT0 + 5'000, 100), 0u);  // nothing left that old
}

TEST_F(FrontierPurgeTest, SiteFilterAndCutoff) {
  Open();
  for (int i = 0; i < 20; ++i) Add("http://a.com/" + std::to_string(i));
  for (int i = 0; i < 5; ++i) Add("http://b.com/" + std::to_string(i));
  now_ += 1'000;
  Add("http://a.com/late");
  // Nothing is older than the first URL.
  EXPECT_EQ(PurgeAll("a.com", kT0, 3), 0u);
  int calls = 0;
  EXPECT_EQ(PurgeAll("a.com", kT0 + 1, 3, &calls), 20u);
  EXPECT_GE(calls, 7);  // 21 records of a.com, 3 a slice
  EXPECT_TRUE(Known("http://a.com/late"));
  EXPECT_TRUE(Known("http://b.com/0"));
  ExpectCounts(6, 6, 0, 0, 0);
  EXPECT_EQ(PurgeAll("", now_ + 1, 1000), 6u);
  ExpectCounts(0, 0, 0, 0, 0);
  EXPECT_TRUE(Pop(10).empty());
  // Bad input changes nothing.
  Add("http://c.com/");
  EXPECT_TRUE(
      fr_->PurgeUrls("", now_ + 1, "zz", 10, now_).status().IsInvalidArgument());
  EXPECT_TRUE(fr_->PurgeUrls("a b", now_ + 1, "0", 10, now_)
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(Known("http://c.com/"));
}

TEST_F(FrontierPurgeTest, EachSliceIsDurableOnItsOwn) {
  Open();
  for (int i = 0; i < 30; ++i) Add("http://a.com/" + std::to_string(i));
  now_ += 1'000;
  // One slice, then the frontier closes without a checkpoint (as after a
  // crash, recovery replays the log) before the purge goes on.
  auto first = fr_->PurgeUrls("", now_, "0", 10, now_);
  ASSERT_TRUE(first.ok());
  ASSERT_NE(first->next_cursor, "0");
  const uint64_t removed = first->removed;
  EXPECT_EQ(removed, 10u);
  ASSERT_TRUE(fr_->Close(true).ok());
  Open();
  ExpectCounts(30 - removed, 30 - removed, 0, 0, 0);
  // Started again from the beginning, it removes exactly the rest.
  EXPECT_EQ(PurgeAll("", now_, 7), 30 - removed);
  ExpectCounts(0, 0, 0, 0, 0);
  EXPECT_TRUE(Pop(50).empty());
}

}  // namespace
}  // namespace frontier
