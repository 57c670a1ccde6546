// The two-halves hot backup (storage/backup_copy.h): BeginBackup() on the
// owning thread, CopyBackup() on another thread while the live frontier
// goes on writing and checkpointing, EndBackup(). The copy opens with the
// normal Frontier::Open and holds every URL committed before BeginBackup.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "storage/backup_copy.h"
#include "storage/frontier.h"

namespace frontier {
namespace {

namespace fs = std::filesystem;
constexpr int64_t kT0 = 1'700'000'000'000;

std::string Url(int i) {
  return "http://site" + std::to_string(i % 13) + ".backup.example/p" +
         std::to_string(i);
}

class BackupCopyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/backup_copy_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    opts_.dir = root_ + "/data";
    opts_.cache_bytes = 8 << 20;
    opts_.politeness_delay_ms = 0;
    opts_.site_max_leases = 0;
    auto f = Frontier::Open(opts_);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    fr_ = std::move(f).value();
  }
  void TearDown() override {
    fr_.reset();
    fs::remove_all(root_);
  }
  std::unique_ptr<Frontier> OpenAt(const std::string& dir) {
    FrontierOptions o = opts_;
    o.dir = dir;
    auto f = Frontier::Open(o);
    EXPECT_TRUE(f.ok()) << f.status().ToString();
    return f.ok() ? std::move(f).value() : nullptr;
  }
  // One transaction per `per_pass` ADDs, as the server's passes.
  void AddRange(int from, int to, int per_pass = 50) {
    for (int i = from; i < to;) {
      fr_->BeginPass();
      for (int k = 0; k < per_pass && i < to; ++k, ++i) {
        auto r = fr_->Add(Url(i), "", {}, kT0);
        ASSERT_TRUE(r.ok()) << r.status().ToString();
      }
      ASSERT_TRUE(fr_->EndPass().ok());
    }
  }
  int CountSeen(Frontier& f, int from, int to) {
    int n = 0;
    for (int i = from; i < to; ++i) {
      auto r = f.Seen(Url(i));
      if (r.ok() && *r) ++n;
    }
    return n;
  }

  std::string root_;
  FrontierOptions opts_;
  std::unique_ptr<Frontier> fr_;
};

TEST_F(BackupCopyTest, CopyOnAnotherThreadWhileWritingOpensWithEverything) {
  constexpr int kBefore = 20'000;
  AddRange(0, kBefore);
  // Not flushed on purpose: BeginBackup's checkpoint covers every commit.
  const FrontierStats before = fr_->Stats();
  const std::string target = root_ + "/backups/b1";
  StatusOr<BackupPlan> plan = fr_->BeginBackup(target);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_TRUE(fs::is_directory(target + ".partial"));
  EXPECT_FALSE(plan->data_files.empty());
  for (const auto& f : plan->data_files) EXPECT_GE(f.page_size, 512u) << f.name;

  // The copy runs on its own thread; the owner goes on writing, flushing,
  // writing behind and checkpointing meanwhile.
  std::atomic<bool> cancel{false};
  Status copied;
  std::atomic<bool> finished{false};
  std::thread copier([&] {
    copied = CopyBackup(*plan, cancel);
    finished = true;
  });
  int next = kBefore;
  for (int round = 0; round < 400 && (!finished || round < 3); ++round) {
    AddRange(next, next + 100);
    next += 100;
    ASSERT_TRUE(fr_->FlushLog().ok());
    ASSERT_TRUE(fr_->WriteBehind(kT0, kT0).ok());
    if (round % 5 == 0) {
      ASSERT_TRUE(fr_->Checkpoint().ok());
    }
  }
  copier.join();
  fr_->EndBackup();
  ASSERT_TRUE(copied.ok()) << copied.ToString();
  EXPECT_FALSE(fs::exists(target + ".partial"));
  EXPECT_TRUE(fs::exists(target + "/urls.db"));

  // The live frontier is unharmed and keeps what was written meanwhile.
  EXPECT_EQ(CountSeen(*fr_, 0, next), next);
  ASSERT_TRUE(fr_->Checkpoint().ok());

  auto copy = OpenAt(target);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(CountSeen(*copy, 0, kBefore), kBefore);
  EXPECT_GE(copy->Stats().urls, before.urls);
  // Whatever landed after BeginBackup is consistent: each URL the copy
  // counts is one it finds.
  EXPECT_EQ(static_cast<int>(copy->Stats().urls), CountSeen(*copy, 0, next));
  auto r = copy->Add("http://only-in-copy.example/", "", {}, kT0);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(copy->Close(false).ok());
}

TEST_F(BackupCopyTest, OneBackupAtATime) {
  AddRange(0, 10);
  StatusOr<BackupPlan> plan = fr_->BeginBackup(root_ + "/b1");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  StatusOr<BackupPlan> second = fr_->BeginBackup(root_ + "/b2");
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(second.status().IsInvalidArgument());
  EXPECT_NE(second.status().message().find("already in progress"),
            std::string::npos)
      << second.status().ToString();
  EXPECT_FALSE(fs::exists(root_ + "/b2.partial"));
  // The synchronous form is refused too while the pin is held.
  EXPECT_TRUE(fr_->Backup(root_ + "/b3").IsInvalidArgument());
  const std::atomic<bool> no{false};
  ASSERT_TRUE(CopyBackup(*plan, no).ok());
  fr_->EndBackup();
  EXPECT_TRUE(fr_->Backup(root_ + "/b2").ok());
  auto copy = OpenAt(root_ + "/b2");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(CountSeen(*copy, 0, 10), 10);
}

TEST_F(BackupCopyTest, CancelledCopyLeavesNothing) {
  AddRange(0, 100);
  const std::string target = root_ + "/b1";
  StatusOr<BackupPlan> plan = fr_->BeginBackup(target);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const std::atomic<bool> cancel{true};
  Status s = CopyBackup(*plan, cancel);
  fr_->EndBackup();
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find("cancelled"), std::string::npos);
  EXPECT_FALSE(fs::exists(target));
  EXPECT_FALSE(fs::exists(target + ".partial"));
  EXPECT_EQ(CountSeen(*fr_, 0, 100), 100);
}

TEST_F(BackupCopyTest, MissingPinnedLogFailsAndLeavesNothing) {
  AddRange(0, 10);
  const std::string target = root_ + "/b1";
  StatusOr<BackupPlan> plan = fr_->BeginBackup(target);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  BackupPlan broken = *plan;
  broken.first_log += 1000;  // a log file that is not there
  const std::atomic<bool> no{false};
  Status s = CopyBackup(broken, no);
  fr_->EndBackup();
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find("missing"), std::string::npos) << s.ToString();
  EXPECT_FALSE(fs::exists(target));
  EXPECT_FALSE(fs::exists(target + ".partial"));
}

}  // namespace
}  // namespace frontier
