// One transaction per pass (Frontier::BeginPass/EndPass; docs/design.md,
// "One transaction per pass"): the verbs of a pass commit together, see
// each other's writes, and a storage error undoes all of them, in memory
// too; a crash before EndPass keeps none of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "storage/frontier.h"
#include "storage/frontier_impl.h"
#include "tests/storage/frontier_fixture.h"

namespace frontier {
namespace {

class FrontierPassTest : public FrontierFixture {
 protected:
  FrontierImpl& Impl() { return static_cast<FrontierImpl&>(*fr_); }
  bool Known(std::string_view url) {
    auto r = fr_->Seen(url);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && *r;
  }
  // A crash: the environment goes without a checkpoint or a flush of its
  // own; what reached the log buffer may or may not be on disk, so only
  // what was flushed counts.
  void Crash() {
    ASSERT_TRUE(fr_->Close(/*skip_checkpoint=*/true).ok());
    Open();
  }
};

TEST_F(FrontierPassTest, VerbsOfAPassCommitAsOne) {
  Open();
  const uint64_t before = fr_->commit_seq();
  fr_->BeginPass();
  Add("http://a.test/1");
  Add("http://a.test/2");
  Add("http://b.test/1");
  ASSERT_EQ(Pop(1, 60'000).size(), 1u);
  Add("http://b.test/2");
  std::vector<std::string> popped = Pop(10, 60'000);
  ASSERT_EQ(popped.size(), 3u);
  EXPECT_TRUE(Confirm("http://a.test/1"));
  // Reads in the pass see its writes.
  EXPECT_TRUE(Known("http://b.test/2"));
  EXPECT_EQ(Info("http://a.test/1").state, UrlState::kDone);
  EXPECT_EQ(Info("http://b.test/1").state, UrlState::kLeased);
  auto page = fr_->ListSites(SiteFilter::kAll, 0, 10, now_);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->sites.size(), 2u);
  EXPECT_EQ(fr_->commit_seq(), before) << "nothing commits before EndPass";
  ASSERT_TRUE(fr_->EndPass().ok());
  EXPECT_EQ(fr_->commit_seq(), before + 1) << "one commit for the pass";
  ASSERT_TRUE(fr_->FlushLog().ok());

  Crash();
  EXPECT_TRUE(Known("http://b.test/2"));
  EXPECT_EQ(Info("http://a.test/1").state, UrlState::kDone);
  EXPECT_EQ(Info("http://b.test/1").state, UrlState::kLeased);
  const FrontierStats st = fr_->Stats();
  EXPECT_EQ(st.urls, 4u);
  EXPECT_EQ(st.done, 1u);
  EXPECT_EQ(st.leased, 3u);
  EXPECT_EQ(st.queued, 0u);
}

TEST_F(FrontierPassTest, APassNotEndedIsNotDurable) {
  Open();
  Add("http://a.test/kept");
  ASSERT_TRUE(fr_->FlushLog().ok());
  fr_->BeginPass();
  Add("http://a.test/lost");
  // The crash comes before EndPass: the pass never committed. A panic
  // stops every write, and RetryWrites reopens the environment with
  // recovery, as a restart would.
  ASSERT_TRUE(Impl().PanicForTesting().ok());
  ASSERT_TRUE(fr_->RetryWrites().ok());
  EXPECT_TRUE(Known("http://a.test/kept"));
  EXPECT_FALSE(Known("http://a.test/lost"));
  EXPECT_EQ(fr_->Stats().urls, 1u);
}

TEST_F(FrontierPassTest, AStorageErrorUndoesTheWholePass) {
  Open();
  Add("http://a.test/1");
  Add("http://a.test/2");
  ASSERT_TRUE(fr_->FlushLog().ok());
  const FrontierStats before = fr_->Stats();

  fr_->BeginPass();
  Add("http://c.test/new");  // succeeds, then the pass is doomed
  const std::vector<std::string> one = Pop(1, 60'000);
  ASSERT_EQ(one.size(), 1u);
  ASSERT_TRUE(Impl().PanicForTesting().ok());
  auto failed = fr_->Add("http://d.test/x", "", {}, now_);
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(failed.status().IsIOError()) << failed.status().ToString();
  // Later verbs of the doomed pass get the same error without running.
  auto later = fr_->Confirm(one[0], {}, now_);
  ASSERT_FALSE(later.ok());
  EXPECT_EQ(later.status().ToString(), failed.status().ToString());
  Status ended = fr_->EndPass();
  EXPECT_FALSE(ended.ok());
  EXPECT_FALSE(fr_->WriteStatus().ok());

  ASSERT_TRUE(fr_->RetryWrites().ok());
  // Nothing of the pass happened: not the ADD before the failure, not the
  // POP; the counters and the scheduler agree.
  EXPECT_FALSE(Known("http://c.test/new"));
  EXPECT_FALSE(Known("http://d.test/x"));
  EXPECT_EQ(Info(one[0]).state, UrlState::kQueued);
  const FrontierStats after = fr_->Stats();
  EXPECT_EQ(after.urls, before.urls);
  EXPECT_EQ(after.queued, before.queued);
  EXPECT_EQ(after.leased, 0u);
  std::vector<std::string> all = Pop(10, 60'000);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<std::string>{"http://a.test/1",
                                           "http://a.test/2"}));
}

// A verb's own error (bad input) is found before it writes: it changes
// nothing and the pass goes on.
TEST_F(FrontierPassTest, BadInputDoesNotDoomThePass) {
  Open();
  fr_->BeginPass();
  Add("http://a.test/1");
  auto bad = fr_->Add("ftp://a.test/", "", {}, now_);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  auto bad_lease = fr_->Extend("http://a.test/1", 0, now_);
  EXPECT_FALSE(bad_lease.ok());
  Add("http://a.test/2");
  ASSERT_TRUE(fr_->EndPass().ok());
  EXPECT_TRUE(Known("http://a.test/1"));
  EXPECT_TRUE(Known("http://a.test/2"));
}

// Operations that need no open transaction end the pass first: a flush
// makes the pass's verbs durable, and the pass goes on in a new one.
TEST_F(FrontierPassTest, FlushEndsAnOpenPass) {
  Open();
  fr_->BeginPass();
  Add("http://a.test/1");
  ASSERT_TRUE(fr_->FlushLog().ok());
  Add("http://a.test/2");
  ASSERT_TRUE(fr_->EndPass().ok());
  ASSERT_TRUE(fr_->FlushLog().ok());
  Crash();
  EXPECT_TRUE(Known("http://a.test/1"));
  EXPECT_TRUE(Known("http://a.test/2"));
}

}  // namespace
}  // namespace frontier
