// The write-behind that keeps checkpoints short: FileSyncer (fdatasync and
// log removal on a thread of its own) and Frontier::WriteBehind().
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "storage/file_syncer.h"
#include "storage/frontier.h"

namespace frontier {
namespace {

constexpr int64_t kT0 = 1'700'000'000'000;

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/write_behind_test_XXXXXX";
    EXPECT_NE(mkdtemp(tmpl), nullptr);
    path_ = tmpl;
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void Touch(const std::string& path) { std::ofstream(path) << "x"; }

TEST(FileSyncerTest, RemovesWhatItIsHandedAndSyncsPeriodically) {
  TempDir dir;
  const std::string a = dir.path() + "/a", b = dir.path() + "/b";
  Touch(a);
  Touch(b);
  std::vector<Status> errors;
  {
    FileSyncer syncer({a, dir.path() + "/not-yet"}, /*period_ms=*/5,
                      [&](const Status& s) { errors.push_back(s); });
    syncer.Remove({b, dir.path() + "/already-gone"});
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while ((std::filesystem::exists(b) || syncer.rounds() < 2) &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_FALSE(std::filesystem::exists(b));
    EXPECT_GE(syncer.rounds(), 2u);
  }
  EXPECT_TRUE(std::filesystem::exists(a));  // synced, never removed
  EXPECT_TRUE(errors.empty());
}

TEST(FileSyncerTest, DestructorRemovesWhatIsPending) {
  TempDir dir;
  const std::string a = dir.path() + "/a";
  Touch(a);
  {
    FileSyncer syncer({}, /*period_ms=*/60'000, [](const Status&) {});
    syncer.Remove({a});
  }
  EXPECT_FALSE(std::filesystem::exists(a));
}

class WriteBehindTest : public ::testing::Test {
 protected:
  void Open() {
    fr_.reset();
    FrontierOptions o;
    o.dir = dir_.path();
    o.cache_bytes = 8 << 20;
    o.politeness_delay_ms = 0;
    o.site_max_leases = 0;
    auto f = Frontier::Open(o);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    fr_ = std::move(f).value();
  }
  // Adds `n` new URLs with long paths (many pages for few commands).
  void AddMany(int n) {
    const std::string pad(300, 'x');
    for (int i = 0; i < n; ++i, ++added_) {
      auto r = fr_->Add("http://s" + std::to_string(added_ % 97) + ".test/" +
                            pad + std::to_string(added_),
                        "", {}, kT0);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
  }
  TempDir dir_;
  std::unique_ptr<Frontier> fr_;
  int added_ = 0;
};

// Slices start once the cache holds more dirty pages than a checkpoint
// writes quickly (a few hundred), and run at most every 25 ms.
TEST_F(WriteBehindTest, WritesDirtyPagesInRateLimitedSlices) {
  Open();
  int64_t now = kT0;
  AddMany(200);
  ASSERT_TRUE(fr_->WriteBehind(now, now).ok());
  EXPECT_EQ(fr_->pages_written_behind(), 0u);  // a few dirty pages: left
  for (int chunk = 0; chunk < 40 && fr_->pages_written_behind() == 0; ++chunk) {
    AddMany(1000);
    now += 1000;
    ASSERT_TRUE(fr_->WriteBehind(now, now).ok());
  }
  const uint64_t first = fr_->pages_written_behind();
  ASSERT_GT(first, 0u);
  AddMany(3000);
  // Far from the next checkpoint nothing is written: it would be again.
  ASSERT_TRUE(fr_->WriteBehind(now + 500, now + 60'000).ok());
  EXPECT_EQ(fr_->pages_written_behind(), first);
  AddMany(3000);
  // Within the slice period nothing more is written, however often asked.
  ASSERT_TRUE(fr_->WriteBehind(now + 1, now + 1).ok());
  EXPECT_EQ(fr_->pages_written_behind(), first);
  ASSERT_TRUE(fr_->WriteBehind(now + 1000, now + 1000).ok());
  EXPECT_GT(fr_->pages_written_behind(), first);
  EXPECT_TRUE(fr_->WriteStatus().ok());
}

// Pages written behind are not a checkpoint: a stop without one (as after
// kill -9) still recovers every commit from the log.
TEST_F(WriteBehindTest, StopWithoutCheckpointAfterWriteBehindRecovers) {
  Open();
  for (int chunk = 0; chunk < 40 && fr_->pages_written_behind() == 0; ++chunk) {
    AddMany(1000);
    ASSERT_TRUE(fr_->WriteBehind(kT0 + 1000 * chunk, kT0 + 1000 * chunk).ok());
  }
  ASSERT_GT(fr_->pages_written_behind(), 0u);
  const uint64_t urls = fr_->Stats().urls;
  for (int i = 1500; i < 3000; ++i) {
    ASSERT_TRUE(
        fr_->Add("http://late.test/" + std::to_string(i), "", {}, kT0).ok());
  }
  ASSERT_TRUE(fr_->FlushLog().ok());
  ASSERT_TRUE(fr_->Close(/*skip_checkpoint=*/true).ok());
  Open();
  EXPECT_EQ(fr_->Stats().urls, urls + 1500);
  auto seen = fr_->Seen("http://late.test/2999");
  ASSERT_TRUE(seen.ok());
  EXPECT_TRUE(*seen);
}

}  // namespace
}  // namespace frontier
