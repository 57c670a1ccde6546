// Leases held in memory and journaled (storage/lease_table.h,
// docs/design.md "Leases in memory"). A model test: random ADD, POP with
// short leases, CONFIRM, FAIL, EXTEND, RELEASE and expiry (the clock
// advanced, then Tick) in passes, then a crash at one of the journal's
// points (after a commit, after a write-back slice, after a checkpoint,
// mid-pass, right after the recovery of the last crash), a reopen with
// recovery, and checks: every acknowledged live lease is there with its
// deadline, every other URL in the state the model says, the counts equal
// the model's, no POP hands out a URL under a live lease, and the leases
// the crash caught still expire at their deadlines (the model's expiry
// after the reopen checks that too).
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "storage/backup_copy.h"
#include "storage/frontier.h"
#include "storage/frontier_impl.h"
#include "tests/storage/frontier_fixture.h"

namespace frontier {
namespace {

constexpr int kSites = 6;

std::string SiteName(int i) { return "s" + std::to_string(i) + ".lease.test"; }

// What the model knows of a URL.
struct ModelUrl {
  UrlState state = UrlState::kQueued;
  int64_t due_ms = 0;  // the lease's deadline while leased
};
using Model = std::map<std::string, ModelUrl>;

class LeaseJournalTest : public FrontierFixture {
 protected:
  void SetUp() override {
    FrontierFixture::SetUp();
    opts_.max_attempts = 1'000'000;  // no URL dies: the model stays small
  }

  FrontierImpl& Impl() { return static_cast<FrontierImpl&>(*fr_); }

  // The clock moves and Tick expires the leases due, in the model too.
  void Advance(int64_t ms, Model* m) {
    now_ += ms;
    for (int i = 0; i < 100; ++i) {
      auto r = fr_->Tick(now_);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      if (!r->more_due) break;
    }
    for (auto& [url, u] : *m) {
      if (u.state == UrlState::kLeased && u.due_ms <= now_) {
        u.state = UrlState::kQueued;
      }
    }
  }

  std::vector<std::string> Leased(const Model& m) const {
    std::vector<std::string> out;
    for (const auto& [url, u] : m) {
      if (u.state == UrlState::kLeased) out.push_back(url);
    }
    return out;
  }

  // One pass of random verbs on `m` (the model as the verbs acknowledge
  // it; the caller keeps it only if the pass is committed).
  void RandomPass(std::mt19937* rng, Model* m) {
    fr_->BeginPass();
    const int ops = 1 + static_cast<int>((*rng)() % 10);
    for (int k = 0; k < ops; ++k) {
      const int what = static_cast<int>((*rng)() % 12);
      const std::vector<std::string> leased = Leased(*m);
      const std::string some =
          leased.empty() ? "" : leased[(*rng)() % leased.size()];
      if (what < 3) {
        const std::string url = "http://" + SiteName((*rng)() % kSites) +
                                "/p" + std::to_string(next_url_++);
        auto r = fr_->Add(url, "", {}, now_);
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        if (*r == AddOutcome::kAdded) (*m)[url] = ModelUrl{};
      } else if (what < 6) {
        const int64_t lease_ms = 500 + static_cast<int64_t>((*rng)() % 3000);
        auto r = fr_->Pop(1 + (*rng)() % 3, lease_ms, now_);
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        for (const std::string& url : *r) {
          ASSERT_TRUE(m->contains(url)) << url;
          // Never a URL under a live lease.
          ASSERT_EQ((*m)[url].state, UrlState::kQueued) << url;
          (*m)[url] = ModelUrl{UrlState::kLeased, now_ + lease_ms};
        }
      } else if (what == 6 && !some.empty()) {
        auto r = fr_->Confirm(some, {}, now_);
        ASSERT_TRUE(r.ok() && *r) << some;
        (*m)[some] = ModelUrl{UrlState::kDone, 0};
      } else if (what == 7 && !some.empty()) {
        auto r = fr_->Fail(some, FailOptions{}, now_);
        ASSERT_TRUE(r.ok() && *r) << some;
        (*m)[some] = ModelUrl{};
      } else if (what == 8 && !some.empty()) {
        const int64_t lease_ms = 500 + static_cast<int64_t>((*rng)() % 3000);
        auto r = fr_->Extend(some, lease_ms, now_);
        ASSERT_TRUE(r.ok() && *r) << some;
        (*m)[some].due_ms = now_ + lease_ms;
      } else if (what == 9 && !some.empty()) {
        auto r = fr_->Release(some, 0, now_);
        ASSERT_TRUE(r.ok() && *r) << some;
        (*m)[some] = ModelUrl{};
      } else if (what >= 10) {
        ASSERT_TRUE(fr_->EndPass().ok());
        Advance(static_cast<int64_t>((*rng)() % 1200), m);
        if (HasFatalFailure()) return;
        fr_->BeginPass();
      }
    }
    ASSERT_TRUE(fr_->EndPass().ok());
  }

