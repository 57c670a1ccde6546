// The site journal (storage/journal.h, docs/design.md "The site
// journal"): site records are carried in the log and written to sites.db
// behind. A model test: random ADD/POP/CONFIRM/FAIL and site delays in
// passes, then a crash at one of the journal's points (after a pass's
// commit, mid-pass, after a write-back slice, right after the recovery of
// the last crash), a reopen with recovery, and a check that every site's
// record and the state counts are what they were after the last committed
// pass, and that each site's counts add up to the URLs the model added.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "storage/backup_copy.h"
#include "storage/frontier.h"
#include "storage/frontier_impl.h"
#include "tests/storage/frontier_fixture.h"

namespace frontier {
namespace {

constexpr int kSites = 12;
constexpr int64_t kLeaseMs = 30'000;

std::string SiteName(int i) { return "s" + std::to_string(i) + ".journal.test"; }

// What a check compares: the state counts and every site's record as the
// verbs show them.
struct Snapshot {
  uint64_t urls = 0, queued = 0, leased = 0, done = 0, scheduled = 0,
           dead = 0, sites = 0;
  int64_t now_ms = 0;  // when it was taken (next-allowed times are relative)
  std::map<std::string, std::string> site_lines;  // site -> its fields
};

std::string Describe(const SiteInfo& s) {
  return "queued=" + std::to_string(s.queued) +
         " leased=" + std::to_string(s.leased) +
         " done=" + std::to_string(s.done) +
         " scheduled=" + std::to_string(s.scheduled) +
         " dead=" + std::to_string(s.dead) +
         " delay=" + std::to_string(s.delay_ms) +
         " next_allowed=" + std::to_string(s.next_allowed_ms) +
         " block_until=" + std::to_string(s.block_until_ms) +
         " backoffs=" + std::to_string(s.backoffs);
}

class SiteJournalTest : public FrontierFixture {
 protected:
  FrontierImpl& Impl() { return static_cast<FrontierImpl&>(*fr_); }

  Snapshot Take() {
    Snapshot snap;
    snap.now_ms = now_;
    const FrontierStats st = fr_->Stats();
    snap.urls = st.urls;
    snap.queued = st.queued;
    snap.leased = st.leased;
    snap.done = st.done;
    snap.scheduled = st.scheduled;
    snap.dead = st.dead;
    snap.sites = st.sites;
    for (int i = 0; i < kSites; ++i) {
      auto info = fr_->GetSiteInfo(SiteName(i), now_);
      EXPECT_TRUE(info.ok()) << info.status().ToString();
      if (info.ok() && info->has_value()) {
        snap.site_lines[SiteName(i)] = Describe(**info);
      }
    }
    return snap;
  }

  void ExpectSame(const Snapshot& want, const std::string& when) {
    now_ = want.now_ms;  // the clock went on in the passes that were lost
    const Snapshot have = Take();
    EXPECT_EQ(have.urls, want.urls) << when;
    EXPECT_EQ(have.queued, want.queued) << when;
    EXPECT_EQ(have.leased, want.leased) << when;
    EXPECT_EQ(have.done, want.done) << when;
    EXPECT_EQ(have.scheduled, want.scheduled) << when;
    EXPECT_EQ(have.dead, want.dead) << when;
    EXPECT_EQ(have.sites, want.sites) << when;
    EXPECT_EQ(have.site_lines, want.site_lines) << when;
    // Each site's URLs, in whatever state, are the ones the model added.
    for (int i = 0; i < kSites; ++i) {
      auto info = fr_->GetSiteInfo(SiteName(i), now_);
      ASSERT_TRUE(info.ok());
      const uint64_t added = added_[i];
      if (!info->has_value()) {
        EXPECT_EQ(added, 0u) << when << " " << SiteName(i);
        continue;
      }
      const SiteInfo& s = **info;
      EXPECT_EQ(s.queued + s.leased + s.done + s.scheduled + s.dead, added)
          << when << " " << SiteName(i);
    }
  }

