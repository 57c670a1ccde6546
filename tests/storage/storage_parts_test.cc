// The tables FrontierImpl composes (docs/design.md, "Storage's parts"),
// each against its header's contract, in a Berkeley DB environment of
// their own: SiteTable's dirty set and cache, SiteQueues' head
// bookkeeping, TimerTable's earliest-due bound, UrlTable's insert and
// rewrite, SiteTombstones' restart.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "storage/bdb.h"
#include "storage/frontier_fixture.h"
#include "storage/records.h"
#include "storage/site_queues.h"
#include "storage/site_scheduler.h"
#include "storage/site_table.h"
#include "storage/site_tombstones.h"
#include "storage/timer_table.h"
#include "storage/url_table.h"

namespace frontier {
namespace {

// FrontierFixture's temporary directory, holding a bare environment
// instead of a Frontier.
class StoragePartsTest : public FrontierFixture {
 protected:
  void SetUp() override {
    FrontierFixture::SetUp();
    env_.reset(new DbEnv(DB_CXX_NO_EXCEPTIONS));
    ASSERT_EQ(env_->open(dir_.c_str(),
                         DB_CREATE | DB_PRIVATE | DB_INIT_TXN | DB_INIT_LOG |
                             DB_INIT_MPOOL,
                         0),
              0);
  }
  void TearDown() override {
    env_.reset();  // closed before the directory goes
    FrontierFixture::TearDown();
  }