  // The frontier as the model says: each URL's state (a lease with its
  // deadline), the counts, and no URL under a live lease handed out.
  void ExpectModel(const Model& m, const std::string& when) {
    uint64_t leased = 0, queued = 0, done = 0;
    for (const auto& [url, u] : m) {
      auto info = fr_->Info(url);
      ASSERT_TRUE(info.ok() && info->has_value()) << when << " " << url;
      EXPECT_EQ(std::string(UrlStateName((*info)->state)),
                std::string(UrlStateName(u.state)))
          << when << " " << url;
      if (u.state == UrlState::kLeased) {
        EXPECT_EQ((*info)->due_ms, u.due_ms) << when << " " << url;
        leased++;
      }
      queued += u.state == UrlState::kQueued;
      done += u.state == UrlState::kDone;
    }
    const FrontierStats st = fr_->Stats();
    EXPECT_EQ(st.urls, m.size()) << when;
    EXPECT_EQ(st.leased, leased) << when;
    EXPECT_EQ(st.queued, queued) << when;
    EXPECT_EQ(st.done, done) << when;
    uint64_t site_leases = 0;
    for (int i = 0; i < kSites; ++i) {
      auto info = fr_->GetSiteInfo(SiteName(i), now_);
      ASSERT_TRUE(info.ok());
      if (info->has_value()) site_leases += (**info).leased;
    }
    EXPECT_EQ(site_leases, leased) << when;
  }

  // A checkpoint (every lease held in memory goes to Qc), one more pass
  // committed into `committed`, then a crash.
  void CheckpointPassAndCrash(std::mt19937* rng, Model* committed) {
    ASSERT_TRUE(fr_->Checkpoint().ok());
    CommittedPass(rng, committed);
    if (HasFatalFailure()) return;
    CrashAndReopen();
  }

  // A random pass, committed and flushed: `committed` becomes the model
  // after it.
  void CommittedPass(std::mt19937* rng, Model* committed) {
    Model m = *committed;
    RandomPass(rng, &m);
    if (HasFatalFailure()) return;
    ASSERT_TRUE(fr_->FlushLog().ok());
    *committed = std::move(m);
  }

  // A pass that POPs and ends every lease of `m`, then fails before its
  // commit (a panic); RetryWrites' reopen recovers without it.
  void LoseAPass(const Model& m) {
    fr_->BeginPass();
    ASSERT_TRUE(fr_->Pop(2, 1000, now_).ok());
    for (const std::string& url : Leased(m)) {
      ASSERT_TRUE(fr_->Confirm(url, {}, now_).ok());
    }
    ASSERT_TRUE(Impl().PanicForTesting().ok());
    (void)fr_->EndPass();
    ASSERT_TRUE(fr_->RetryWrites().ok());
  }