  // One pass of random verbs, committed and flushed. The model (added_,
  // leased_) follows what each verb acknowledged.
  void RandomPass(std::mt19937* rng, bool commit) {
    fr_->BeginPass();
    const int ops = 1 + static_cast<int>((*rng)() % 12);
    for (int k = 0; k < ops; ++k) {
      const int what = static_cast<int>((*rng)() % 10);
      if (what < 4) {
        const int site = static_cast<int>((*rng)() % kSites);
        const std::string url = "http://" + SiteName(site) + "/p" +
                                std::to_string(next_url_++);
        auto r = fr_->Add(url, "", {}, now_);
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        if (*r == AddOutcome::kAdded) pending_added_[site]++;
      } else if (what < 6) {
        auto r = fr_->Pop(1 + (*rng)() % 3, kLeaseMs, now_);
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        for (const std::string& url : *r) pending_leased_.insert(url);
      } else if (what < 8 && !leased_.empty()) {
        auto it = leased_.begin();
        std::advance(it, (*rng)() % leased_.size());
        const std::string url = *it;
        leased_.erase(it);
        StatusOr<bool> r = what == 6 ? fr_->Confirm(url, {}, now_)
                                     : fr_->Fail(url, FailOptions{}, now_);
        ASSERT_TRUE(r.ok()) << r.status().ToString();
      } else if (what == 8) {
        const int site = static_cast<int>((*rng)() % kSites);
        const int64_t delay = static_cast<int64_t>((*rng)() % 4) * 700;
        ASSERT_TRUE(fr_->SetSiteDelay(SiteName(site), delay, now_).ok());
      } else {
        now_ += static_cast<int64_t>((*rng)() % 900);
      }
    }
    if (!commit) return;
    ASSERT_TRUE(fr_->FlushLog().ok());
    for (const auto& [site, n] : pending_added_) added_[site] += n;
    leased_.insert(pending_leased_.begin(), pending_leased_.end());
    pending_added_.clear();
    pending_leased_.clear();
  }

  // The verbs of an uncommitted pass never happened.
  void ForgetPass() {
    pending_added_.clear();
    pending_leased_.clear();
  }

  void RunModel(uint32_t seed) {
    std::mt19937 rng(seed);
    Open();
    Snapshot committed = Take();
    for (int round = 0; round < 30; ++round) {
      const int passes = 1 + static_cast<int>(rng() % 6);
      for (int p = 0; p < passes; ++p) {
        RandomPass(&rng, /*commit=*/true);
        if (HasFatalFailure()) return;
        // A write-back slice now and then (at most one a second).
        if (rng() % 3 == 0) {
          now_ += 1000;
          ASSERT_TRUE(fr_->WriteBehind(now_, now_ + 3'600'000).ok());
        }
      }
      committed = Take();
      const std::string when =
          "seed " + std::to_string(seed) + " round " + std::to_string(round);
      switch (rng() % 4) {
        case 0:  // after a commit
          CrashAndReopen();
          break;
        case 1:
          SliceAndCrash();
          break;
        case 2:  // mid-pass: a pass that never commits, lost with recovery
          RandomPass(&rng, /*commit=*/false);
          if (HasFatalFailure()) return;
          ForgetPass();
          ASSERT_TRUE(Impl().PanicForTesting().ok());
          ASSERT_TRUE(fr_->RetryWrites().ok());
          break;
        case 3:  // right after the recovery of a crash
          CrashTwice();
          break;
      }
      if (HasFatalFailure()) return;
      ExpectSame(committed, when);
      if (HasFailure()) return;
    }
    // A clean close writes everything back; the records stay.
    ASSERT_TRUE(fr_->Close(/*skip_checkpoint=*/false).ok());
    Open();
    ExpectSame(committed, "after a clean close");
  }

