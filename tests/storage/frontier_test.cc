// Storage-layer tests: the Frontier verbs against a temporary Berkeley DB
// environment, with the clock passed in by the test.
#include "storage/frontier.h"

#include <db_cxx.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace frontier {
namespace {

constexpr int64_t kT0 = 1'700'000'000'000;  // a fixed "now" in ms

AddOptions Prio(int p) {
  AddOptions o;
  o.priority = p;
  return o;
}
AddOptions Every(int64_t ms) {
  AddOptions o;
  o.recrawl_ms = ms;
  return o;
}

class FrontierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/frontier_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    opts_.dir = dir_;
    opts_.cache_bytes = 8 << 20;
    opts_.politeness_delay_ms = 0;
    opts_.site_max_leases = 0;
  }
  void TearDown() override {
    fr_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Open() {
    fr_.reset();
    auto f = Frontier::Open(opts_);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    fr_ = std::move(f).value();
  }
  AddOutcome Add(std::string_view url, std::string_view ref = "",
                 AddOptions o = {}) {
    auto r = fr_->Add(url, ref, o, now_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : AddOutcome::kRefused;
  }
  std::vector<std::string> Pop(size_t n, int64_t lease_ms = 0) {
    auto r = fr_->Pop(n, lease_ms, now_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<std::string>{};
  }
  std::string PopOne() {
    auto v = Pop(1);
    return v.empty() ? "" : v[0];
  }
  UrlInfo Info(std::string_view url) {
    auto r = fr_->Info(url);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r.ok() && r->has_value()) << url;
    return r.ok() && r->has_value() ? **r : UrlInfo{};
  }
  bool Confirm(std::string_view url) {
    auto r = fr_->Confirm(url, {}, now_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && *r;
  }
  bool Fail(std::string_view url, int64_t delay_ms = 0) {
    FailOptions options;
    options.delay_ms = delay_ms;
    auto r = fr_->Fail(url, options, now_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && *r;
  }
  void Tick() {
    auto r = fr_->Tick(now_);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  std::string dir_;
  FrontierOptions opts_;
  std::unique_ptr<Frontier> fr_;
  int64_t now_ = kT0;
};

TEST_F(FrontierTest, AddIsNewThenKnownAcrossSpellings) {
  Open();
  EXPECT_EQ(Add("http://Example.com:80/a/./b/../c#top"), AddOutcome::kAdded);
  EXPECT_EQ(Add("HTTP://example.COM/a/c"), AddOutcome::kKnown);
  EXPECT_EQ(Add("http://example.com/a/c"), AddOutcome::kKnown);
  UrlInfo info = Info("http://example.com/a/c");
  EXPECT_EQ(info.url, "http://example.com/a/c");
  EXPECT_EQ(info.backlinks, 2u);
  EXPECT_EQ(info.state, UrlState::kQueued);
  EXPECT_EQ(info.depth, 1);
  EXPECT_EQ(info.priority, 5000);
  FrontierStats st = fr_->Stats();
  EXPECT_EQ(st.urls, 1u);
  EXPECT_EQ(st.added, 1u);
  EXPECT_EQ(st.duplicates, 2u);
  EXPECT_EQ(st.queued, 1u);
  EXPECT_EQ(st.sites, 1u);
}

TEST_F(FrontierTest, InvalidUrlChangesNothing) {
  Open();
  auto r = fr_->Add("ftp://example.com/", "", {}, now_);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_EQ(r.status().message().rfind("invalid URL: ", 0), 0u)
      << r.status().message();
  auto bad_ref = fr_->Add("http://a.com/", "notaurl", {}, now_);
  ASSERT_FALSE(bad_ref.ok());
  EXPECT_EQ(bad_ref.status().message().rfind("invalid ref URL: ", 0), 0u);
  EXPECT_EQ(fr_->Stats().urls, 0u);
  auto seen = fr_->Seen("http://a.com/");
  ASSERT_TRUE(seen.ok());
  EXPECT_FALSE(*seen);
}

TEST_F(FrontierTest, DepthFollowsRefWithinScope) {
  opts_.depth_scope = SiteScope::kDomain;
  Open();
  Add("http://www.a.com/");
  EXPECT_EQ(Add("http://www.a.com/1", "http://www.a.com/"), AddOutcome::kAdded);
  EXPECT_EQ(Info("http://www.a.com/1").depth, 2);
  // Same registrable domain, other host: still one scope.
  Add("http://blog.a.com/x", "http://www.a.com/1");
  EXPECT_EQ(Info("http://blog.a.com/x").depth, 3);
  // Another domain starts again at 1.
  Add("http://b.com/", "http://www.a.com/1");
  EXPECT_EQ(Info("http://b.com/").depth, 1);
  // An unknown ref gives depth 1.
  Add("http://www.a.com/orphan", "http://www.a.com/unknown");
  EXPECT_EQ(Info("http://www.a.com/orphan").depth, 1);
}

TEST_F(FrontierTest, DepthScopeHostSeparatesSubdomains) {
  opts_.depth_scope = SiteScope::kHost;
  Open();
  Add("http://www.a.com/");
  Add("http://blog.a.com/x", "http://www.a.com/");
  EXPECT_EQ(Info("http://blog.a.com/x").depth, 1);
  Add("http://www.a.com/y", "http://www.a.com/");
  EXPECT_EQ(Info("http://www.a.com/y").depth, 2);
}

TEST_F(FrontierTest, MaxDepthRefusesAndStoresNothing) {
  opts_.max_depth = 2;
  Open();
  Add("http://a.com/1");
  EXPECT_EQ(Add("http://a.com/2", "http://a.com/1"), AddOutcome::kAdded);
  EXPECT_EQ(Add("http://a.com/3", "http://a.com/2"), AddOutcome::kRefused);
  auto seen = fr_->Seen("http://a.com/3");
  ASSERT_TRUE(seen.ok());
  EXPECT_FALSE(*seen);
  EXPECT_EQ(fr_->Stats().refused, 1u);
  EXPECT_EQ(fr_->Stats().urls, 2u);
}

TEST_F(FrontierTest, SiteMaxUrlsIsAVolumeLimit) {
  opts_.site_max_urls = 2;
  Open();
  EXPECT_EQ(Add("http://a.com/1"), AddOutcome::kAdded);
  EXPECT_EQ(Add("http://a.com/2"), AddOutcome::kAdded);
  EXPECT_EQ(Add("http://a.com/3"), AddOutcome::kRefused);
  EXPECT_EQ(Add("http://a.com/1"), AddOutcome::kKnown);  // known still counts
  EXPECT_EQ(Add("http://b.com/1"), AddOutcome::kAdded);
}

// ADD inserts first and MADD looks up first: both must answer the same,
// and a known URL is "known" (its back-link counted) even where a new one
// would be refused.
TEST_F(FrontierTest, AddAndAddManyAgreeOnKnownNewAndRefused) {
  opts_.max_depth = 2;
  opts_.site_max_urls = 3;
  Open();
  Add("http://a.com/1");
  Add("http://a.com/2", "http://a.com/1");  // depth 2
  // Depth 3 is refused for a new URL, but a known one is just known.
  EXPECT_EQ(Add("http://a.com/1", "http://a.com/2"), AddOutcome::kKnown);
  EXPECT_EQ(Add("http://a.com/9", "http://a.com/2"), AddOutcome::kRefused);
  auto many = fr_->AddMany("http://a.com/2",
                           {"http://a.com/1", "http://a.com/8"}, now_);
  ASSERT_TRUE(many.ok());
  ASSERT_EQ(many->size(), 2u);
  EXPECT_EQ((*many)[0].value(), AddOutcome::kKnown);
  EXPECT_EQ((*many)[1].value(), AddOutcome::kRefused);
  EXPECT_EQ(Info("http://a.com/1").backlinks, 2u);
  // The site cap: a.com holds 2 of 3; one more, then only known ones.
  EXPECT_EQ(Add("http://a.com/3"), AddOutcome::kAdded);
  EXPECT_EQ(Add("http://a.com/4"), AddOutcome::kRefused);
  EXPECT_EQ(Add("http://a.com/3"), AddOutcome::kKnown);
  many = fr_->AddMany("", {"http://a.com/3", "http://a.com/5"}, now_);
  ASSERT_TRUE(many.ok());
  EXPECT_EQ((*many)[0].value(), AddOutcome::kKnown);
  EXPECT_EQ((*many)[1].value(), AddOutcome::kRefused);
  FrontierStats st = fr_->Stats();
  EXPECT_EQ(st.urls, 3u);
  EXPECT_EQ(st.refused, 4u);
  EXPECT_EQ(st.duplicates, 4u);
}

TEST_F(FrontierTest, BfsOrderIsDepthThenPriority) {
  Open();
  Add("http://a.com/");
  Add("http://a.com/deep", "http://a.com/", Prio(0));
  Add("http://b.com/low", "", Prio(9000));
  Add("http://c.com/high", "", Prio(10));
  EXPECT_EQ(PopOne(), "http://c.com/high");
  EXPECT_EQ(PopOne(), "http://a.com/");
  EXPECT_EQ(PopOne(), "http://b.com/low");
  EXPECT_EQ(PopOne(), "http://a.com/deep");
  EXPECT_EQ(PopOne(), "");
}

TEST_F(FrontierTest, PriorityOrderIsPriorityThenDepth) {
  opts_.order = QueueOrder::kPriority;
  Open();
  Add("http://a.com/");
  Add("http://a.com/deep", "http://a.com/", Prio(0));
  Add("http://b.com/low", "", Prio(9000));
  EXPECT_EQ(PopOne(), "http://a.com/deep");
  EXPECT_EQ(PopOne(), "http://a.com/");
  EXPECT_EQ(PopOne(), "http://b.com/low");
}

TEST_F(FrontierTest, PopCountLeasesEachUrlOnce) {
  Open();
  for (int i = 0; i < 10; ++i) Add("http://s" + std::to_string(i) + ".com/");
  auto first = Pop(4);
  auto rest = Pop(100);
  EXPECT_EQ(first.size(), 4u);
  EXPECT_EQ(rest.size(), 6u);
  std::set<std::string> all(first.begin(), first.end());
  all.insert(rest.begin(), rest.end());
  EXPECT_EQ(all.size(), 10u);
  EXPECT_TRUE(Pop(5).empty());
  EXPECT_EQ(fr_->Stats().popped, 10u);
  EXPECT_EQ(fr_->Stats().leased, 10u);
  UrlInfo info = Info(first[0]);
  EXPECT_EQ(info.state, UrlState::kLeased);
  EXPECT_EQ(info.due_ms, kT0 + opts_.lease_timeout_ms);
}

TEST_F(FrontierTest, ConfirmRules) {
  Open();
  Add("http://a.com/leased");
  Add("http://b.com/never-popped");
  ASSERT_EQ(PopOne(), "http://a.com/leased");
  EXPECT_TRUE(Confirm("http://A.com/leased"));
  EXPECT_FALSE(Confirm("http://a.com/leased"));  // already done
  EXPECT_FALSE(Confirm("http://unknown.com/"));
  EXPECT_TRUE(Confirm("http://b.com/never-popped"));  // leaves the queue
  EXPECT_EQ(PopOne(), "");
  EXPECT_EQ(Info("http://a.com/leased").state, UrlState::kDone);
  FrontierStats st = fr_->Stats();
  EXPECT_EQ(st.done, 2u);
  EXPECT_EQ(st.queued, 0u);
  EXPECT_EQ(st.leased, 0u);
  EXPECT_EQ(st.confirmed, 2u);
}

TEST_F(FrontierTest, FailRequeuesThenKillsAfterMaxAttempts) {
  opts_.max_attempts = 3;
  Open();
  Add("http://a.com/x");
  EXPECT_FALSE(Fail("http://a.com/x"));  // queued, not leased
  for (int attempt = 1; attempt <= 3; ++attempt) {
    ASSERT_EQ(PopOne(), "http://a.com/x") << attempt;
    EXPECT_TRUE(Fail("http://a.com/x"));
    EXPECT_EQ(Info("http://a.com/x").attempts, attempt);
  }
  EXPECT_EQ(Info("http://a.com/x").state, UrlState::kDead);
  EXPECT_EQ(PopOne(), "");
  EXPECT_EQ(fr_->Stats().dead, 1u);
  EXPECT_EQ(fr_->Stats().failed, 3u);
  // A dead URL can still be confirmed (fetched some other way).
  EXPECT_TRUE(Confirm("http://a.com/x"));
}

TEST_F(FrontierTest, FailWithDelayWaitsThenRequeues) {
  Open();
  Add("http://a.com/x");
  ASSERT_EQ(PopOne(), "http://a.com/x");
  EXPECT_TRUE(Fail("http://a.com/x", 5000));
  EXPECT_EQ(Info("http://a.com/x").state, UrlState::kScheduled);
  now_ += 4999;
  EXPECT_EQ(PopOne(), "");
  now_ += 1;
  EXPECT_EQ(PopOne(), "http://a.com/x");
}

TEST_F(FrontierTest, ExpiredLeaseReturnsAndCountsAnAttempt) {
  Open();
  Add("http://a.com/x");
  ASSERT_EQ(Pop(1, 1000).size(), 1u);
  now_ += 999;
  Tick();
  EXPECT_EQ(Info("http://a.com/x").state, UrlState::kLeased);
  now_ += 1;
  Tick();
  UrlInfo info = Info("http://a.com/x");
  EXPECT_EQ(info.state, UrlState::kQueued);
  EXPECT_EQ(info.attempts, 1);
  EXPECT_EQ(fr_->Stats().expired, 1u);
  EXPECT_FALSE(Fail("http://a.com/x"));  // lease is gone
  EXPECT_EQ(PopOne(), "http://a.com/x");
}

TEST_F(FrontierTest, RecrawlAfterConfirm) {
  Open();
  Add("http://a.com/x", "", Every(10'000));
  ASSERT_EQ(PopOne(), "http://a.com/x");
  EXPECT_TRUE(Confirm("http://a.com/x"));
  UrlInfo info = Info("http://a.com/x");
  EXPECT_EQ(info.state, UrlState::kScheduled);
  EXPECT_EQ(info.due_ms, now_ + 10'000);
  now_ += 10'000;
  EXPECT_EQ(PopOne(), "http://a.com/x");
  EXPECT_EQ(fr_->Stats().recrawled, 1u);
  EXPECT_TRUE(Confirm("http://a.com/x"));  // and again from this confirm
  EXPECT_EQ(Info("http://a.com/x").due_ms, now_ + 10'000);
}

TEST_F(FrontierTest, RecrawlCommandOnDoneUrl) {
  Open();
  Add("http://a.com/x");
  ASSERT_EQ(PopOne(), "http://a.com/x");
  ASSERT_TRUE(Confirm("http://a.com/x"));
  now_ += 5000;
  auto r = fr_->Recrawl("http://a.com/x", 60'000, now_);
  ASSERT_TRUE(r.ok() && *r);
  EXPECT_EQ(Info("http://a.com/x").due_ms, kT0 + 60'000);  // from the CONFIRM
  r = fr_->Recrawl("http://a.com/x", 0, now_);  // clears it
  ASSERT_TRUE(r.ok() && *r);
  EXPECT_EQ(Info("http://a.com/x").state, UrlState::kDone);
  r = fr_->Recrawl("http://a.com/x", 1000, now_);  // moment passed: at once
  ASSERT_TRUE(r.ok() && *r);
  EXPECT_EQ(PopOne(), "http://a.com/x");
  r = fr_->Recrawl("http://nope.com/", 1000, now_);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
}

TEST_F(FrontierTest, PolitenessOneLeaseAndDelayPerSite) {
  opts_.politeness_delay_ms = 1000;
  opts_.site_max_leases = 1;
  Open();
  Add("http://a.com/1");
  Add("http://a.com/2");
  Add("http://b.com/1");
  auto got = Pop(10);
  ASSERT_EQ(got.size(), 2u);  // one per site
  EXPECT_EQ(std::set<std::string>(got.begin(), got.end()),
            (std::set<std::string>{"http://a.com/1", "http://b.com/1"}));
  now_ += 5000;
  EXPECT_EQ(PopOne(), "");  // a.com still holds its lease
  ASSERT_TRUE(Confirm("http://a.com/1"));
  EXPECT_EQ(PopOne(), "");  // and now waits its delay
  now_ += 999;
  EXPECT_EQ(PopOne(), "");
  now_ += 1;
  EXPECT_EQ(PopOne(), "http://a.com/2");
}

TEST_F(FrontierTest, SiteDelayOverridesDefault) {
  opts_.politeness_delay_ms = 0;
  opts_.site_max_leases = 0;
  Open();
  ASSERT_TRUE(fr_->SetSiteDelay("a.com", 2000, now_).ok());
  Add("http://a.com/1");
  Add("http://a.com/2");
  EXPECT_EQ(Pop(10).size(), 1u);
  now_ += 2000;
  EXPECT_EQ(Pop(10).size(), 1u);
  EXPECT_FALSE(fr_->SetSiteDelay("bad site/", 1, now_).ok());
  ASSERT_TRUE(fr_->SetSiteDelay("http://A.com/any", -1, now_).ok());
}

TEST_F(FrontierTest, ManyWaitingSitesDoNotHideAReadyOne) {
  opts_.politeness_delay_ms = 60'000;
  opts_.site_max_leases = 1;
  Open();
  std::vector<std::string> urls;
  for (int i = 0; i < 2000; ++i) {
    urls.push_back("http://s" + std::to_string(i) + ".com/a");
    urls.push_back("http://s" + std::to_string(i) + ".com/b");
  }
  std::vector<std::string_view> views(urls.begin(), urls.end());
  ASSERT_TRUE(fr_->AddMany("", views, now_).ok());
  EXPECT_EQ(Pop(5000).size(), 2000u);  // first URL of each site
  for (int i = 0; i < 2000; ++i) Confirm(urls[2 * i]);
  EXPECT_TRUE(Pop(10).empty());
  Add("http://fresh.com/");
  EXPECT_EQ(PopOne(), "http://fresh.com/");
  EXPECT_EQ(fr_->Stats().sites, 2001u);
}

TEST_F(FrontierTest, AddManyReportsEachUrl) {
  Open();
  Add("http://a.com/");
  auto r = fr_->AddMany("http://a.com/",
                        {"http://a.com/1", "ftp://x/", "http://a.com/1",
                         "http://b.com/"},
                        now_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ(*(*r)[0], AddOutcome::kAdded);
  EXPECT_FALSE((*r)[1].ok());
  EXPECT_EQ(*(*r)[2], AddOutcome::kKnown);
  EXPECT_EQ(*(*r)[3], AddOutcome::kAdded);
  EXPECT_EQ(Info("http://a.com/1").depth, 2);
  EXPECT_EQ(Info("http://b.com/").depth, 1);
}

TEST_F(FrontierTest, ReopenKeepsEverything) {
  opts_.politeness_delay_ms = 0;
  Open();
  Add("http://a.com/q");
  Add("http://b.com/l");
  Add("http://c.com/d", "", Every(100'000));
  ASSERT_TRUE(fr_->SetSiteDelay("d.com", 7000, now_).ok());
  auto popped = Pop(3, 50'000);
  ASSERT_EQ(popped.size(), 3u);
  ASSERT_TRUE(Confirm("http://c.com/d"));
  ASSERT_TRUE(Fail("http://a.com/q"));  // back to the queue
  FrontierStats before = fr_->Stats();
  ASSERT_TRUE(fr_->Close(false).ok());
  Open();
  FrontierStats after = fr_->Stats();
  EXPECT_EQ(after.urls, before.urls);
  EXPECT_EQ(after.queued, before.queued);
  EXPECT_EQ(after.leased, before.leased);
  EXPECT_EQ(after.scheduled, before.scheduled);
  EXPECT_EQ(after.popped, before.popped);
  EXPECT_EQ(after.failed, before.failed);
  EXPECT_EQ(Info("http://b.com/l").state, UrlState::kLeased);
  EXPECT_EQ(Info("http://b.com/l").due_ms, kT0 + 50'000);
  EXPECT_EQ(Info("http://c.com/d").due_ms, kT0 + 100'000);
  EXPECT_EQ(PopOne(), "http://a.com/q");
  now_ += 50'000;
  EXPECT_EQ(PopOne(), "http://b.com/l");  // lease ran out while closed
}

TEST_F(FrontierTest, ReopenWithoutCheckpointRecovers) {
  Open();
  for (int i = 0; i < 100; ++i) Add("http://a.com/" + std::to_string(i));
  ASSERT_TRUE(fr_->FlushLog().ok());
  ASSERT_TRUE(fr_->Close(/*skip_checkpoint=*/true).ok());
  Open();
  EXPECT_EQ(fr_->Stats().urls, 100u);
  EXPECT_EQ(Pop(1000).size(), 100u);
}

// The state counters are not saved with each command: they are the sums
// of the site records, rebuilt at start. After a stop without checkpoint
// (as after kill -9) they must still be exact, and the cumulative ones
// must be as of the last log flush.
TEST_F(FrontierTest, CountersSurviveAStopWithoutCheckpoint) {
  opts_.max_attempts = 1;
  Open();
  for (int i = 0; i < 6; ++i) Add("http://a.com/" + std::to_string(i));
  for (int i = 0; i < 4; ++i) Add("http://b.com/" + std::to_string(i));
  Add("http://c.com/r", "", Every(100'000));
  Add("http://a.com/0");  // a duplicate
  auto popped = Pop(8);
  ASSERT_EQ(popped.size(), 8u);
  ASSERT_TRUE(Confirm(popped[0]));
  ASSERT_TRUE(Confirm(popped[1]));
  ASSERT_TRUE(Fail(popped[2]));  // max_attempts 1: dead
  ASSERT_TRUE(Confirm("http://a.com/5"));  // done while still queued
  FrontierStats before = fr_->Stats();
  ASSERT_TRUE(fr_->FlushLog().ok());
  ASSERT_TRUE(fr_->Close(/*skip_checkpoint=*/true).ok());
  Open();
  FrontierStats after = fr_->Stats();
  EXPECT_EQ(after.urls, 11u);
  EXPECT_EQ(after.sites, 3u);
  EXPECT_EQ(after.leased, 5u);
  EXPECT_EQ(after.dead, 1u);
  EXPECT_EQ(after.done + after.scheduled, 3u);
  EXPECT_EQ(after.queued, 2u);
  for (auto [got, want] :
       {std::pair{after.done, before.done}, {after.scheduled, before.scheduled},
        {after.added, before.added}, {after.duplicates, before.duplicates},
        {after.popped, before.popped}, {after.confirmed, before.confirmed},
        {after.failed, before.failed}}) {
    EXPECT_EQ(got, want);
  }
}

// A directory written by frontierd 0.1 (layout v1) has site records this
// version cannot count from; opening it says so instead of miscounting.
TEST_F(FrontierTest, OldLayoutIsRefusedWithAReason) {
  Open();
  fr_.reset();
  {
    DbEnv env(DB_CXX_NO_EXCEPTIONS);
    ASSERT_EQ(env.open(dir_.c_str(),
                       DB_CREATE | DB_INIT_LOG | DB_INIT_MPOOL | DB_INIT_TXN |
                           DB_RECOVER | DB_PRIVATE,
                       0644),
              0);
    Db meta(&env, DB_CXX_NO_EXCEPTIONS);
    ASSERT_EQ(meta.open(nullptr, "meta.db", nullptr, DB_BTREE,
                        DB_AUTO_COMMIT, 0644),
              0);
    std::string k = "layout", v = "v1 order=bfs politeness-scope=host";
    Dbt key(k.data(), k.size()), val(v.data(), v.size());
    ASSERT_EQ(meta.put(nullptr, &key, &val, DB_AUTO_COMMIT), 0);
    meta.close(0);
    env.txn_checkpoint(0, 0, 0);
    env.close(0);
  }
  auto f = Frontier::Open(opts_);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("older frontierd"), std::string::npos)
      << f.status().ToString();
}

// WriteLog() on the loop thread, SyncLog() on another, while the loop
// goes on committing: only SyncLog() makes the commits durable.
TEST_F(FrontierTest, WriteLogThenSyncLogOnAnotherThread) {
  Open();
  Add("http://a.com/1");
  auto written = fr_->WriteLog();
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(*written, fr_->commit_seq());
  EXPECT_TRUE(fr_->HasUnflushedCommits());  // written, not synced
  Status synced;
  std::thread syncer([&] { synced = fr_->SyncLog(*written); });
  for (int i = 2; i < 50; ++i) Add("http://a.com/" + std::to_string(i));
  syncer.join();
  ASSERT_TRUE(synced.ok()) << synced.ToString();
  EXPECT_TRUE(fr_->HasUnflushedCommits());  // the later adds are not synced
  written = fr_->WriteLog();
  ASSERT_TRUE(written.ok());
  ASSERT_TRUE(fr_->SyncLog(*written).ok());
  EXPECT_FALSE(fr_->HasUnflushedCommits());
  ASSERT_TRUE(fr_->Close(/*skip_checkpoint=*/true).ok());
  Open();
  EXPECT_EQ(fr_->Stats().urls, 49u);
  EXPECT_EQ(fr_->Stats().added, 49u);
}

TEST_F(FrontierTest, LayoutChangeIsRefusedWithAReason) {
  Open();
  Add("http://a.com/");
  fr_.reset();
  opts_.order = QueueOrder::kPriority;
  auto f = Frontier::Open(opts_);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("order"), std::string::npos);
}

TEST_F(FrontierTest, SecondOpenOfOneDirIsRefused) {
  Open();
  auto f = Frontier::Open(opts_);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("in use"), std::string::npos);
}

TEST_F(FrontierTest, NextWakeIsTheEarliestDueThing) {
  opts_.politeness_delay_ms = 3000;
  opts_.site_max_leases = 0;
  Open();
  EXPECT_FALSE(fr_->NextWakeMs().has_value());
  Add("http://a.com/1");
  Add("http://a.com/2");
  ASSERT_EQ(Pop(1, 10'000).size(), 1u);
  auto wake = fr_->NextWakeMs();
  ASSERT_TRUE(wake.has_value());
  EXPECT_EQ(*wake, now_ + 3000);  // a.com's delay before the lease
  EXPECT_FALSE(fr_->HasReady(now_));
  EXPECT_TRUE(fr_->HasReady(now_ + 3000));
}

}  // namespace
}  // namespace frontier
