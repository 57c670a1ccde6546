// A transaction begun with bdb::Txn::kFavoured (a pass's, with replication:
// FrontierImpl::BeginWrite) is never the one Berkeley DB's deadlock detector
// aborts when it deadlocks with a locker of default priority, whichever of
// the two closes the cycle (issue 20: a master's pass aborted by
// DB_LOCK_DEADLOCK while a site joined answered its clients with the error).
// Without the priority the detector picks either, and this fails.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <string>
#include <thread>

#include "storage/bdb.h"

namespace frontier::bdb {
namespace {

class BdbDeadlockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/bdb_deadlock_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    env_.reset(new DbEnv(DB_CXX_NO_EXCEPTIONS));
    // As replication mode opens it (storage/replicator.cc): locking, the
    // detector run at every blocked request, free-threaded handles.
    ASSERT_EQ(env_->set_lk_detect(DB_LOCK_DEFAULT), 0);
    ASSERT_EQ(env_->open(dir_.c_str(),
                         DB_CREATE | DB_INIT_LOCK | DB_INIT_LOG |
                             DB_INIT_MPOOL | DB_INIT_TXN | DB_THREAD |
                             DB_PRIVATE,
                         0),
              0);
    ASSERT_TRUE(a_.Open(env_.get(), "a.db", 0).ok());
    ASSERT_TRUE(b_.Open(env_.get(), "b.db", 0).ok());
  }

  void TearDown() override {
    (void)a_.Close();
    (void)b_.Close();
    env_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::string dir_;
  EnvPtr env_;
  Database a_, b_;
};

TEST_F(BdbDeadlockTest, TheFavouredTransactionSurvivesEveryDeadlock) {
  // Each round: the favoured transaction writes a, the other b; then each
  // writes the other's database, a cycle. Odd rounds the favoured one
  // blocks first, even rounds the other: the second request closes the
  // cycle and runs the detector.
  constexpr int kRounds = 12;
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string key = "k" + std::to_string(round);
    Txn favoured, other;
    // Which one is older alternates every two rounds (the detector's own
    // choice, without priorities, depends on the lockers' order).
    if (round / 2 % 2 == 0) {
      ASSERT_TRUE(favoured.Begin(env_.get(), Txn::kFavoured).ok());
      ASSERT_TRUE(other.Begin(env_.get()).ok());
    } else {
      ASSERT_TRUE(other.Begin(env_.get()).ok());
      ASSERT_TRUE(favoured.Begin(env_.get(), Txn::kFavoured).ok());
    }
    ASSERT_TRUE(a_.Put(favoured.get(), key, "f").ok());
    ASSERT_TRUE(b_.Put(other.get(), key, "o").ok());
    const bool favoured_first = round % 2 == 1;
    // As a client of the library does: a write that fails aborts its
    // transaction, which frees its locks and ends the other's wait.
    auto write_or_abort = [&](Database* db, Txn* txn, const char* value) {
      Status s = db->Put(txn->get(), key, value);
      if (!s.ok()) txn->Abort();
      return s;
    };
    Database* favoured_db = &b_;
    Database* other_db = &a_;
    std::future<Status> first =
        favoured_first
            ? std::async(std::launch::async, write_or_abort, favoured_db,
                         &favoured, "f")
            : std::async(std::launch::async, write_or_abort, other_db,
                         &other, "o");
    // Long enough for the first to block on its lock (if it has not by
    // then, the second blocks first: a round like the next one).
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    Status second = favoured_first
                        ? write_or_abort(other_db, &other, "o")
                        : write_or_abort(favoured_db, &favoured, "f");
    ASSERT_EQ(first.wait_for(std::chrono::seconds(10)),
              std::future_status::ready);
    Status firsts = first.get();
    const Status& won = favoured_first ? firsts : second;
    const Status& lost = favoured_first ? second : firsts;
    EXPECT_TRUE(won.ok()) << won.ToString();
    EXPECT_EQ(lost.code(), Status::Code::kBusy) << lost.ToString();
    EXPECT_NE(lost.ToString().find("DB_LOCK_DEADLOCK"), std::string::npos);
    other.Abort();
    if (!won.ok()) continue;
    EXPECT_TRUE(favoured.Commit().ok());
  }
}

}  // namespace
}  // namespace frontier::bdb
