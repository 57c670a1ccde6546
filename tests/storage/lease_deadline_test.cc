// A lease's deadline after the lease ends or moves (CONFIRM, FAIL,
// RELEASE, EXTEND): what a user relies on is that an old deadline changes
// nothing when it comes, never ends a later lease of the same URL before
// that lease's own deadline, and that the counts stay exact across a stop
// without checkpoint. Qc may hold the old entry or not (lazy Qc was
// measured and not kept, docs/performance.md): these hold either way.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frontier_fixture.h"
#include "storage/frontier.h"

namespace frontier {
namespace {

using LeaseDeadlineTest = FrontierFixture;

TickResult TickAt(Frontier* fr, int64_t now_ms) {
  auto r = fr->Tick(now_ms);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : TickResult{};
}

TEST_F(LeaseDeadlineTest, DeadlineAfterConfirmChangesNothing) {
  Open();
  Add("http://a.com/done");
  Add("http://a.com/again", "", Every(60'000));
  ASSERT_EQ(Pop(2, 1000).size(), 2u);
  ASSERT_TRUE(Confirm("http://a.com/done"));
  ASSERT_TRUE(Confirm("http://a.com/again"));
  const int64_t confirmed_at = now_;
  now_ += 1000;  // both leases' old deadlines
  TickResult r = TickAt(fr_.get(), now_);
  EXPECT_EQ(r.expired, 0u);
  EXPECT_EQ(r.requeued, 0u);
  EXPECT_EQ(Info("http://a.com/done").state, UrlState::kDone);
  UrlInfo again = Info("http://a.com/again");
  EXPECT_EQ(again.state, UrlState::kScheduled);
  EXPECT_EQ(again.attempts, 0);
  EXPECT_EQ(again.due_ms, confirmed_at + 60'000);
  FrontierStats st = fr_->Stats();
  EXPECT_EQ(st.expired, 0u);
  EXPECT_EQ(st.leased, 0u);
  EXPECT_EQ(st.done, 1u);
  EXPECT_EQ(st.scheduled, 1u);
  // Nothing of the old leases is left to wake for: only the recrawl.
  ASSERT_TRUE(fr_->NextWakeMs().has_value());
  EXPECT_EQ(*fr_->NextWakeMs(), confirmed_at + 60'000);
  EXPECT_TRUE(Pop(10).empty());
  // The recrawl date itself still works.
  now_ = confirmed_at + 60'000;
  EXPECT_EQ(TickAt(fr_.get(), now_).requeued, 1u);
  EXPECT_EQ(PopOne(), "http://a.com/again");
}

// The same URL popped again after FAIL, RELEASE or EXTEND has a later
// deadline than its first lease's entry, which must not expire it.
TEST_F(LeaseDeadlineTest, RepoppedUrlIsNotExpiredByItsOldEntry) {
  Open();
  const std::vector<std::string> urls = {
      "http://a.com/failed", "http://b.com/released", "http://c.com/extended"};
  for (const auto& u : urls) Add(u);
  const int64_t t0 = now_;
  ASSERT_EQ(Pop(3, 1000).size(), 3u);  // old deadlines: t0 + 1000
  now_ = t0 + 500;
  ASSERT_TRUE(Fail(urls[0]));
  auto released = fr_->Release(urls[1], 0, now_);
  ASSERT_TRUE(released.ok() && *released);
  ASSERT_EQ(Pop(2, 1000).size(), 2u);  // new deadlines: t0 + 1500
  auto extended = fr_->Extend(urls[2], 1000, now_);
  ASSERT_TRUE(extended.ok() && *extended);

  now_ = t0 + 1000;
  TickResult r = TickAt(fr_.get(), now_);
  EXPECT_EQ(r.expired, 0u);
  for (const auto& u : urls) {
    UrlInfo info = Info(u);
    EXPECT_EQ(info.state, UrlState::kLeased) << u;
    EXPECT_EQ(info.due_ms, t0 + 1500) << u;
  }
  EXPECT_TRUE(Pop(10).empty()) << "a URL handed out twice under a lease";

  now_ = t0 + 1499;
  EXPECT_EQ(TickAt(fr_.get(), now_).expired, 0u);
  now_ = t0 + 1500;
  EXPECT_EQ(TickAt(fr_.get(), now_).expired, 3u);
  EXPECT_EQ(fr_->Stats().expired, 3u);
  EXPECT_EQ(fr_->Stats().queued, 3u);
}

// Popped again in the very millisecond of its FAIL, with the same lease:
// the new lease has the old one's deadline (the same Qc key) and expires
// once, at that deadline.
TEST_F(LeaseDeadlineTest, RepopWithTheSameDeadlineExpiresOnce) {
  Open();
  Add("http://a.com/x");
  ASSERT_EQ(Pop(1, 1000).size(), 1u);
  ASSERT_TRUE(Fail("http://a.com/x"));
  ASSERT_EQ(Pop(1, 1000).size(), 1u);
  now_ += 1000;
  EXPECT_EQ(TickAt(fr_.get(), now_).expired, 1u);
  UrlInfo info = Info("http://a.com/x");
  EXPECT_EQ(info.state, UrlState::kQueued);
  EXPECT_EQ(info.attempts, 2);  // the FAIL and the expiry
  EXPECT_EQ(TickAt(fr_.get(), now_ + 10'000).expired, 0u);
}

// After a stop without checkpoint (as after kill -9) the counts are exact,
// the live leases still hold and the ended ones stay ended.
TEST_F(LeaseDeadlineTest, CountsExactAfterReopenWithStaleEntries) {
  Open();
  std::vector<std::string> urls;
  for (int i = 0; i < 6; ++i) {
    urls.push_back("http://s" + std::to_string(i) + ".com/");
    Add(urls.back());
  }
  ASSERT_EQ(Pop(6, 1000).size(), 6u);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(Confirm(urls[i]));
  ASSERT_TRUE(Fail(urls[3], 5000));  // a retry date
  ASSERT_TRUE(fr_->FlushLog().ok());
  ASSERT_TRUE(fr_->Close(/*skip_checkpoint=*/true).ok());
  Open();
  FrontierStats st = fr_->Stats();
  EXPECT_EQ(st.done, 3u);
  EXPECT_EQ(st.leased, 2u);
  EXPECT_EQ(st.scheduled, 1u);
  EXPECT_EQ(st.queued, 0u);
  EXPECT_TRUE(Pop(10).empty()) << "a URL handed out twice under a lease";

  now_ += 1000;  // the old deadlines and the two live leases come due
  TickResult r = TickAt(fr_.get(), now_);
  EXPECT_EQ(r.expired, 2u);
  st = fr_->Stats();
  EXPECT_EQ(st.done, 3u);
  EXPECT_EQ(st.leased, 0u);
  EXPECT_EQ(st.queued, 2u);
  EXPECT_EQ(st.scheduled, 1u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Info(urls[i]).state, UrlState::kDone) << urls[i];
  }
}

}  // namespace
}  // namespace frontier
