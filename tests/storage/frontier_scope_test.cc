// The crawl scope in storage (frontier_scope.cc): ADD and MADD refuse a
// link out of scope with kOutOfScope, store nothing and count the reason;
// SCOPE RECHECK removes queued URLs out of a new scope in slices, and
// resumes after a stop without checkpoint.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "storage/frontier_fixture.h"

namespace frontier {
namespace {

class FrontierScopeTest : public FrontierFixture {
 protected:
  bool Seen(std::string_view url) {
    auto r = fr_->Seen(url);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && *r;
  }
  // Sets the scope in force (as CONFIG SET does).
  void SetScope(const scope::Scope& sc) {
    FrontierOptions o = fr_->options();
    o.scope = sc;
    ASSERT_TRUE(fr_->UpdateOptions(o, now_).ok());
  }
  static scope::Scope Hosts(std::string_view text) {
    scope::Scope sc;
    std::string error;
    EXPECT_TRUE(sc.hosts.AddText(text, &error)) << error;
    return sc;
  }
  // Ticks until the re-check ends (bounded).
  void RunRecheck() {
    for (int i = 0; i < 1000 && fr_->ScopeRecheckProgress().running; ++i) {
      Tick();
    }
    ASSERT_FALSE(fr_->ScopeRecheckProgress().running);
  }
};

TEST_F(FrontierScopeTest, AddOutOfScopeIsRefusedStoresNothingAndCounts) {
  scope::Scope sc = Hosts("a.com");
  std::string error;
  ASSERT_TRUE(sc.deny.AddText(R"(\.jpg$)", &error));
  sc.max_query_params = 1;
  sc.max_path_segments = 3;
  opts_.scope = sc;
  Open();
  EXPECT_EQ(Add("http://www.a.com/x"), AddOutcome::kAdded);
  EXPECT_EQ(Add("http://b.com/x"), AddOutcome::kOutOfScope);
  EXPECT_EQ(Add("http://a.com/x.jpg"), AddOutcome::kOutOfScope);
  EXPECT_EQ(Add("http://a.com/x?a=1&b=2"), AddOutcome::kOutOfScope);
  EXPECT_EQ(Add("http://a.com/1/2/3/4"), AddOutcome::kOutOfScope);
  // A known URL out of scope is refused too: its back-links stay.
  SetScope(Hosts("c.com"));
  EXPECT_EQ(Add("http://www.a.com/x"), AddOutcome::kOutOfScope);
  EXPECT_EQ(Info("http://www.a.com/x").backlinks, 0u);
  EXPECT_FALSE(Seen("http://b.com/x"));
  EXPECT_FALSE(Seen("http://a.com/x.jpg"));
  const FrontierStats s = fr_->Stats();
  EXPECT_EQ(s.urls, 1u);
  EXPECT_EQ(s.added, 1u);
  EXPECT_EQ(s.refused, 0u);
  EXPECT_EQ(s.scope_host, 2u);
  EXPECT_EQ(s.scope_deny, 1u);
  EXPECT_EQ(s.scope_query, 1u);
  EXPECT_EQ(s.scope_path, 1u);
  EXPECT_EQ(s.sites, 1u);  // nothing was stored for b.com
}

TEST_F(FrontierScopeTest, MaddAppliesTheRefRule) {
  scope::Scope sc;
  sc.ref_rule = scope::RefRule::kSameDomain;
  opts_.scope = sc;
  Open();
  std::vector<std::string_view> urls = {"http://a.com/1", "http://www.a.com/2",
                                        "http://b.com/3", "not a url"};
  auto r = fr_->AddMany("http://a.com/", urls, now_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ(*(*r)[0], AddOutcome::kAdded);
  EXPECT_EQ(*(*r)[1], AddOutcome::kAdded);
  EXPECT_EQ(*(*r)[2], AddOutcome::kOutOfScope);
  EXPECT_TRUE((*r)[3].status().IsInvalidArgument());
  EXPECT_EQ(fr_->Stats().scope_ref, 1u);
  // same-site (politeness-scope host): www.a.com is another site.
  sc.ref_rule = scope::RefRule::kSameSite;
  SetScope(sc);
  EXPECT_EQ(Add("http://www.a.com/4", "http://a.com/"), AddOutcome::kOutOfScope);
  EXPECT_EQ(Add("http://a.com/5", "http://a.com/"), AddOutcome::kAdded);
  // Without a ref the ref rule does not apply.
  EXPECT_EQ(Add("http://c.com/6"), AddOutcome::kAdded);
  EXPECT_EQ(fr_->Stats().scope_ref, 2u);
  EXPECT_FALSE(Seen("http://b.com/3"));
}

TEST_F(FrontierScopeTest, RecheckRemovesQueuedUrlsOutOfTheNewScope) {
  Open();
  std::vector<std::string> urls;
  for (int i = 0; i < 600; ++i) {
    urls.push_back("http://" + std::string(i % 2 ? "keep.com" : "drop.com") +
                   "/" + std::to_string(i));
  }
  std::vector<std::string_view> views(urls.begin(), urls.end());
  ASSERT_TRUE(fr_->AddMany("", views, now_).ok());
  // Leased URLs are left alone by the re-check.
  const std::vector<std::string> popped = Pop(2);
  ASSERT_EQ(popped.size(), 2u);
  uint64_t leased_drop = 0;
  for (const std::string& u : popped) leased_drop += u.find("drop") != u.npos;
  const uint64_t removed = 300 - leased_drop;
  SetScope(Hosts("keep.com"));
  ASSERT_TRUE(fr_->StartScopeRecheck(now_).ok());
  EXPECT_TRUE(fr_->ScopeRecheckProgress().running);
  auto one = fr_->Tick(now_);
  ASSERT_TRUE(one.ok());
  EXPECT_TRUE(one->more_due);  // 600 records: more than one slice
  RunRecheck();
  const ScopeRecheck done = fr_->ScopeRecheckProgress();
  EXPECT_EQ(done.examined, 600u);
  EXPECT_EQ(done.removed, removed);
  const FrontierStats s = fr_->Stats();
  EXPECT_EQ(s.urls, 600u - removed);
  EXPECT_EQ(s.queued, 598u - removed);
  EXPECT_EQ(s.leased, 2u);
  EXPECT_EQ(s.scope_removed, removed);
  EXPECT_FALSE(Seen("http://drop.com/0") && Seen("http://drop.com/2"));
  // Only keep.com is handed out from now on.
  for (const std::string& u : Pop(1000)) {
    EXPECT_EQ(u.rfind("http://keep.com/", 0), 0u) << u;
  }
  auto info = fr_->GetSiteInfo("drop.com", now_);
  ASSERT_TRUE(info.ok() && info->has_value());
  EXPECT_EQ((*info)->queued, 0u);
}

// A stop without checkpoint in the middle of the re-check: the slices
// done stay done, their counts with them, and the rest resumes.
TEST_F(FrontierScopeTest, RecheckResumesAfterAStopWithoutCheckpoint) {
  Open();
  std::vector<std::string> urls;
  for (int i = 0; i < 1000; ++i) {
    urls.push_back("http://" + std::string(i % 4 ? "keep.com" : "drop.com") +
                   "/" + std::to_string(i));
  }
  std::vector<std::string_view> views(urls.begin(), urls.end());
  ASSERT_TRUE(fr_->AddMany("", views, now_).ok());
  SetScope(Hosts("keep.com"));
  ASSERT_TRUE(fr_->StartScopeRecheck(now_).ok());
  Tick();
  Tick();
  const ScopeRecheck halfway = fr_->ScopeRecheckProgress();
  ASSERT_TRUE(halfway.running);
  EXPECT_EQ(halfway.examined, 500u);
  ASSERT_TRUE(fr_->Close(/*skip_checkpoint=*/true).ok());

  opts_.scope = Hosts("keep.com");  // the configuration a restart reads
  Open();
  const ScopeRecheck resumed = fr_->ScopeRecheckProgress();
  EXPECT_TRUE(resumed.running);
  EXPECT_EQ(resumed.examined, halfway.examined);
  EXPECT_EQ(resumed.removed, halfway.removed);
  RunRecheck();
  EXPECT_EQ(fr_->ScopeRecheckProgress().examined, 1000u);
  EXPECT_EQ(fr_->ScopeRecheckProgress().removed, 250u);
  const FrontierStats s = fr_->Stats();
  EXPECT_EQ(s.urls, 750u);
  EXPECT_EQ(s.queued, 750u);
  // A second restart: finished, and the last run's counts kept.
  ASSERT_TRUE(fr_->Close(/*skip_checkpoint=*/true).ok());
  Open();
  EXPECT_FALSE(fr_->ScopeRecheckProgress().running);
  EXPECT_EQ(fr_->ScopeRecheckProgress().removed, 250u);
  EXPECT_EQ(fr_->Stats().urls, 750u);
}

}  // namespace
}  // namespace frontier