  bdb::EnvPtr env_;
};

QueuePos Pos(uint16_t major, uint64_t url_fp) {
  QueuePos p;
  p.major = major;
  p.url.host_fp = 1;
  p.url.url_fp = url_fp;
  return p;
}

TEST_F(StoragePartsTest, SiteTableBuffersUntilWriteDirtyAndCachesOnlyWrites) {
  SiteTable sites;
  ASSERT_TRUE(sites.db().Open(env_.get(), "sites.db", 0).ok());
  SiteRecord rec;
  rec.name = "example.com";
  rec.urls = 3;
  rec.queued = 2;
  sites.Store(7, rec);
  EXPECT_TRUE(sites.IsDirty(7));
  SiteRecord seen;
  ASSERT_TRUE(sites.Load(nullptr, 7, &seen).ok());  // from the dirty set
  EXPECT_EQ(seen.urls, 3u);
  std::string bytes;
  EXPECT_TRUE(sites.db().Get(nullptr, EncodeSiteKey(7), &bytes).IsNotFound());

  bdb::Txn txn;
  ASSERT_TRUE(txn.Begin(env_.get()).ok());
  sites.Bind(txn.get());
  int completed = 0;
  Status s = sites.WriteDirty(txn.get(), [&](uint64_t fp, SiteRecord* r) {
    EXPECT_EQ(fp, 7u);
    ++completed;
    r->head = Pos(1, 42);  // what the caller derives at commit
    return Status::OK();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(sites.CloseCursor().ok());
  ASSERT_TRUE(txn.Commit().ok());
  EXPECT_EQ(completed, 1);
  EXPECT_FALSE(sites.IsDirty(7));

  // On disk with its head, and in the cache as written.
  ASSERT_TRUE(sites.db().Get(nullptr, EncodeSiteKey(7), &bytes).ok());
  SiteRecord stored;
  ASSERT_TRUE(DecodeSiteRecord(bytes, &stored));
  EXPECT_EQ(stored.name, "example.com");
  ASSERT_TRUE(stored.head.has_value());
  EXPECT_EQ(*stored.head, Pos(1, 42));
  EXPECT_EQ(sites.cached().count(7), 1u);

  // A buffered change dropped (an aborted transaction) leaves the
  // committed record.
  rec.urls = 99;
  sites.Store(7, rec);
  sites.DropDirty();
  ASSERT_TRUE(sites.Load(nullptr, 7, &seen).ok());
  EXPECT_EQ(seen.urls, 3u);
  sites.ClearCache();
  ASSERT_TRUE(sites.Load(nullptr, 7, &seen).ok());  // from the file
  EXPECT_EQ(seen.urls, 3u);
  EXPECT_TRUE(sites.Load(nullptr, 8, &seen).IsNotFound());
}

TEST_F(StoragePartsTest, SiteTableWritesNothingCachedWhenCompleteFails) {
  SiteTable sites;
  ASSERT_TRUE(sites.db().Open(env_.get(), "sites.db", 0).ok());
  SiteRecord rec;
  rec.name = "a.example";
  sites.Store(1, rec);
  bdb::Txn txn;
  ASSERT_TRUE(txn.Begin(env_.get()).ok());
  Status s = sites.WriteDirty(txn.get(), [](uint64_t, SiteRecord*) {
    return Status::IOError("injected");
  });
  EXPECT_TRUE(s.IsIOError());
  txn.Abort();
  EXPECT_FALSE(sites.IsDirty(1));  // the buffer is emptied either way
  EXPECT_TRUE(sites.cached().empty());
  SiteRecord seen;
  EXPECT_TRUE(sites.Load(nullptr, 1, &seen).IsNotFound());
}

TEST_F(StoragePartsTest, SiteQueuesKnowTheHeadWithoutReadingQ) {
  SiteScheduler sched;
  sched.Reset(1);
  SiteQueues queue(&sched);
  ASSERT_TRUE(queue.db().Open(env_.get(), "queue.db", 0).ok());
  constexpr uint64_t kSite = 9;
  bdb::Txn txn;
  ASSERT_TRUE(txn.Begin(env_.get()).ok());
  queue.Bind(txn.get());
  // Three URLs in, the smallest second: the head follows the smallest.
  ASSERT_TRUE(queue.Put(txn.get(), kSite, Pos(5, 2), 0).ok());
  EXPECT_EQ(queue.KnownHead(kSite), Pos(5, 2));
  ASSERT_TRUE(queue.Put(txn.get(), kSite, Pos(1, 3), 1).ok());
  ASSERT_TRUE(queue.Put(txn.get(), kSite, Pos(9, 4), 2).ok());
  EXPECT_EQ(queue.KnownHead(kSite), Pos(1, 3));
  // Another site's key right after: the successor step must not take it.
  ASSERT_TRUE(queue.Put(txn.get(), kSite + 1, Pos(0, 1), 0).ok());

  // The head out: the next key is stepped to, and agrees with a read.
  ASSERT_TRUE(queue.Remove(txn.get(), kSite, Pos(1, 3), 2).ok());
  EXPECT_EQ(queue.KnownHead(kSite), Pos(5, 2));
  StatusOr<std::optional<QueuePos>> read = queue.ReadHead(txn.get(), kSite);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, Pos(5, 2));
  // A key that is not the head leaves the head alone.
  ASSERT_TRUE(queue.Remove(txn.get(), kSite, Pos(9, 4), 1).ok());
  EXPECT_EQ(queue.KnownHead(kSite), Pos(5, 2));
  // The last one out: the site's queue is empty, the next site's is not.
  ASSERT_TRUE(queue.Remove(txn.get(), kSite, Pos(5, 2), 0).ok());
  read = queue.ReadHead(txn.get(), kSite);
  ASSERT_TRUE(read.ok());
  EXPECT_FALSE(read->has_value());
  EXPECT_TRUE(queue.Remove(txn.get(), kSite, Pos(5, 2), 0).IsNotFound());
  ASSERT_TRUE(queue.CloseCursor().ok());
  ASSERT_TRUE(txn.Commit().ok());

  // A new transaction knows only what the scheduler tracks (nothing
  // here): Head() reads Q and remembers it.
  queue.ResetHeadChanges();
  EXPECT_FALSE(queue.KnownHead(kSite + 1).has_value());
  read = queue.Head(nullptr, kSite + 1);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, Pos(0, 1));
  EXPECT_EQ(queue.KnownHead(kSite + 1), Pos(0, 1));
}

TEST_F(StoragePartsTest, TimerTableMinIsALowerBoundMadeExactByLoadMin) {
  TimerTable timers;
  ASSERT_TRUE(timers.db().Open(env_.get(), "timers.db", 0).ok());
  EXPECT_FALSE(timers.min().has_value());
  const UrlKey a{1, 1}, b{1, 2};
  ASSERT_TRUE(timers.Add(nullptr, 500, a).ok());
  ASSERT_TRUE(timers.Add(nullptr, 300, b).ok());
  EXPECT_EQ(timers.min(), 300);
  ASSERT_TRUE(timers.Remove(nullptr, 300, b).ok());
  EXPECT_EQ(timers.min(), 300);  // early, never late
  ASSERT_TRUE(timers.LoadMin(nullptr).ok());
  EXPECT_EQ(timers.min(), 500);
  EXPECT_TRUE(timers.Remove(nullptr, 300, b).IsNotFound());
  ASSERT_TRUE(timers.Remove(nullptr, 500, a).ok());
  ASSERT_TRUE(timers.LoadMin(nullptr).ok());
  EXPECT_FALSE(timers.min().has_value());
}

TEST_F(StoragePartsTest, UrlTableInsertsOnceAndRewritesInPlace) {
  UrlTable urls;
  ASSERT_TRUE(urls.db().Open(env_.get(), "urls.db", 8192).ok());
  const UrlKey key{7, 8};
  UrlRecord rec;
  rec.url = "http://example.com/";
  rec.site_fp = 7;
  bdb::Txn txn;
  ASSERT_TRUE(txn.Begin(env_.get()).ok());
  urls.Bind(txn.get());
  bool inserted = false;
  ASSERT_TRUE(urls.Insert(txn.get(), key, rec, &inserted).ok());
  EXPECT_TRUE(inserted);
  rec.backlinks = 5;
  ASSERT_TRUE(urls.Insert(txn.get(), key, rec, &inserted).ok());
  EXPECT_FALSE(inserted);  // the first stays
  UrlRecord seen;
  ASSERT_TRUE(urls.Load(txn.get(), key, &seen).ok());
  EXPECT_EQ(seen.backlinks, 0u);
  seen.backlinks = 2;  // a rewrite of the record just read
  ASSERT_TRUE(urls.Store(txn.get(), key, seen).ok());
  ASSERT_TRUE(urls.CloseCursor().ok());
  ASSERT_TRUE(txn.Commit().ok());
  ASSERT_TRUE(urls.Load(nullptr, key, &seen).ok());
  EXPECT_EQ(seen.backlinks, 2u);
  EXPECT_EQ(seen.url, "http://example.com/");
  EXPECT_TRUE(urls.Load(nullptr, UrlKey{7, 9}, &seen).IsNotFound());
}

TEST_F(StoragePartsTest, SiteTombstonesComeBackFromMetaAtTheirStart) {
  bdb::Database meta;
  ASSERT_TRUE(meta.Open(env_.get(), "meta.db", 0).ok());
  ASSERT_TRUE(SiteTombstones::Put(nullptr, &meta, 0x0102030405060708).ok());
  ASSERT_TRUE(meta.Put(nullptr, "stats", "x").ok());  // not a tombstone
  SiteTombstones host, domain;
  ASSERT_TRUE(host.Load(&meta, /*by_host=*/true).ok());
  ASSERT_TRUE(domain.Load(&meta, /*by_host=*/false).ok());
  ASSERT_TRUE(host.Holds(0x0102030405060708));
  UrlRecord rec;
  rec.site_fp = 0x0102030405060708;
  EXPECT_TRUE(host.IsDeleted(rec));
  rec.site_fp = 1;
  EXPECT_FALSE(host.IsDeleted(rec));
  // Host scope starts at the host's first key, domain scope at urls.db's.
  EXPECT_EQ(host.Next()->second,
            std::string(EncodeSiteKey(0x0102030405060708)));
  EXPECT_EQ(domain.Next()->second, "");
  ASSERT_TRUE(SiteTombstones::Remove(nullptr, &meta, 0x0102030405060708).ok());
  host.Finish(host.Next());
  EXPECT_TRUE(host.empty());
  ASSERT_TRUE(host.Load(&meta, true).ok());
  EXPECT_TRUE(host.empty());
}

}  // namespace
}  // namespace frontier
