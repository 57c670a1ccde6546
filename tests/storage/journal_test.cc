// The site journal's log record and replay (storage/journal.h) on a bare
// Berkeley DB environment: only the entries of committed transactions
// come back, in log order, erasures included.
#include "storage/journal.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "storage/bdb.h"

namespace frontier {
namespace {

class JournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/journal_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    Open(DB_CREATE);
  }
  void TearDown() override {
    env_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Open(u_int32_t extra) {
    env_.reset(new DbEnv(DB_CXX_NO_EXCEPTIONS));
    ASSERT_EQ(env_->set_app_dispatch(journal::Dispatch), 0);
    ASSERT_EQ(env_->open(dir_.c_str(),
                         extra | DB_INIT_LOG | DB_INIT_MPOOL | DB_INIT_TXN |
                             DB_PRIVATE,
                         0644),
              0);
  }
  // One transaction that journals `payload`; committed if `commit`.
  DB_LSN Journal(const std::string& payload, bool commit) {
    bdb::Txn txn;
    EXPECT_TRUE(txn.Begin(env_.get()).ok());
    DB_LSN lsn{};
    Status s = journal::Put(env_.get(), txn.get(), payload, &lsn);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (commit) {
      EXPECT_TRUE(txn.Commit().ok());
    } else {
      txn.Abort();
    }
    return lsn;
  }
  static std::string Entry(uint64_t site_fp, std::string name) {
    SiteRecord rec;
    rec.name = std::move(name);
    rec.queued = site_fp * 10;
    std::string payload, scratch;
    journal::AppendRecord(&payload, site_fp, rec, &scratch);
    return payload;
  }
  // What Replay() hands over from `from`: "fp:name" or "fp:erased".
  std::vector<std::string> Replayed(const DB_LSN& from) {
    std::vector<std::string> out;
    uint64_t records = 0;
    Status s = journal::Replay(
        env_.get(), from,
        [&](uint64_t site_fp, const SiteRecord* rec) {
          out.push_back(std::to_string(site_fp) + ":" +
                        (rec ? rec->name + "/" + std::to_string(rec->queued)
                             : "erased"));
          return Status::OK();
        },
        [&](const UrlKey& key, std::optional<int64_t> due_ms) {
          out.push_back("lease " + std::to_string(key.host_fp) + "/" +
                        std::to_string(key.url_fp) + ":" +
                        (due_ms ? std::to_string(*due_ms) : "end"));
        },
        &records);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }

  std::string dir_;
  bdb::EnvPtr env_;
};

TEST_F(JournalTest, LsnRoundTrips) {
  DB_LSN lsn{7, 123456};
  DB_LSN back{};
  ASSERT_TRUE(journal::DecodeLsn(journal::EncodeLsn(lsn), &back));
  EXPECT_EQ(back.file, 7u);
  EXPECT_EQ(back.offset, 123456u);
  EXPECT_FALSE(journal::DecodeLsn("short", &back));
  EXPECT_TRUE(journal::Before(DB_LSN{1, 900}, DB_LSN{2, 10}));
  EXPECT_FALSE(journal::Before(DB_LSN{2, 10}, DB_LSN{2, 10}));
}

TEST_F(JournalTest, OnlyCommittedRecordsReplayInLogOrder) {
  const DB_LSN first = Journal(Entry(1, "a"), /*commit=*/true);
  Journal(Entry(2, "aborted"), /*commit=*/false);
  std::string both = Entry(3, "c");
  journal::AppendErased(&both, 1);
  journal::AppendLease(&both, UrlKey{5, 6}, 1'700'000'000'123);
  journal::AppendLeaseEnd(&both, UrlKey{7, 8});
  Journal(both, /*commit=*/true);
  // A transaction whose journal record is in the log but that never ends.
  bdb::Txn open;
  ASSERT_TRUE(open.Begin(env_.get()).ok());
  DB_LSN lsn{};
  ASSERT_TRUE(journal::Put(env_.get(), open.get(), Entry(4, "open"), &lsn).ok());
  ASSERT_EQ(env_->log_flush(nullptr), 0);
  EXPECT_EQ(Replayed(first),
            (std::vector<std::string>{"1:a/10", "3:c/30", "1:erased",
                                      "lease 5/6:1700000000123",
                                      "lease 7/8:end"}));
  open.Abort();
}

TEST_F(JournalTest, RecoveryAcceptsTheRecordsAndReplayFindsThemAfter) {
  const DB_LSN first = Journal(Entry(5, "kept"), /*commit=*/true);
  ASSERT_EQ(env_->log_flush(nullptr), 0);
  env_.reset();
  Open(DB_CREATE | DB_RECOVER);  // recovery meets record type 10019
  EXPECT_EQ(Replayed(first), (std::vector<std::string>{"5:kept/50"}));
}

TEST_F(JournalTest, DispatchRefusesOtherUserRecordTypes) {
  std::string rec(16, '\0');
  const u_int32_t other = DB_user_BEGIN + 1;
  rec.replace(0, 4, reinterpret_cast<const char*>(&other), 4);
  Dbt dbt(rec.data(), static_cast<u_int32_t>(rec.size()));
  DbLsn lsn;
  EXPECT_NE(journal::Dispatch(env_.get(), &dbt, &lsn, DB_TXN_FORWARD_ROLL), 0);
}

}  // namespace
}  // namespace frontier
