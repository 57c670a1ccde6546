// FrontierImpl: opening the environment (with recovery), the layout check,
// rebuilding the in-memory scheduler, checkpoints and closing.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include "storage/bdb_alloc.h"
#include "storage/frontier_impl.h"
#include "storage/journal.h"

namespace frontier {

namespace {

// v2: site records carry every state count. Version 1 directories (from
// before 0.2) are refused with a message; their sites lack those counts.
constexpr const char* kLayoutVersion = "v2";
constexpr uint32_t kLogBufferBytes = 4u << 20;
constexpr uint32_t kLogFileBytes = 64u << 20;

const char* OrderName(QueueOrder order) {
  switch (order) {
    case QueueOrder::kBfs:
      return "bfs";
    case QueueOrder::kPriority:
      return "priority";
    case QueueOrder::kPopularity:
      return "popularity";
    case QueueOrder::kDate:
      return "date";
  }
  return "unknown";
}

std::string LayoutString(const FrontierOptions& o) {
  return std::string(kLayoutVersion) + " order=" + OrderName(o.order) +
         " politeness-scope=" +
         (o.politeness_scope == SiteScope::kHost ? "host" : "domain");
}

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Berkeley DB makes each new log file kLogFileBytes long at once (a sparse
// file), and recovery, which runs at every start, writes zeros from the
// end of the last record to the end of the file: up to 64 MiB of writes
// per start, and a start that fails with ENOSPC on a disk with less than
// that free. So before recovery the newest log file loses its unwritten
// tail: everything from the first hole after its data. A hole is whole
// filesystem blocks that were never written, so no record is cut. Where
// the filesystem cannot tell holes (SEEK_HOLE finds only the end of the
// file), nothing changes. Best effort: recovery is correct either way.
void TrimLogTail(const std::string& dir) {
  std::error_code ec;
  std::filesystem::path newest;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() == 14 && name.rfind("log.", 0) == 0 &&
        (newest.empty() || name > newest.filename().string())) {
      newest = entry.path();
    }
  }
  if (newest.empty()) return;
  int fd = ::open(newest.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return;
  const off_t end = ::lseek(fd, 0, SEEK_END);
  const off_t hole = ::lseek(fd, 0, SEEK_HOLE);
  if (end > 0 && hole >= 0 && hole < end) (void)::ftruncate(fd, hole);
  ::close(fd);
}

}  // namespace

StatusOr<std::unique_ptr<Frontier>> Frontier::Open(
    const FrontierOptions& options) {
  auto impl = std::make_unique<FrontierImpl>(options);
  Status s = impl->Init();
  if (!s.ok()) return s;
  return std::unique_ptr<Frontier>(std::move(impl));
}

FrontierImpl::~FrontierImpl() { Close(/*skip_checkpoint=*/false); }

Status FrontierImpl::Init() {
  const int64_t start = SteadyMs();
  Status s = bdb::CheckVersion();
  if (!s.ok()) return s;

  std::error_code ec;
  std::filesystem::create_directories(opts_.dir, ec);
  if (ec) {
    return Status::IOError("cannot create dir '" + opts_.dir +
                           "': " + ec.message());
  }
  // One server per directory: Berkeley DB's recovery assumes it is alone.
  const std::string lock_path = opts_.dir + "/frontierd.lock";
  lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) {
    return Status::IOError("cannot open " + lock_path + ": " +
                           std::strerror(errno));
  }
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
    return Status::IOError("dir '" + opts_.dir +
                           "' is in use by another frontierd process");
  }
  return OpenEnvironment(start);
}

