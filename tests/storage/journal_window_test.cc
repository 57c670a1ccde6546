// The site journal before a checkpoint (storage/frontier_writeback.cc,
// docs/design.md "The site journal"): in the write-behind window the
// journal's slices drain what is pending, a bounded slice at a time, so
// that the checkpoint's own write-back, one transaction on the loop,
// finds almost nothing.
#include <gtest/gtest.h>

#include <string>

#include "storage/frontier.h"
#include "storage/frontier_impl.h"
#include "tests/storage/frontier_fixture.h"

namespace frontier {
namespace {

constexpr int kSites = 60'000;  // under the 64k bound: all stay pending
constexpr size_t kSliceMax = 4096;
constexpr int64_t kWindowMs = 10'000;
constexpr int64_t kPassMs = 100;

class JournalWindowTest : public FrontierFixture {
 protected:
  FrontierImpl& Impl() { return static_cast<FrontierImpl&>(*fr_); }

  void AddSites() {
    for (int i = 0; i < kSites; i += 1000) {
      fr_->BeginPass();
      for (int j = i; j < i + 1000; ++j) {
        auto r = fr_->Add("http://w" + std::to_string(j) + ".test/a", "", {},
                          now_);
        ASSERT_TRUE(r.ok()) << r.status().ToString();
      }
      ASSERT_TRUE(fr_->EndPass().ok());
    }
    ASSERT_TRUE(fr_->FlushLog().ok());
    ASSERT_EQ(Impl().PendingSitesForTesting(), static_cast<size_t>(kSites));
  }
};

TEST_F(JournalWindowTest, TheWindowDrainsThePendingSitesInBoundedSlices) {
  Open();
  AddSites();
  if (HasFatalFailure()) return;
  // The server calls WriteBehind after each pass; here every 100 ms from
  // the start of the window to the checkpoint. A slice a second (outside
  // the window) would leave about 19k of the 60k pending.
  const int64_t checkpoint_ms = now_ + kWindowMs;
  size_t before = Impl().PendingSitesForTesting();
  for (; now_ < checkpoint_ms; now_ += kPassMs) {
    ASSERT_TRUE(fr_->WriteBehind(now_, checkpoint_ms).ok());
    const size_t after = Impl().PendingSitesForTesting();
    EXPECT_LE(before - after, kSliceMax) << "a slice too large for the loop";
    before = after;
  }
  EXPECT_EQ(Impl().PendingSitesForTesting(), 0u);
  // Written back, not lost: a crash now replays nothing and loses nothing.
  ASSERT_TRUE(fr_->Close(/*skip_checkpoint=*/true).ok());
  Open();
  EXPECT_EQ(fr_->Stats().sites, static_cast<uint64_t>(kSites));
  EXPECT_EQ(fr_->Stats().queued, static_cast<uint64_t>(kSites));
}

TEST_F(JournalWindowTest, OutsideTheWindowASliceASecond) {
  Open();
  AddSites();
  if (HasFatalFailure()) return;
  // An hour before the checkpoint: one slice of 4,096 however often the
  // server calls, then none for a second.
  const int64_t checkpoint_ms = now_ + 3'600'000;
  for (int i = 0; i < 9; ++i, now_ += kPassMs) {
    ASSERT_TRUE(fr_->WriteBehind(now_, checkpoint_ms).ok());
  }
  EXPECT_EQ(Impl().PendingSitesForTesting(), kSites - kSliceMax);
}

}  // namespace
}  // namespace frontier