  void RunModel(uint32_t seed) {
    std::mt19937 rng(seed);
    Open();
    Model committed;
    for (int round = 0; round < 40; ++round) {
      const std::string when =
          "seed " + std::to_string(seed) + " round " + std::to_string(round);
      const int passes = 1 + static_cast<int>(rng() % 5);
      for (int p = 0; p < passes && !HasFatalFailure(); ++p) {
        CommittedPass(&rng, &committed);
      }
      if (HasFatalFailure()) return;
      // The crash: after a commit, after a write-back slice, after a
      // checkpoint (leases to Qc) and more passes, mid-pass, or right
      // after the recovery of a crash.
      const uint32_t kind = rng() % 5;
      if (kind == 0) CrashAndReopen();
      if (kind == 1) SliceAndCrash();
      if (kind == 2) CheckpointPassAndCrash(&rng, &committed);
      if (kind == 3) LoseAPass(committed);
      if (kind == 4) CrashTwice();
      if (HasFatalFailure()) return;
      ExpectModelAndExpiry(&committed, static_cast<int64_t>(rng() % 2500),
                           when);
      if (HasFailure()) return;
    }
    ASSERT_TRUE(fr_->Close(/*skip_checkpoint=*/false).ok());
    Open();
    ExpectModelAndExpiry(&committed, 10'000, "after a clean close");
  }

  // After a reopen: the model holds, and once the clock moved on by
  // `ms`, the leases the crash caught expired at their deadlines.
  void ExpectModelAndExpiry(Model* m, int64_t ms, const std::string& when) {
    ExpectModel(*m, when);
    if (HasFailure()) return;
    Advance(ms, m);
    if (HasFatalFailure()) return;
    ExpectModel(*m, when + " (expiry)");
  }

  int next_url_ = 0;
};

TEST_F(LeaseJournalTest, LeasesSurviveEveryCrashPoint) {
  for (uint32_t seed : {1u, 2u, 3u, 4u}) {
    RunModel(seed);
    if (HasFailure()) return;
    fr_.reset();
    std::filesystem::remove_all(dir_);
  }
}

TEST_F(LeaseJournalTest, TheModelHoldsWithoutTheJournal) {
  opts_.site_journal = false;
  RunModel(1);
}

TEST_F(LeaseJournalTest, PastTheBoundLeasesGoToQcAndAllExpire) {
  // More live leases than memory holds (64k): the POPs past the bound
  // write Qc; a crash loses none, and every one expires at its deadline.
  Open();
  constexpr int kMany = 66'000;
  constexpr int kPerPass = 1000;
  std::vector<std::string> urls;
  for (int i = 0; i < kMany; i += kPerPass) {
    urls.clear();
    for (int j = i; j < i + kPerPass; ++j) {
      urls.push_back("http://b" + std::to_string(j % 50) + ".test/" +
                     std::to_string(j));
    }
    std::vector<std::string_view> views(urls.begin(), urls.end());
    fr_->BeginPass();
    ASSERT_TRUE(fr_->AddMany("", views, now_).ok());
    auto popped = fr_->Pop(kPerPass, 60'000, now_);
    ASSERT_TRUE(popped.ok()) << popped.status().ToString();
    ASSERT_EQ(popped->size(), static_cast<size_t>(kPerPass));
    ASSERT_TRUE(fr_->EndPass().ok());
    now_ += 10;
  }
  ASSERT_TRUE(fr_->FlushLog().ok());
  CrashAndReopen();
  EXPECT_EQ(fr_->Stats().leased, static_cast<uint64_t>(kMany));
  EXPECT_TRUE(Pop(10).empty());  // none handed out twice
  now_ += 60'000 + kMany / kPerPass * 10;
  for (int i = 0; i < 1000; ++i) {
    auto r = fr_->Tick(now_);
    ASSERT_TRUE(r.ok());
    if (!r->more_due) break;
  }
  EXPECT_EQ(fr_->Stats().leased, 0u);
  EXPECT_EQ(fr_->Stats().queued, static_cast<uint64_t>(kMany));
}

TEST_F(LeaseJournalTest, ARestoredBackupKeepsItsLiveLeases) {
  // Leases taken before the backup's checkpoint (in Qc) and during the
  // copy (only in the copied log): the restored copy holds both, and
  // they expire at their deadlines.
  Open();
  Add("http://b1.lease.test/1");
  Add("http://b2.lease.test/1");
  const std::string before = PopOne();
  ASSERT_FALSE(before.empty());
  ASSERT_TRUE(fr_->FlushLog().ok());
  const std::string target = dir_ + ".backup";
  std::filesystem::remove_all(target);
  auto plan = fr_->BeginBackup(target);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto during = fr_->Pop(1, 5'000, now_);
  ASSERT_TRUE(during.ok() && during->size() == 1);
  ASSERT_TRUE(fr_->FlushLog().ok());
  std::atomic<bool> cancel{false};
  Status copied = CopyBackup(*plan, cancel);
  fr_->EndBackup();
  ASSERT_TRUE(copied.ok()) << copied.ToString();
  const int64_t before_due = Info(before).due_ms;
  fr_.reset();
  opts_.dir = target;
  Open();  // recovery and the replay
  EXPECT_EQ(fr_->Stats().leased, 2u);
  EXPECT_EQ(UrlStateName(Info(before).state), std::string("leased"));
  EXPECT_EQ(Info(before).due_ms, before_due);
  EXPECT_EQ(Info((*during)[0]).due_ms, now_ + 5'000);
  EXPECT_TRUE(Pop(2).empty());
  now_ += 5'000;
  ASSERT_TRUE(fr_->Tick(now_).ok());
  EXPECT_EQ(UrlStateName(Info((*during)[0]).state), std::string("queued"));
  EXPECT_EQ(fr_->Stats().leased, 1u);
  fr_.reset();
  std::filesystem::remove_all(target);
}

TEST_F(LeaseJournalTest, SiteDeleteAndPurgeEndLeasesHeldInMemory) {
  Open();
  Add("http://gone.lease.test/1");
  Add("http://kept.lease.test/1");
  ASSERT_EQ(Pop(2, 1000).size(), 2u);
  auto removed = fr_->DeleteSite("gone.lease.test", now_);
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  auto purged = fr_->PurgeUrls("kept.lease.test", now_ + 1, "0", 100, now_);
  ASSERT_TRUE(purged.ok()) << purged.status().ToString();
  EXPECT_EQ(fr_->Stats().leased, 0u);
  EXPECT_EQ(fr_->Stats().urls, 0u);
  ASSERT_TRUE(fr_->FlushLog().ok());
  CrashAndReopen();
  EXPECT_EQ(fr_->Stats().leased, 0u);
  EXPECT_EQ(fr_->Stats().urls, 0u);
  // Nothing left to expire: a Tick past the deadlines finds no lease.
  now_ += 2000;
  auto r = fr_->Tick(now_);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->expired, 0u);
}

}  // namespace
}  // namespace frontier