Status FrontierImpl::OpenEnvironment(int64_t start) {
  Status s;
  // Cache buffers at their own size (storage/bdb_alloc.h); what Berkeley
  // DB hands back to us (statistics) still comes from malloc.
  bdb::InstallAllocator();
  LogDurability::InstallEntrySync();
  env_.reset(new DbEnv(DB_CXX_NO_EXCEPTIONS));
  DbEnv* env = env_.get();
  env->set_errpfx("frontierd(bdb)");
  env->set_errfile(stderr);
  s = bdb::FromDb(env->set_alloc(std::malloc, std::realloc, std::free),
                  "set_alloc");
  if (s.ok()) {
    s = bdb::FromDb(
        env->set_cachesize(
            static_cast<u_int32_t>(opts_.cache_bytes >> 30),
            static_cast<u_int32_t>(opts_.cache_bytes & ((1u << 30) - 1)), 1),
        "set_cachesize");
  }
  if (s.ok()) s = bdb::FromDb(env->set_lg_bsize(kLogBufferBytes), "set_lg_bsize");
  if (s.ok()) s = bdb::FromDb(env->set_lg_max(kLogFileBytes), "set_lg_max");
  // Commits never sync by themselves: the server flushes the log once per
  // event-loop pass (fsync always), once a second (everysec), or leaves
  // the writes to the OS (no).
  if (s.ok()) {
    s = bdb::FromDb(env->set_flags(opts_.write_log_at_commit
                                       ? DB_TXN_WRITE_NOSYNC
                                       : DB_TXN_NOSYNC,
                                   1),
                    "set_flags");
  }
  if (!s.ok()) return s;
  // No DB_INIT_LOCK: one thread owns the environment (the event loop), so
  // page locks would only cost time, about 10% of a command's
  // instructions. Transactions still give atomicity and recovery.
  // With replication no, that is all; replication adds locking and
  // free-threaded handles (frontier_replication.cc).
  u_int32_t flags = DB_CREATE | DB_INIT_LOG | DB_INIT_MPOOL | DB_INIT_TXN |
                    DB_RECOVER | DB_PRIVATE;
  s = ConfigureReplication(&flags);
  if (!s.ok()) return s;
  // Recovery meets the site journal's records (storage/journal.h).
  s = bdb::FromDb(env->set_app_dispatch(journal::Dispatch),
                  "set_app_dispatch");
  if (!s.ok()) return s;
  TrimLogTail(opts_.dir);
  s = bdb::FromDb(env->open(opts_.dir.c_str(), flags, 0644),
                  "open environment in '" + opts_.dir + "'");
  // A replica opens its databases once it holds the master's data.
  if (s.ok()) s = StartReplication();
  if (!s.ok()) return s;
  closed_ = false;
  StartFileSyncer();
  {
    // Recovery leaves the log durable: SyncLog() starts from this file.
    DB_LOG_STAT* st = nullptr;
    s = bdb::FromDb(env->log_stat(&st, 0), "log_stat");
    if (!s.ok()) return s;
    durability_.Reset(st->st_cur_file);
    free(st);
  }

  s = OpenDatabases();
  // The site records journaled since the last write-back, into sites.db
  // before anything reads it.
  if (s.ok()) s = ReplayJournal();
  if (s.ok()) s = LoadState();
  // The other crawls (crawls.db): each its own databases and scheduler.
  if (s.ok()) s = OpenCrawls();
  if (s.ok()) s = StartJournal();
  // The databases and the first log file may have just been created:
  // their entries are made durable before anything is acknowledged.
  if (s.ok()) s = durability_.SyncDirectory();
  open_ms_ = SteadyMs() - start;
  return s;
}

std::array<bdb::Database*, 8> FrontierImpl::Databases() {
  return {&urls_.db(), &queue_.db(),  &timers_.db(), &sites_.db(),
          &meta_,      &robots_.db(), &excluded_,    &values_.db()};
}

Status FrontierImpl::OpenDatabases() {
  DbEnv* env = env_.get();
  Status s = urls_.db().Open(env, "urls.db", 8192);
  if (s.ok()) s = queue_.db().Open(env, "queue.db", 0);
  if (s.ok()) s = timers_.db().Open(env, "timers.db", 0);
  if (s.ok()) s = sites_.db().Open(env, "sites.db", 0);
  if (s.ok()) s = meta_.Open(env, "meta.db", 0);
  // robots.txt state: created on the first start of a version that has it.
  if (s.ok()) s = robots_.db().Open(env, "policy.db", 0);
  if (s.ok()) s = excluded_.Open(env, "excluded.db", 0);
  // Per-URL values: created on the first start of a version that has them.
  if (s.ok()) s = values_.db().Open(env, "data.db", 8192);
  return s;
}

Status FrontierImpl::LoadState() {
  Status s = CheckLayout();
  if (s.ok()) s = RebuildScheduler();
  if (s.ok()) s = LoadRechecks();
  if (s.ok()) s = tombstones_.Load(&meta_, ByHost());
  if (s.ok()) s = LoadScopeRecheck();
  if (s.ok()) s = LoadPaused();
  return s;
}