  std::map<int, uint64_t> added_, pending_added_;
  std::set<std::string> leased_, pending_leased_;
  int next_url_ = 0;
};

TEST_F(SiteJournalTest, SiteRecordsSurviveEveryCrashPoint) {
  opts_.politeness_delay_ms = 500;
  for (uint32_t seed : {1u, 2u, 3u}) {
    RunModel(seed);
    if (HasFailure()) return;
    fr_.reset();
    std::filesystem::remove_all(dir_);
    added_.clear();
    leased_.clear();
  }
}

// The same model with the journal off (site records written by every
// pass): the check holds without the journal too.
TEST_F(SiteJournalTest, TheModelHoldsWithoutTheJournal) {
  opts_.politeness_delay_ms = 500;
  opts_.site_journal = false;
  RunModel(1);
}

TEST_F(SiteJournalTest, ThePassesOfAJournalAreRecoveredWithoutItsWriteBack) {
  // Many sites, more than one write-back slice (4,096 sites) takes: a
  // slice writes the oldest, the rest are replayed from the log.
  Open();
  constexpr int kMany = 5000;
  for (int i = 0; i < kMany; ++i) {
    fr_->BeginPass();
    auto r = fr_->Add("http://m" + std::to_string(i) + ".test/a", "", {}, now_);
    ASSERT_TRUE(r.ok());
    ASSERT_TRUE(fr_->EndPass().ok());
  }
  ASSERT_TRUE(fr_->FlushLog().ok());
  now_ += 5000;
  ASSERT_TRUE(fr_->WriteBehind(now_, now_ + 3'600'000).ok());
  // A second pass over some of the sites after the slice.
  for (int i = 0; i < kMany; i += 7) {
    auto r = fr_->Add("http://m" + std::to_string(i) + ".test/b", "", {}, now_);
    ASSERT_TRUE(r.ok());
  }
  ASSERT_TRUE(fr_->FlushLog().ok());
  CrashAndReopen();
  const FrontierStats st = fr_->Stats();
  EXPECT_EQ(st.sites, static_cast<uint64_t>(kMany));
  EXPECT_EQ(st.queued, static_cast<uint64_t>(kMany + (kMany + 6) / 7));
  for (int i = 0; i < kMany; i += 13) {
    auto info = fr_->GetSiteInfo("m" + std::to_string(i) + ".test", now_);
    ASSERT_TRUE(info.ok());
    ASSERT_TRUE(info->has_value()) << i;
    EXPECT_EQ((*info)->queued, i % 7 == 0 ? 2u : 1u) << i;
  }
}

TEST_F(SiteJournalTest, PastTheBoundTheOldestAreWrittenBackInThePass) {
  // More sites than the journal keeps pending (64k): the passes beyond
  // the bound write the oldest back themselves; a crash loses none.
  Open();
  constexpr int kMany = 70'000;
  constexpr int kPerPass = 1000;
  for (int i = 0; i < kMany; i += kPerPass) {
    fr_->BeginPass();
    for (int j = i; j < i + kPerPass; ++j) {
      auto r = fr_->Add("http://b" + std::to_string(j) + ".test/a", "", {},
                        now_);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
    ASSERT_TRUE(fr_->EndPass().ok());
  }
  ASSERT_TRUE(fr_->FlushLog().ok());
  CrashAndReopen();
  EXPECT_EQ(fr_->Stats().sites, static_cast<uint64_t>(kMany));
  EXPECT_EQ(fr_->Stats().queued, static_cast<uint64_t>(kMany));
  for (int i = 0; i < kMany; i += 997) {
    auto info = fr_->GetSiteInfo("b" + std::to_string(i) + ".test", now_);
    ASSERT_TRUE(info.ok());
    ASSERT_TRUE(info->has_value()) << i;
    EXPECT_EQ((*info)->queued, 1u) << i;
  }
}

TEST_F(SiteJournalTest, ADeletedSiteStaysDeletedAfterACrash) {
  Open();
  Add("http://gone.test/1");
  Add("http://kept.test/1");
  ASSERT_TRUE(fr_->FlushLog().ok());
  auto removed = fr_->DeleteSite("gone.test", now_);
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  ASSERT_TRUE(fr_->FlushLog().ok());
  CrashAndReopen();
  auto gone = fr_->GetSiteInfo("gone.test", now_);
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value());
  EXPECT_EQ(fr_->Stats().sites, 1u);
  EXPECT_EQ(fr_->Stats().queued, 1u);
}

TEST_F(SiteJournalTest, ABackupKeepsWhatWasJournaledDuringTheCopy) {
  // Verbs go on between BeginBackup (its checkpoint writes everything
  // back) and the copy: their site records are only in the copied log,
  // and the restored directory replays them.
  Open();
  Add("http://before.test/1");
  ASSERT_TRUE(fr_->FlushLog().ok());
  const std::string target = dir_ + ".backup";
  std::filesystem::remove_all(target);
  auto plan = fr_->BeginBackup(target);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  Add("http://before.test/2");
  Add("http://during.test/1");
  ASSERT_TRUE(fr_->FlushLog().ok());
  std::atomic<bool> cancel{false};
  Status copied = CopyBackup(*plan, cancel);
  fr_->EndBackup();
  ASSERT_TRUE(copied.ok()) << copied.ToString();
  fr_.reset();
  FrontierOptions copy_opts = opts_;
  copy_opts.dir = target;
  {  // the restored copy, closed at the end of the block
    auto copy = Frontier::Open(copy_opts);  // recovery and the replay
    ASSERT_TRUE(copy.ok()) << copy.status().ToString();
    EXPECT_EQ((*copy)->Stats().sites, 2u);
    EXPECT_EQ((*copy)->Stats().queued, 3u);
    auto before = (*copy)->GetSiteInfo("before.test", now_);
    ASSERT_TRUE(before.ok() && before->has_value());
    EXPECT_EQ((*before)->queued, 2u);
    auto during = (*copy)->GetSiteInfo("during.test", now_);
    ASSERT_TRUE(during.ok() && during->has_value());
    EXPECT_EQ((*during)->queued, 1u);
  }
  std::filesystem::remove_all(target);
}

TEST_F(SiteJournalTest, SiteListSeesJournaledSites) {
  Open();
  Add("http://listed.test/1");
  ASSERT_TRUE(fr_->FlushLog().ok());
  auto page = fr_->ListSites(SiteFilter::kAll, 0, 100, now_);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->sites.size(), 1u);
  EXPECT_EQ(page->sites[0], "listed.test");
}

}  // namespace
}  // namespace frontier
