// SITE DELETE of a site above the one-transaction bound: gone at the
// reply, its records removed by Tick in slices, resumed after a crash.
// The bound is lowered (SetDeleteSiteBoundForTesting) so a few hundred
// URLs take that path.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "storage/frontier_fixture.h"
#include "storage/frontier_impl.h"

namespace frontier {
namespace {

constexpr uint64_t kBound = 50;
constexpr int kBigUrls = 2500;  // ten slices of Tick's removal

class FrontierSiteDeleteTest : public FrontierFixture {
 protected:
  void OpenWithSmallBound() {
    Open();
    static_cast<FrontierImpl&>(*fr_).SetDeleteSiteBoundForTesting(kBound);
  }
  static std::string Big(int i, const char* host = "big.com") {
    return "http://" + std::string(host) + "/" + std::to_string(i);
  }
  // MADDs big.com/0 .. n-1 (spread over `hosts` hosts under big.com when
  // given); returns how many were added.
  size_t AddBig(int n, const std::vector<std::string>& hosts = {"big.com"}) {
    std::vector<std::string> urls;
    for (int i = 0; i < n; ++i) {
      urls.push_back(
          Big(i, hosts[static_cast<size_t>(i) % hosts.size()].c_str()));
    }
    std::vector<std::string_view> views(urls.begin(), urls.end());
    auto r = fr_->AddMany("", views, now_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    size_t added = 0;
    for (const auto& one : r.ok() ? *r : std::vector<StatusOr<AddOutcome>>{}) {
      added += one.ok() && *one == AddOutcome::kAdded;
    }
    return added;
  }
  bool Seen(std::string_view url) {
    auto r = fr_->Seen(url);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && *r;
  }
  // Ticks until the removal reports nothing more due; the ticks it took.
  int TickUntilDone() {
    for (int i = 1; i <= 100; ++i) {
      auto r = fr_->Tick(now_);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (!r.ok() || !r->more_due) return i;
    }
    ADD_FAILURE() << "the removal did not finish in 100 ticks";
    return 100;
  }
  void ExpectSameStateCounts(const FrontierStats& a, const FrontierStats& b) {
    EXPECT_EQ(a.urls, b.urls);
    EXPECT_EQ(a.sites, b.sites);
    EXPECT_EQ(a.queued, b.queued);
    EXPECT_EQ(a.leased, b.leased);
    EXPECT_EQ(a.done, b.done);
    EXPECT_EQ(a.scheduled, b.scheduled);
    EXPECT_EQ(a.dead, b.dead);
  }
};

TEST_F(FrontierSiteDeleteTest, LargeSiteIsGoneAtTheReplyAndRemovedByTicks) {
  OpenWithSmallBound();
  ASSERT_EQ(AddBig(kBigUrls), static_cast<size_t>(kBigUrls));
  Add("http://big.com/recrawl", "", Every(60'000));
  ASSERT_TRUE(fr_->RobotsSet("http://big.com", 200,
                             "User-agent: *\nDisallow: /private\n", now_)
                  .ok());
  auto known = fr_->RobotsCheck("http://big.com/private/x");
  ASSERT_TRUE(known.ok() && known->has_value());
  // Leases (some confirmed: done; one with a recrawl date: scheduled).
  std::vector<std::string> leased = Pop(20, 30'000);
  ASSERT_EQ(leased.size(), 20u);  // no politeness: all from big.com
  Add("http://keep.com/1");
  ASSERT_TRUE(Confirm("http://big.com/recrawl"));
  std::string still_leased;
  for (const std::string& url : leased) {
    if (url.starts_with("http://big.com/") && url != "http://big.com/recrawl") {
      if (still_leased.empty()) {
        still_leased = url;
      } else {
        ASSERT_TRUE(Confirm(url));
      }
    }
  }
  ASSERT_FALSE(still_leased.empty());
  const FrontierStats before = fr_->Stats();
  const PartitionStats part_before = fr_->PartitionInfo(0);

  auto removed = fr_->DeleteSite("big.com", now_);
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  const uint64_t n = kBigUrls + 1;
  EXPECT_EQ(*removed, n);

  // At the reply: nothing of it is known, handed out or counted.
  FrontierStats after = fr_->Stats();
  EXPECT_EQ(after.urls, before.urls - n);
  EXPECT_EQ(after.sites, before.sites - 1);
  EXPECT_EQ(after.queued, 1u);  // keep.com/1
  EXPECT_EQ(after.leased, 0u);
  EXPECT_EQ(after.done + after.scheduled + after.dead, 0u);
  EXPECT_EQ(fr_->PartitionInfo(0).sites, part_before.sites - 1);
  EXPECT_EQ(fr_->PartitionInfo(0).queued + fr_->PartitionInfo(0).leased, 1u);
  for (int i : {0, 1, kBigUrls / 2, kBigUrls - 1}) {
    EXPECT_FALSE(Seen(Big(i))) << i;
    auto info = fr_->Info(Big(i));
    ASSERT_TRUE(info.ok());
    EXPECT_FALSE(info->has_value()) << i;
  }
  EXPECT_FALSE(Seen("http://big.com/recrawl"));
  std::vector<std::string_view> mseen = {"http://big.com/0",
                                         "http://keep.com/1"};
  auto many = fr_->SeenMany(mseen);
  ASSERT_TRUE(many.ok());
  ASSERT_EQ(many->size(), 2u);
  EXPECT_FALSE(*(*many)[0]);
  EXPECT_TRUE(*(*many)[1]);
  auto gone = fr_->GetSiteInfo("big.com", now_);
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value());
  EXPECT_FALSE(Confirm(still_leased));
  EXPECT_FALSE(Fail(still_leased));
  auto extended = fr_->Extend(still_leased, 60'000, now_);
  ASSERT_TRUE(extended.ok());
  EXPECT_FALSE(*extended);
  auto released = fr_->Release(still_leased, 0, now_);
  ASSERT_TRUE(released.ok());
  EXPECT_FALSE(*released);
  auto unknown = fr_->RobotsCheck("http://big.com/private/x");
  ASSERT_TRUE(unknown.ok());
  EXPECT_FALSE(unknown->has_value());
  EXPECT_EQ(Pop(100), std::vector<std::string>{"http://keep.com/1"});
  ASSERT_TRUE(Confirm("http://keep.com/1"));
  // While the removal runs, the site's URLs are refused (not mixed with
  // the old records) and nothing is counted.
  EXPECT_EQ(Add(Big(0)), AddOutcome::kRefused);
  EXPECT_EQ(AddBig(10), 0u);
  EXPECT_FALSE(Seen(Big(0)));

  // Its lease and recrawl date fall due: dropped, no counter moves.
  now_ += 10 * 60'000;
  const FrontierStats mid = fr_->Stats();
  auto first = fr_->Tick(now_);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(first->more_due);
  EXPECT_EQ(fr_->Stats().expired, mid.expired);
  EXPECT_EQ(fr_->Stats().recrawled, mid.recrawled);
  ExpectSameStateCounts(fr_->Stats(), mid);
  TickUntilDone();
  ExpectSameStateCounts(fr_->Stats(), mid);
  EXPECT_TRUE(fr_->Pop(10, 0, now_)->empty());

  // Nothing of it is left in the files: every URL comes back as new (an
  // old record would make it "known"), and its queue holds only those.
  EXPECT_EQ(AddBig(kBigUrls), static_cast<size_t>(kBigUrls));
  EXPECT_EQ(Add("http://big.com/recrawl"), AddOutcome::kAdded);
  EXPECT_EQ(fr_->Stats().urls, mid.urls + n);
  auto site = fr_->GetSiteInfo("big.com", now_);
  ASSERT_TRUE(site.ok() && site->has_value());
  EXPECT_EQ((*site)->queued, n);
  size_t popped = 0;
  for (int round = 0; round < 10; ++round) {
    std::vector<std::string> got = Pop(1000);
    for (const std::string& url : got) popped += url.starts_with("http://big");
  }
  EXPECT_EQ(popped, n);
  EXPECT_EQ(fr_->Stats().queued, 0u);
  // Its robots rules left with it: the origin, held again, is unknown.
  auto rules = fr_->RobotsGet("http://big.com");
  ASSERT_TRUE(rules.ok() && rules->has_value());
  EXPECT_EQ((*rules)->state, "unknown");
  EXPECT_TRUE((*rules)->rules.empty());
}

// A crash (stop without checkpoint) in the middle of the removal: the
// tombstone survives, the site stays gone, and the removal finishes.
TEST_F(FrontierSiteDeleteTest, RemovalResumesAfterAStopWithoutCheckpoint) {
  for (SiteScope scope : {SiteScope::kHost, SiteScope::kDomain}) {
    SCOPED_TRACE(scope == SiteScope::kHost ? "host" : "domain");
    fr_.reset();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    opts_.politeness_scope = scope;
    OpenWithSmallBound();
    const std::vector<std::string> hosts =
        scope == SiteScope::kHost
            ? std::vector<std::string>{"big.com"}
            : std::vector<std::string>{"big.com", "www.big.com", "x.big.com"};
    ASSERT_EQ(AddBig(kBigUrls, hosts), static_cast<size_t>(kBigUrls));
    Add("http://keep.com/1");
    Add("http://keep.com/2");
    auto removed = fr_->DeleteSite("big.com", now_);
    ASSERT_TRUE(removed.ok()) << removed.status().ToString();
    EXPECT_EQ(*removed, static_cast<uint64_t>(kBigUrls));
    auto one = fr_->Tick(now_);
    ASSERT_TRUE(one.ok() && one->more_due);
    const FrontierStats gone = fr_->Stats();
    EXPECT_EQ(gone.urls, 2u);
    EXPECT_EQ(gone.sites, 1u);

    ASSERT_TRUE(fr_->Close(/*skip_checkpoint=*/true).ok());
    OpenWithSmallBound();
    ExpectSameStateCounts(fr_->Stats(), gone);
    EXPECT_FALSE(Seen(Big(1, hosts[1 % hosts.size()].c_str())));
    EXPECT_EQ(Add(Big(0, hosts[0].c_str())), AddOutcome::kRefused);
    EXPECT_GE(TickUntilDone(), 2);
    ExpectSameStateCounts(fr_->Stats(), gone);

    // Finished for good: the next start has no tombstone left.
    ASSERT_TRUE(fr_->Close(/*skip_checkpoint=*/true).ok());
    OpenWithSmallBound();
    auto idle = fr_->Tick(now_);
    ASSERT_TRUE(idle.ok());
    EXPECT_FALSE(idle->more_due);
    EXPECT_EQ(AddBig(kBigUrls, hosts), static_cast<size_t>(kBigUrls));
    EXPECT_EQ(fr_->Stats().urls, 2u + kBigUrls);
    EXPECT_EQ(fr_->Stats().queued, 2u + kBigUrls);
  }
}

TEST_F(FrontierSiteDeleteTest, SmallSiteIsStillRemovedAtOnce) {
  OpenWithSmallBound();
  ASSERT_EQ(AddBig(static_cast<int>(kBound)), kBound);
  auto removed = fr_->DeleteSite("big.com", now_);
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, kBound);
  auto tick = fr_->Tick(now_);
  ASSERT_TRUE(tick.ok());
  EXPECT_FALSE(tick->more_due);  // nothing left for the background
  EXPECT_EQ(Add(Big(0)), AddOutcome::kAdded);
}

}  // namespace
}  // namespace frontier