Status FrontierImpl::CheckLayout() {
  const std::string want = LayoutString(opts_);
  std::string have;
  Status s = meta_.Get(nullptr, "layout", &have);
  if (s.IsNotFound() && !IsWritable()) {
    return Status::IOError("the replication group's data has no layout yet");
  }
  if (s.IsNotFound()) {
    bdb::Txn txn;
    s = txn.Begin(env_.get());
    if (s.ok()) s = meta_.Put(txn.get(), "layout", want);
    if (s.ok()) s = meta_.Put(txn.get(), "stats", EncodeStats(stats_));
    if (s.ok()) s = txn.Commit();
    if (s.ok()) commit_seq_.fetch_add(1);
    if (s.ok()) s = FlushLog();
    return s;
  }
  if (!s.ok()) return s;
  if (have.rfind(std::string(kLayoutVersion) + " ", 0) != 0) {
    return Status::InvalidArgument(
        "the data in '" + opts_.dir + "' has layout '" + have +
        "', written by an older frontierd; this version reads layout " +
        kLayoutVersion + " only: use a new dir and add the URLs again");
  }
  if (have != want && repl_) {
    return Status::InvalidArgument(
        "the replication group's data has layout '" + have +
        "' but this site's configuration asks for '" + want +
        "': every site of a group needs the same 'order' and "
        "'politeness-scope' (the master's URL queues are ordered by them)");
  }
  if (have != want) {
    return Status::InvalidArgument(
        "the data in '" + opts_.dir + "' was written with layout '" + have +
        "' but the configuration asks for '" + want +
        "': start with the same 'order' and 'politeness-scope', or use a "
        "new dir");
  }
  std::string stats;
  s = meta_.Get(nullptr, "stats", &stats);
  if (!s.ok()) return s;
  // The cumulative counters as of the last checkpoint; RebuildScheduler()
  // replaces the state counters with the sums of the site records.
  if (!DecodeStats(stats, &stats_)) {
    return Status::Corruption("undecodable counters in meta.db");
  }
  return Status::OK();
}

Status FrontierImpl::RebuildScheduler() {
  // It reads sites.db itself: the journal's pending records go there
  // first. No transaction is open here.
  if (sites_.pending() > 0) {
    if (Status s = WriteBackJournal(0, /*all=*/true); !s.ok()) return s;
  }
  // One pass over the sites (not the URLs): O(sites) at start.
  sched_.Reset(opts_.partitions.size());
  blocks_.Clear();
  part_counts_.Reset(opts_.partitions);
  queue_.ResetHeadChanges();
  sites_.ClearCache();
  robots_.ClearCache();
  FrontierStats counted;  // state counters from zero, cumulative ones kept
  KeepCumulativeCounters(stats_, &counted);
  stats_ = counted;
  if (Status f = PromotionRebuildFault(); !f.ok()) return f;
  bdb::Txn txn;
  Status s = txn.Begin(env_.get());
  if (!s.ok()) return s;
  // The heads of sites with many URLs queued are searched for through the
  // transaction's queue cursor (SiteQueues::ReadHead): one cursor for the
  // whole pass instead of one opened and closed per site.
  BindCursors(txn.get());
  s = PlaceEverySite(txn.get());
  Status closed = CloseCursors();
  if (s.ok()) s = closed;
  touched_sites_.clear();
  queue_.ResetHeadChanges();
  if (!s.ok()) return s;  // txn's destructor aborts it
  return txn.Commit();
}

