// SITE LIST and TopSites with site records pending in the site journal
// (docs/design.md, "The site journal"): they overlay the pending records
// on their scan of sites.db instead of writing the journal back first.
// Each test builds a journal holding new sites, changed sites, sites
// deleted after they were written back and sites deleted while only
// pending, reads every page of every filter and the top sites, checks
// that the read wrote nothing back, then writes everything back (a
// checkpoint) and checks that the same reads give exactly the same.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "storage/frontier.h"
#include "storage/frontier_impl.h"
#include "tests/storage/frontier_fixture.h"

namespace frontier {
namespace {

constexpr int kWrittenSites = 300;
constexpr int kNewSites = 120;

std::string Url(const std::string& site, int i) {
  return "http://" + site + "/p" + std::to_string(i);
}
std::string Old(int i) { return "old" + std::to_string(i) + ".test"; }
std::string Fresh(int i) { return "new" + std::to_string(i) + ".test"; }

// What the reads return: every page of a scan, as "cursor:site,site".
struct View {
  std::vector<std::string> pages;
  std::vector<std::string> top;
  bool operator==(const View&) const = default;
};

class SiteListOverlayTest : public FrontierFixture {
 protected:
  FrontierImpl& Impl() { return static_cast<FrontierImpl&>(*fr_); }

  // Every page of each filter at a few page sizes, and two top lists.
  View Read() {
    View v;
    for (SiteFilter filter : {SiteFilter::kAll, SiteFilter::kReady,
                              SiteFilter::kWaiting, SiteFilter::kBlocked}) {
      for (size_t count : {size_t{1}, size_t{7}, size_t{1000}}) {
        uint64_t cursor = 0;
        for (int page = 0; page < 2000; ++page) {
          auto p = fr_->ListSites(filter, cursor, count, now_);
          EXPECT_TRUE(p.ok()) << p.status().ToString();
          if (!p.ok()) return v;
          std::string line = std::to_string(p->next_cursor) + ":";
          for (const std::string& s : p->sites) line += s + ",";
          v.pages.push_back(line);
          cursor = p->next_cursor;
          if (cursor == 0) break;
        }
        EXPECT_EQ(cursor, 0u) << "the scan did not end";
      }
    }
    for (size_t n : {size_t{5}, size_t{1000}}) {
      auto top = fr_->TopSites(n);
      EXPECT_TRUE(top.ok()) << top.status().ToString();
      if (!top.ok()) return v;
      for (const SiteSize& s : *top) {
        v.top.push_back(s.name + " " + std::to_string(s.queued) + " " +
                        std::to_string(s.urls) + " " +
                        std::to_string(s.leased));
      }
      v.top.push_back("--");
    }
    return v;
  }

  // Sites in sites.db (written back by a checkpoint), then, in the
  // journal only: new sites, more URLs, leases, a delay, a block, a cap,
  // sites deleted after and before their write-back.
  void BuildJournal() {
    opts_.politeness_delay_ms = 1000;
    Open();
    for (int i = 0; i < kWrittenSites; ++i) {
      for (int k = 0; k <= i % 4; ++k) Add(Url(Old(i), k));
    }
    ASSERT_TRUE(fr_->Checkpoint().ok());
    ASSERT_EQ(Impl().PendingSitesForTesting(), 0u);
    for (int i = 0; i < kNewSites; ++i) {
      for (int k = 0; k <= i % 5; ++k) Add(Url(Fresh(i), k));
    }
    for (int i = 0; i < kWrittenSites; i += 3) Add(Url(Old(i), 100));
    Pop(40, 60'000);  // leases: next-allowed times and lease counts
    ASSERT_TRUE(fr_->SetSiteDelay(Old(1), 5000, now_).ok());
    ASSERT_TRUE(fr_->BlockSite(Old(2), 60'000, now_).ok());
    ASSERT_TRUE(fr_->BlockSite(Fresh(2), 60'000, now_).ok());
    ASSERT_TRUE(fr_->SetSiteLimit(Old(5), 1, now_).ok());
    for (int i = 10; i < kWrittenSites; i += 17) {
      ASSERT_TRUE(fr_->DeleteSite(Old(i), now_).ok());
    }
    for (int i = 4; i < kNewSites; i += 11) {
      ASSERT_TRUE(fr_->DeleteSite(Fresh(i), now_).ok());
    }
    ASSERT_TRUE(fr_->FlushLog().ok());
    now_ += 500;  // some sites ready again, others still waiting
  }
};

TEST_F(SiteListOverlayTest, ReadsAsAWrittenBackScanAndWritesNothingBack) {
  BuildJournal();
  if (HasFatalFailure()) return;
  const size_t pending = Impl().PendingSitesForTesting();
  ASSERT_GT(pending, static_cast<size_t>(kNewSites));
  const View overlaid = Read();
  EXPECT_EQ(Impl().PendingSitesForTesting(), pending)
      << "a read wrote the journal back";
  ASSERT_TRUE(fr_->Checkpoint().ok());
  ASSERT_EQ(Impl().PendingSitesForTesting(), 0u);
  const View written_back = Read();
  EXPECT_EQ(overlaid, written_back);
  // The deleted sites are absent, the others all there.
  auto page = fr_->ListSites(SiteFilter::kAll, 0, 100'000, now_);
  ASSERT_TRUE(page.ok());
  const size_t deleted_old = (kWrittenSites - 10 + 16) / 17;
  const size_t deleted_new = (kNewSites - 4 + 10) / 11;
  EXPECT_EQ(page->sites.size(),
            kWrittenSites + kNewSites - deleted_old - deleted_new);
}

TEST_F(SiteListOverlayTest, InsideAPassReadsThePassesOwnChanges) {
  BuildJournal();
  if (HasFatalFailure()) return;
  fr_->BeginPass();
  Add(Url("inpass.test", 1));
  Add(Url(Old(0), 200));
  ASSERT_TRUE(fr_->DeleteSite(Old(3), now_).ok());
  const size_t pending = Impl().PendingSitesForTesting();
  const View overlaid = Read();
  EXPECT_EQ(Impl().PendingSitesForTesting(), pending);
  ASSERT_TRUE(fr_->EndPass().ok());
  ASSERT_TRUE(fr_->Checkpoint().ok());
  ASSERT_EQ(Impl().PendingSitesForTesting(), 0u);
  EXPECT_EQ(overlaid, Read());
  auto page = fr_->ListSites(SiteFilter::kAll, 0, 100'000, now_);
  ASSERT_TRUE(page.ok());
  EXPECT_NE(std::find(page->sites.begin(), page->sites.end(), "inpass.test"),
            page->sites.end());
  EXPECT_EQ(std::find(page->sites.begin(), page->sites.end(), Old(3)),
            page->sites.end());
}

}  // namespace
}  // namespace frontier
