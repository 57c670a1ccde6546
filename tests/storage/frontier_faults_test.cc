// Storage-layer fault handling: a write failure is recorded in
// WriteStatus(), RetryWrites() brings writes back (reopening a panicked
// environment with recovery), and Backup() makes a copy that opens as a
// frontier of its own with everything committed before it, also when its
// copy runs on another thread while the frontier goes on writing.
#include <db_cxx.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "storage/backup_copy.h"
#include "storage/frontier.h"
#include "storage/frontier_impl.h"

namespace frontier {
namespace {

constexpr int64_t kT0 = 1'700'000'000'000;

std::string Url(int i) {
  return "http://site" + std::to_string(i % 7) + ".example/p" +
         std::to_string(i);
}

class FrontierFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/frontier_faults_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    opts_.dir = root_ + "/data";
    opts_.cache_bytes = 8 << 20;
    opts_.politeness_delay_ms = 0;
    opts_.site_max_leases = 0;
  }
  void TearDown() override {
    fr_.reset();
    std::filesystem::remove_all(root_);
  }
  std::unique_ptr<Frontier> OpenAt(const std::string& dir) {
    FrontierOptions o = opts_;
    o.dir = dir;
    auto f = Frontier::Open(o);
    EXPECT_TRUE(f.ok()) << f.status().ToString();
    return f.ok() ? std::move(f).value() : nullptr;
  }
  void Open() {
    fr_.reset();
    fr_ = OpenAt(opts_.dir);
    ASSERT_NE(fr_, nullptr);
  }
  FrontierImpl& Impl() { return static_cast<FrontierImpl&>(*fr_); }
  void AddRange(Frontier& f, int from, int to) {
    for (int i = from; i < to; ++i) {
      auto r = f.Add(Url(i), "", {}, kT0);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ASSERT_EQ(*r, AddOutcome::kAdded) << Url(i);
    }
  }
  // A backup's copy is a frontier of its own: it takes writes and closes.
  void ExpectFrontierOfItsOwn(Frontier& copy) {
    auto r = copy.Add("http://only-in-copy.example/", "", {}, kT0);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(copy.Close(false).ok());
  }
  // Runs `plan` (altered by the test, perhaps) to its end, then unpins:
  // what the copy returned.
  Status CopyAndEnd(const BackupPlan& plan, bool cancelled = false) {
    const std::atomic<bool> cancel{cancelled};
    Status s = CopyBackup(plan, cancel);
    fr_->EndBackup();
    return s;
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

TEST_F(FrontierFaultsTest, WriteStatusIsOkWhileWritesWork) {
  Open();
  AddRange(*fr_, 0, 10);
  EXPECT_TRUE(fr_->FlushLog().ok());
  EXPECT_TRUE(fr_->WriteStatus().ok());
  // Retrying when nothing failed is harmless.
  EXPECT_TRUE(fr_->RetryWrites().ok());
  EXPECT_TRUE(fr_->WriteStatus().ok());
}

TEST_F(FrontierFaultsTest, PanickedEnvironmentIsReopenedWithRecovery) {
  Open();
  AddRange(*fr_, 0, 100);
  ASSERT_TRUE(fr_->FlushLog().ok());  // durable: must survive the reopen
  auto popped = fr_->Pop(5, 60'000, kT0);
  ASSERT_TRUE(popped.ok());
  ASSERT_EQ(popped->size(), 5u);
  ASSERT_TRUE(fr_->Confirm((*popped)[0], {}, kT0).ok());
  ASSERT_TRUE(fr_->FlushLog().ok());
  const FrontierStats before = fr_->Stats();

  ASSERT_TRUE(Impl().PanicForTesting().ok());
  auto add = fr_->Add("http://new.example/", "", {}, kT0);
  ASSERT_FALSE(add.ok());
  EXPECT_TRUE(add.status().IsIOError()) << add.status().ToString();
  Status ws = fr_->WriteStatus();
  ASSERT_FALSE(ws.ok());
  EXPECT_NE(ws.message().find("recovery"), std::string::npos) << ws.ToString();
  // Stats keep answering from memory; the failed ADD changed nothing.
  EXPECT_EQ(fr_->Stats().urls, before.urls);

  ASSERT_TRUE(fr_->RetryWrites().ok());
  EXPECT_TRUE(fr_->WriteStatus().ok());
  EXPECT_EQ(CountSeen(*fr_, 0, 100), 100);
  const FrontierStats after = fr_->Stats();
  EXPECT_EQ(after.urls, before.urls);
  EXPECT_EQ(after.leased, before.leased);
  EXPECT_EQ(after.done, before.done);
  EXPECT_EQ(after.queued, before.queued);
  auto info = fr_->Info((*popped)[1]);
  ASSERT_TRUE(info.ok() && info->has_value());
  EXPECT_EQ((*info)->state, UrlState::kLeased);
  // Writes and the scheduler work again.
  add = fr_->Add("http://new.example/", "", {}, kT0);
  ASSERT_TRUE(add.ok()) << add.status().ToString();
  EXPECT_EQ(*add, AddOutcome::kAdded);
  auto rest = fr_->Pop(1000, 60'000, kT0);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(rest->size(), 96u);
  EXPECT_TRUE(fr_->Close(false).ok());
}

TEST_F(FrontierFaultsTest, BackupOpensAsAFrontierWithEverything) {
  Open();
  AddRange(*fr_, 0, 500);
  auto popped = fr_->Pop(10, 3'600'000, kT0);
  ASSERT_TRUE(popped.ok());
  ASSERT_TRUE(fr_->Confirm((*popped)[0], {}, kT0).ok());
  // Not flushed on purpose: the backup's checkpoint covers every commit.
  const FrontierStats before = fr_->Stats();
  const std::string target = root_ + "/backups/b1";
  ASSERT_TRUE(fr_->Backup(target).ok());
  EXPECT_FALSE(std::filesystem::exists(target + ".partial"));
  EXPECT_FALSE(std::filesystem::exists(target + "/frontierd.lock"));
  AddRange(*fr_, 500, 510);  // after the backup: not in it

  auto copy = OpenAt(target);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(CountSeen(*copy, 0, 500), 500);
  EXPECT_EQ(CountSeen(*copy, 500, 510), 0);
  EXPECT_EQ(copy->Stats().urls, before.urls);
  EXPECT_EQ(copy->Stats().leased, before.leased);
  EXPECT_EQ(copy->Stats().done, before.done);
  auto info = copy->Info((*popped)[0]);
  ASSERT_TRUE(info.ok() && info->has_value());
  EXPECT_EQ((*info)->state, UrlState::kDone);
  ExpectFrontierOfItsOwn(*copy);
}

TEST_F(FrontierFaultsTest, BackupRefusesBadTargets) {
  Open();
  AddRange(*fr_, 0, 3);
  auto refused = [&](const std::string& target) {
    Status s = fr_->Backup(target);
    EXPECT_TRUE(s.IsInvalidArgument()) << target << ": " << s.ToString();
    return s.message();
  };
  EXPECT_NE(refused("relative/dir").find("absolute"), std::string::npos);
  refused("");
  refused(opts_.dir);
  refused(opts_.dir + "/inside");
  refused(root_);  // contains the data directory
  std::filesystem::create_directories(root_ + "/full");
  std::ofstream(root_ + "/full/file") << "x";
  EXPECT_NE(refused(root_ + "/full").find("not an empty directory"),
            std::string::npos);
  // An empty directory is fine, and so is a second backup elsewhere.
  std::filesystem::create_directories(root_ + "/empty");
  EXPECT_TRUE(fr_->Backup(root_ + "/empty").ok());
  EXPECT_TRUE(fr_->Backup(root_ + "/empty2/").ok());
  EXPECT_TRUE(fr_->WriteStatus().ok());
}

// The two halves of a backup (storage/backup_copy.h): BeginBackup() on
// the owning thread, CopyBackup() on another one while the live frontier
// goes on writing and checkpointing, EndBackup(). The copy opens with the
// normal Open() and holds every URL committed before BeginBackup().
TEST_F(FrontierFaultsTest, CopyOnAnotherThreadWhileWritingOpensWithEverything) {
  Open();
  constexpr int kBefore = 20'000;
  AddRange(*fr_, 0, kBefore);
  // Not flushed on purpose: BeginBackup's checkpoint covers every commit.
  const FrontierStats before = fr_->Stats();
  const std::string target = root_ + "/backups/b1";
  StatusOr<BackupPlan> plan = fr_->BeginBackup(target);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_TRUE(std::filesystem::is_directory(target + ".partial"));
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
    AddRange(*fr_, next, next + 100);
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
  EXPECT_FALSE(std::filesystem::exists(target + ".partial"));
  EXPECT_TRUE(std::filesystem::exists(target + "/urls.db"));

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
  ExpectFrontierOfItsOwn(*copy);
}

TEST_F(FrontierFaultsTest, OneBackupAtATime) {
  Open();
  AddRange(*fr_, 0, 10);
  StatusOr<BackupPlan> plan = fr_->BeginBackup(root_ + "/b1");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  StatusOr<BackupPlan> second = fr_->BeginBackup(root_ + "/b2");
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(second.status().IsInvalidArgument());
  EXPECT_NE(second.status().message().find("already in progress"),
            std::string::npos)
      << second.status().ToString();
  EXPECT_FALSE(std::filesystem::exists(root_ + "/b2.partial"));
  // The synchronous form is refused too while the pin is held.
  EXPECT_TRUE(fr_->Backup(root_ + "/b3").IsInvalidArgument());
  ASSERT_TRUE(CopyAndEnd(*plan).ok());
  EXPECT_TRUE(fr_->Backup(root_ + "/b2").ok());
  auto copy = OpenAt(root_ + "/b2");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(CountSeen(*copy, 0, 10), 10);
}

// A copy cancelled (the server stopping) or failing (a pinned log file
// gone) removes what it built and leaves the target absent.
TEST_F(FrontierFaultsTest, FailedOrCancelledCopyLeavesNothing) {
  Open();
  AddRange(*fr_, 0, 100);
  struct Case {
    const char* why;  // in the error message
    bool cancelled;
    uint32_t log_shift;  // 1000: a log file that is not there
  };
  for (const Case& c : {Case{"cancelled", true, 0},
                        Case{"missing", false, 1000}}) {
    const std::string target = root_ + "/b-" + c.why;
    StatusOr<BackupPlan> plan = fr_->BeginBackup(target);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    BackupPlan run = *plan;
    run.first_log += c.log_shift;
    Status s = CopyAndEnd(run, c.cancelled);
    EXPECT_TRUE(s.IsIOError()) << c.why << ": " << s.ToString();
    EXPECT_NE(s.message().find(c.why), std::string::npos) << s.ToString();
    EXPECT_FALSE(std::filesystem::exists(target));
    EXPECT_FALSE(std::filesystem::exists(target + ".partial"));
  }
  EXPECT_EQ(CountSeen(*fr_, 0, 100), 100);
}

// Every Berkeley DB file of the directory is copied, not only the ones
// this frontier has open (another crawl's, say), each in its own page
// size; other files (the lock file, a note) are not.
TEST_F(FrontierFaultsTest, BackupCopiesEveryDatabaseFileOfTheDirectory) {
  Open();
  AddRange(*fr_, 0, 10);
  {
    Db other(nullptr, DB_CXX_NO_EXCEPTIONS);
    ASSERT_EQ(other.set_pagesize(16384), 0);
    ASSERT_EQ(other.open(nullptr, (opts_.dir + "/other.db").c_str(), nullptr,
                         DB_BTREE, DB_CREATE, 0644),
              0);
    Dbt key(const_cast<char*>("k"), 1), value(const_cast<char*>("v"), 1);
    ASSERT_EQ(other.put(nullptr, &key, &value, 0), 0);
    ASSERT_EQ(other.close(0), 0);
  }
  std::ofstream(opts_.dir + "/notes.txt") << "not a database";
  StatusOr<BackupPlan> plan = fr_->BeginBackup(root_ + "/b1");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  std::map<std::string, uint32_t> sizes;
  for (const auto& f : plan->data_files) sizes[f.name] = f.page_size;
  EXPECT_EQ(sizes["urls.db"], 8192u);
  EXPECT_EQ(sizes["other.db"], 16384u);
  EXPECT_EQ(sizes.count("notes.txt"), 0u);
  EXPECT_EQ(sizes.count("frontierd.lock"), 0u);
  ASSERT_TRUE(CopyAndEnd(*plan).ok());
  EXPECT_FALSE(std::filesystem::exists(root_ + "/b1/notes.txt"));
  Db copied(nullptr, DB_CXX_NO_EXCEPTIONS);
  ASSERT_EQ(copied.open(nullptr, (root_ + "/b1/other.db").c_str(), nullptr,
                        DB_BTREE, DB_RDONLY, 0),
            0);
  Dbt key(const_cast<char*>("k"), 1), value;
  EXPECT_EQ(copied.get(nullptr, &key, &value, 0), 0);
  EXPECT_EQ(std::string(static_cast<char*>(value.get_data()), value.get_size()),
            "v");
  EXPECT_EQ(copied.close(0), 0);
  auto copy = OpenAt(root_ + "/b1");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(CountSeen(*copy, 0, 10), 10);
}

}  // namespace
}  // namespace frontier