Status FrontierImpl::PlaceEverySite(DbTxn* t) {
  Status s;
  SiteQueues::HeadWalk walk;
  s = walk.Open(&queue_, t);  // closed by its destructor, before t ends
  if (!s.ok()) return s;
  // A min-heap of the sites holding the most URLs, cached at the end.
  using Held = std::pair<uint64_t, uint64_t>;  // (urls, site_fp)
  std::vector<std::pair<Held, SiteRecord>> largest;
  auto smaller = [](const auto& a, const auto& b) { return a.first > b.first; };
  // The shared politeness state (several crawls): only what still holds.
  const int64_t gate_now_ms =
      gate_on_ ? std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count()
               : 0;
  {
    bdb::BulkScan scan;
    s = scan.Open(&sites_.db(), t);
    std::string_view key, value;
    if (s.ok()) s = scan.Next(&key, &value);
    while (s.ok()) {
      SiteRecord site;
      uint64_t site_fp = 0;
      if (!DecodeSiteEntry(key, value, &site_fp, &site)) {
        return Status::Corruption("undecodable site record");
      }
      stats_.sites++;
      stats_.urls += site.urls;
      stats_.queued += site.queued;
      stats_.leased += site.leases;
      stats_.done += site.done;
      stats_.scheduled += site.scheduled;
      stats_.dead += site.dead;
      blocks_.Set(site_fp, site.block_until_ms);
      if (gate_on_) GateSet(site_fp, site, gate_now_ms);
      stats_.excluded += site.excluded;
      part_counts_.AddSite(site_policy_.PartitionOf(site), site);
      if (site.queued > 0 || site.leases > 0) {
        // Not PlaceSite(): its per-transaction bookkeeping (touched sites,
        // head changes) would grow to a million entries here for nothing.
        SiteScheduler::Placement p = site_policy_.PlacementOf(site);
        if (site.queued > 0 && site.head) {
          p.head = site.head;  // stored with the record: no read of Q
        } else if (site.queued > 0) {
          StatusOr<std::optional<QueuePos>> head =
              queue_.NextHead(t, site_fp, site.queued, &walk);
          if (!head.ok()) return head.status();
          p.head = *head;
        }
        sched_.Place(site_fp, p, /*now_ms=*/0);
      }
      const Held held{site.urls, site_fp};
      if (site.urls > 0 && (largest.size() < kLargestSitesAtOpen ||
                            held > largest.front().first)) {
        if (largest.size() == kLargestSitesAtOpen) {
          std::pop_heap(largest.begin(), largest.end(), smaller);
          largest.pop_back();
        }
        largest.emplace_back(held, std::move(site));
        std::push_heap(largest.begin(), largest.end(), smaller);
      }
      s = scan.Next(&key, &value);
    }
    if (!s.IsNotFound()) return s;
    s = scan.Close();
    if (!s.ok()) return s;
  }
  for (auto& [held, site] : largest) {
    sites_.Remember(held.second, std::move(site));
  }
  return timers_.LoadMin(t);
}

uint64_t FrontierImpl::DataBytes() const {
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(opts_.dir, ec)) {
    std::error_code size_ec;
    if (entry.is_regular_file(size_ec)) {
      uintmax_t size = entry.file_size(size_ec);
      if (!size_ec) total += size;
    }
  }
  return total;
}

Status FrontierImpl::Checkpoint() {
  if (closed_) return Status::IOError("frontier is closed");
  if (Status s = EndOpenPass(); !s.ok()) return s;
  CheckpointParts parts;
  parts.sites_written = sites_.pending();
  parts.leases_moved = timers_.leases().size();
  // Every pending site record goes to sites.db first: the checkpoint
  // then writes it to the file, and the journal's replay window starts
  // after it.
  int64_t started = SteadyMs();
  Status s = WriteBackJournal(0, /*all=*/true);
  if (s.ok() && counters_saved_seq_ != commit_seq_.load()) {
    s = SaveCounters();
    if (s.ok()) counters_saved_seq_ = commit_seq_.load();
  }
  parts.write_back_ms = SteadyMs() - started;
  if (s.ok()) {
    started = SteadyMs();
    s = bdb::FromDb(env_->txn_checkpoint(0, 0, 0), "txn_checkpoint");
    parts.checkpoint_ms = SteadyMs() - started;
  }
  if (!s.ok()) {
    write_failure_.Note(s);
    return s;
  }
  flushed_seq_.store(commit_seq_.load());  // a checkpoint flushes the log
  // Logs before the checkpoint are no longer needed for normal recovery;
  // the syncer's thread unlinks them (tens of milliseconds each). A
  // backup's copy may still be reading them: they wait for the next
  // checkpoint after it.
  if (!backup_pinned_) {
    started = SteadyMs();
    s = RemoveUnusedLogs();
    parts.log_removal_ms = SteadyMs() - started;
  }
  if (s.ok()) last_checkpoint_ = parts;
  return s;
}

Status FrontierImpl::Close(bool skip_checkpoint) {
  if (closed_) {
    if (lock_fd_ >= 0) {
      ::close(lock_fd_);
      lock_fd_ = -1;
    }
    return Status::OK();
  }
  Status result = EndPass();
  if (Status s = FlushLog(); result.ok()) result = s;
  if (!skip_checkpoint) {
    // A clean stop leaves no journal: every site record in sites.db and
    // no replay point, so any start (a replicated one too) may follow.
    Status s = StopJournal();
    if (s.ok()) s = Checkpoint();
    if (result.ok()) result = s;
  }
  file_syncer_.reset();
  if (Status s = CloseCrawls(/*sync=*/true); result.ok()) result = s;
  for (bdb::Database* db : Databases()) {
    Status s = db->Close();
    if (result.ok()) result = s;
  }
  env_.reset();
  closed_ = true;
  durability_.CloseFile();
  if (lock_fd_ >= 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
  }
  return result;
}

}  // namespace frontier
