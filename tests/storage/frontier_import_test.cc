// Frontier::Import (issue 25 §1): URLs stored in the state exported, with
// their values, counts, queue, timers and excluded index as the verbs keep
// them (and as a reopen rebuilds them); site policy and robots records;
// the merge rule (known URLs and origins kept); every item checked before
// the first write, so a bad one changes nothing, even inside a pass.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "storage/frontier_fixture.h"
#include "storage/import_records.h"

namespace frontier {
namespace {

ImportUrl Url(std::string url, StoredState state) {
  ImportUrl u;
  u.url = std::move(url);
  u.state = state;
  return u;
}

class FrontierImportTest : public FrontierFixture {
 protected:
  std::vector<StatusOr<ImportOutcome>> Import(std::vector<ImportItem> items) {
    ImportBatch batch;
    batch.items = std::move(items);
    auto r = fr_->Import(batch, now_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<StatusOr<ImportOutcome>>{};
  }
};

TEST_F(FrontierImportTest, StoresEveryStateAndSurvivesAReopen) {
  Open();
  ImportUrl queued = Url("http://a.com/q", StoredState::kQueued);
  queued.priority = 7;
  queued.depth = 3;
  queued.backlinks = 4;
  queued.created_ms = kT0 - 1000;
  queued.data = std::string("v\0w", 3);
  ImportUrl done = Url("http://a.com/d", StoredState::kDone);
  done.attempts = 2;
  done.last_fetch_ms = kT0 - 50;
  ImportUrl retry = Url("http://b.com/r", StoredState::kScheduledRetry);
  retry.due_ms = kT0 + 5000;
  ImportUrl dead = Url("http://b.com/x", StoredState::kDead);
  ImportUrl excl = Url("http://b.com/private", StoredState::kExcluded);
  auto out = Import({queued, done, retry, dead, excl});
  ASSERT_EQ(out.size(), 5u);
  for (const auto& o : out) EXPECT_EQ(*o, ImportOutcome::kApplied);

  auto check = [&] {
    FrontierStats s = fr_->Stats();
    EXPECT_EQ(s.urls, 5u);
    EXPECT_EQ(s.queued, 1u);
    EXPECT_EQ(s.done, 1u);
    EXPECT_EQ(s.scheduled, 1u);
    EXPECT_EQ(s.dead, 1u);
    EXPECT_EQ(s.excluded, 1u);
    EXPECT_EQ(s.sites, 2u);
    EXPECT_EQ(s.added, 0u);  // imports are not ADDs
    UrlInfo q = Info("http://a.com/q");
    EXPECT_EQ(q.priority, 7);
    EXPECT_EQ(q.depth, 3);
    EXPECT_EQ(q.backlinks, 4u);
    EXPECT_EQ(q.created_ms, kT0 - 1000);
    EXPECT_EQ(q.data, std::string("v\0w", 3));
    UrlInfo d = Info("http://a.com/d");
    EXPECT_EQ(d.state, UrlState::kDone);
    EXPECT_EQ(d.attempts, 2);
    EXPECT_EQ(d.last_fetch_ms, kT0 - 50);
    EXPECT_EQ(Info("http://b.com/r").due_ms, kT0 + 5000);
    EXPECT_EQ(Info("http://b.com/private").state, UrlState::kExcluded);
  };
  check();
  Open();  // a reopen rebuilds counts and the scheduler from disk
  check();
  EXPECT_EQ(Pop(10), std::vector<std::string>{"http://a.com/q"});
  now_ = kT0 + 5000;
  Tick();  // the imported retry date fires as any other
  EXPECT_EQ(Pop(10), std::vector<std::string>{"http://b.com/r"});
}

TEST_F(FrontierImportTest, BadItemsAreRefusedBeforeAnyWrite) {
  Open();
  ImportUrl no_due = Url("http://a.com/s", StoredState::kScheduledRetry);
  ImportSite other_scope;
  other_scope.name = "www.a.com/";
  ImportRobots bad_origin;
  bad_origin.origin = "http://a.com/path";
  ImportRobots bad_rules;
  bad_rules.origin = "http://a.com";
  bad_rules.rules = "not stored rules";
  auto out = Import({Url("not a url", StoredState::kQueued), no_due,
                     Url("http://a.com/l", StoredState::kLeased), other_scope,
                     bad_origin, bad_rules,
                     Url("http://a.com/ok", StoredState::kQueued)});
  ASSERT_EQ(out.size(), 7u);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_TRUE(out[i].status().IsInvalidArgument()) << i;
  }
  EXPECT_EQ(*out[6], ImportOutcome::kApplied);
  EXPECT_EQ(fr_->Stats().urls, 1u);
  auto robots = fr_->RobotsGet("http://a.com");
  ASSERT_TRUE(robots.ok());
  EXPECT_TRUE(!robots->has_value() || (*robots)->state == "unknown");
}

TEST_F(FrontierImportTest, ABadItemDoesNotDoomThePass) {
  Open();
  fr_->BeginPass();
  EXPECT_EQ(Add("http://a.com/1"), AddOutcome::kAdded);
  auto out = Import({Url("http://", StoredState::kQueued),
                     Url("http://a.com/2", StoredState::kDone)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_FALSE(out[0].ok());
  EXPECT_EQ(Add("http://a.com/3"), AddOutcome::kAdded);
  ASSERT_TRUE(fr_->EndPass().ok());
  Open();
  EXPECT_EQ(fr_->Stats().urls, 3u);
  EXPECT_EQ(Info("http://a.com/2").state, UrlState::kDone);
}

TEST_F(FrontierImportTest, KnownUrlsAndOriginsAreKeptSitesTakeThePolicy) {
  Open();
  EXPECT_EQ(Add("http://a.com/1", "", Prio(9)), AddOutcome::kAdded);
  ASSERT_TRUE(fr_->RobotsSet("http://a.com", 404, "", now_).ok());
  ImportUrl again = Url("http://a.com/1", StoredState::kDone);
  ImportRobots robots;
  robots.origin = "http://a.com";
  robots.state = RobotsState::kUnreachable;
  ImportRobots fetching;
  fetching.origin = "http://b.com";
  fetching.state = RobotsState::kFetching;
  fetching.until_ms = kT0 + 60000;
  ImportSite site;
  site.name = "a.com";
  site.delay_ms = 4000;
  site.block_until_ms = kT0 + 9000;
  site.backoffs = 2;
  site.max_urls = 77;
  auto out = Import({again, robots, fetching, site});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(*out[0], ImportOutcome::kKept);
  EXPECT_EQ(*out[1], ImportOutcome::kKept);
  EXPECT_EQ(*out[2], ImportOutcome::kApplied);
  EXPECT_EQ(*out[3], ImportOutcome::kApplied);
  EXPECT_EQ(Info("http://a.com/1").state, UrlState::kQueued);
  EXPECT_EQ(Info("http://a.com/1").priority, 9);
  auto a = fr_->RobotsGet("http://a.com");
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ((*a)->state, "allow-all");
  auto b = fr_->RobotsGet("http://b.com");
  ASSERT_TRUE(b.ok() && b->has_value());
  EXPECT_EQ((*b)->state, "unknown");  // its fetch was the old server's
  auto info = fr_->GetSiteInfo("a.com", now_);
  ASSERT_TRUE(info.ok() && info->has_value());
  EXPECT_EQ((*info)->delay_ms, 4000);
  EXPECT_EQ((*info)->block_until_ms, kT0 + 9000);
  EXPECT_EQ((*info)->backoffs, 2u);
  EXPECT_EQ((*info)->max_urls, 77u);
  EXPECT_EQ((*info)->queued, 1u);  // counts are the site's own
}

}  // namespace
}  // namespace frontier
