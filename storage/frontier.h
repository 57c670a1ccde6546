// Frontier: the URL database of Dorosz's model (U, Q, Qc) grouped by site,
// with per-site politeness, leases and recrawl dates, kept in a Berkeley DB
// transactional environment.
//
// Its API is the frontier's verbs over plain C++ types; it knows nothing of
// sockets or RESP. Every mutating call is one Berkeley DB transaction: it
// either happens whole or not at all (an error leaves nothing changed).
// Commits do not wait for the disk; the caller makes them durable with
// FlushLog(), or WriteLog() and then SyncLog() on a thread of its own,
// before acknowledging (group commit), or relies on the fsync policy it
// chose. All times are milliseconds since the Unix epoch, passed
// in by the caller so that tests control the clock.
//
// Not thread-safe: one event loop owns one Frontier. SyncLog() alone may
// run on another thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "partition/partition_map.h"
#include "storage/status.h"
#include "storage/url.h"

namespace frontier {

enum class QueueOrder { kBfs, kPriority };  // G+p+h(K) or p+G+h(K)

struct FrontierOptions {
  std::string dir = "./data";           // created if missing
  uint64_t cache_bytes = 256ull << 20;  // Berkeley DB cache
  int64_t lease_timeout_ms = 300'000;
  int max_depth = 16;                   // 0 = unlimited
  SiteScope depth_scope = SiteScope::kDomain;
  uint64_t site_max_urls = 0;           // 0 = unlimited
  int64_t politeness_delay_ms = 1000;
  uint32_t site_max_leases = 1;         // 0 = unlimited
  SiteScope politeness_scope = SiteScope::kHost;
  int default_priority = 5000;          // 0 (most urgent) .. 9999
  QueueOrder order = QueueOrder::kBfs;
  int max_attempts = 5;
  size_t max_url_length = 8192;
  // With true, each commit writes its log records to the OS (not synced);
  // with false they stay in the log buffer until FlushLog() or a checkpoint.
  bool write_log_at_commit = false;
  // Which partition each site is in (by its name under politeness_scope).
  partition::PartitionMap partitions;
};

enum class UrlState { kQueued, kLeased, kDone, kScheduled, kDead };
const char* UrlStateName(UrlState state);  // "queued", "leased", ...

// ADD's answer for one URL.
enum class AddOutcome { kAdded = 1, kKnown = 0, kRefused = -1 };

struct AddOptions {
  std::optional<int> priority;        // 0..9999; default_priority if unset
  std::optional<int64_t> recrawl_ms;  // > 0 sets r(K); unset or <= 0: none
};

struct UrlInfo {
  std::string url;
  int depth = 0;
  int priority = 0;
  UrlState state = UrlState::kQueued;
  int attempts = 0;
  uint64_t backlinks = 0;
  int64_t recrawl_ms = 0;  // 0 = no recrawl
  int64_t due_ms = 0;      // lease deadline or scheduled time; 0 if none
  int64_t last_fetch_ms = 0;
};

struct FrontierStats {
  uint64_t urls = 0, queued = 0, leased = 0, done = 0, scheduled = 0,
           dead = 0, sites = 0, ready_sites = 0;
  uint64_t added = 0, duplicates = 0, refused = 0, popped = 0, confirmed = 0,
           failed = 0, expired = 0, recrawled = 0;
};

// Tracked sites (those with queued URLs) by scheduler state; see
// site_scheduler.h for what each state means.
struct SiteStateCounts {
  uint64_t ready = 0, waiting = 0, busy = 0;  // busy: at site-max-leases
};

// One site's size, for the dashboard's largest sites.
struct SiteSize {
  std::string name;
  uint64_t urls = 0, queued = 0, leased = 0;
};

// One partition as PARTITION INFO and HINT show it. The counts of URLs
// and sites are exact (summed from the site records at start, then kept
// up to date); popped and confirmed count since the frontier opened (or
// the partition map last changed, for a partition that was not in the old
// map).
struct PartitionStats {
  uint64_t sites = 0, ready_sites = 0, queued = 0, leased = 0, done = 0;
  uint64_t popped = 0, confirmed = 0;
  // n: how many fetches the partition could have running at once under
  // its politeness rules now: over its sites, the URLs queued at a ready
  // site or leased, each site's counted up to site-max-leases.
  uint64_t capacity = 0;
};

// Berkeley DB memory pool (cache) lookups since the environment opened.
struct CacheCounters {
  uint64_t hits = 0, misses = 0;
};

// What Tick() did, for logging and for waking blocked poppers.
struct TickResult {
  uint64_t expired = 0;    // leases that ran out
  uint64_t requeued = 0;   // URLs that went back to Q (any reason)
  bool more_due = false;   // the per-tick bound was hit; call again soon
};

class Frontier {
 public:
  // Opens (creating if needed) the environment in options.dir, running
  // Berkeley DB recovery first. Fails with IOError if the directory cannot
  // be used or another process holds it, and with InvalidArgument if the
  // data was written with an `order` or `politeness-scope` that differs
  // from options (the layout depends on them).
  static StatusOr<std::unique_ptr<Frontier>> Open(const FrontierOptions& options);

  virtual ~Frontier() = default;

  // ADD url [ref]. A URL is InvalidArgument if it does not normalise. An
  // unknown or empty ref gives depth 1.
  virtual StatusOr<AddOutcome> Add(std::string_view url, std::string_view ref,
                                   const AddOptions& options, int64_t now_ms) = 0;

  // MADD ref url...: all in one transaction. Each element is the URL's own
  // outcome or its own InvalidArgument; the call fails as a whole (and
  // nothing is stored) only on an I/O error or an invalid non-empty ref.
  //
  // InvalidArgument messages are complete sentences for the client:
  // "invalid URL: <reason>" or "invalid ref URL: <reason>".
  virtual StatusOr<std::vector<StatusOr<AddOutcome>>> AddMany(
      std::string_view ref, const std::vector<std::string_view>& urls,
      int64_t now_ms) = 0;

  // POP COUNT n LEASE ms: up to `count` URLs from ready sites, first in Q
  // order, each leased until now + lease_ms (lease_ms <= 0: lease_timeout).
  // Runs Tick(now_ms) first. Returns the normalised URLs (possibly none).
  virtual StatusOr<std::vector<std::string>> Pop(size_t count, int64_t lease_ms,
                                                 int64_t now_ms) = 0;

  // Pop() limited to the sites of partition `partition` (an index in
  // options().partitions; InvalidArgument if out of range). Never looks at
  // another partition's sites.
  virtual StatusOr<std::vector<std::string>> PopPartition(size_t partition,
                                                          size_t count,
                                                          int64_t lease_ms,
                                                          int64_t now_ms) = 0;

  // True if the URL was known and not done (see docs/commands.md).
  virtual StatusOr<bool> Confirm(std::string_view url, int64_t now_ms) = 0;
  // True if the URL was leased. delay_ms > 0 requeues it after that long.
  virtual StatusOr<bool> Fail(std::string_view url, int64_t delay_ms,
                              int64_t now_ms) = 0;
  // True if known. period_ms <= 0 clears the recrawl period.
  virtual StatusOr<bool> Recrawl(std::string_view url, int64_t period_ms,
                                 int64_t now_ms) = 0;
  // Read-only: is the (normalised) URL known?
  virtual StatusOr<bool> Seen(std::string_view url) = 0;
  // Read-only, MSEEN (DRUM's check without update): Seen() for each URL,
  // answered in the order given. An element is the URL's answer or the
  // same InvalidArgument Seen() gives for it; the call fails as a whole
  // only on an I/O error or corrupt data. Nothing is written and no
  // transaction is committed: the URLs are looked up in U key order (one
  // site's URLs together) with one read cursor.
  virtual StatusOr<std::vector<StatusOr<bool>>> SeenMany(
      const std::vector<std::string_view>& urls) = 0;
  // Read-only: the URL's record, or nullopt if unknown.
  virtual StatusOr<std::optional<UrlInfo>> Info(std::string_view url) = 0;
  // Sets the politeness delay of the site that `site` names (a host, a
  // domain or a URL; mapped through politeness-scope). delay_ms < 0 restores
  // the default. Persistent.
  virtual Status SetSiteDelay(std::string_view site, int64_t delay_ms,
                              int64_t now_ms) = 0;

  // The Qc procedure of sections 2.6/2.7: expired leases and due recrawls
  // and retries go back to Q; sites whose delay has passed become ready.
  // Work is bounded per call (TickResult::more_due says there is more).
  virtual StatusOr<TickResult> Tick(int64_t now_ms) = 0;
  // True if Pop(now_ms) would return at least one URL (after Tick).
  virtual bool HasReady(int64_t now_ms) = 0;
  // HasReady() for one partition (an index in options().partitions; false
  // if out of range).
  virtual bool HasReadyIn(size_t partition, int64_t now_ms) = 0;
  // The earliest moment something becomes due (a Qc entry or a waiting
  // site), or nullopt if nothing is pending. For timers; never blocks.
  virtual std::optional<int64_t> NextWakeMs() const = 0;

  virtual FrontierStats Stats() const = 0;
  // Approximate bytes of data files on disk (for INFO).
  virtual uint64_t DataBytes() const = 0;

  // --- Monitoring (frontier_stats.cc); cheap, for /metrics and INFO ---
  //
  // Tracked sites by state, from the in-memory scheduler: O(1).
  virtual SiteStateCounts SiteStates() const = 0;
  // Partition `partition`'s counts (an index in options().partitions;
  // zeros if out of range): O(1).
  virtual PartitionStats PartitionInfo(size_t partition) const = 0;
  // Up to `n` of the largest sites by queued URLs among those in the
  // in-memory site cache (the sites the crawl touched lately, at most 64K
  // of them): bounded work, no disk read. Largest first.
  virtual std::vector<SiteSize> LargestSites(size_t n) const = 0;
  // The cache's hits and misses (DbEnv::memp_stat); IOError if Berkeley DB
  // cannot report them.
  virtual StatusOr<CacheCounters> CacheStats() const = 0;

  // The settings in use.
  virtual const FrontierOptions& options() const = 0;
  // CONFIG SET: takes the runtime-tunable fields of `options`
  // (lease_timeout_ms, max_depth, depth_scope, site_max_urls,
  // politeness_delay_ms, site_max_leases, default_priority, max_attempts,
  // max_url_length, partitions) and ignores the others, which the stored layout
  // or the open environment fixed. New values apply from the next call: leases
  // already given keep their deadlines, waiting sites their next-allowed
  // time. A new site_max_leases re-places every site with queued URLs
  // (one pass over the sites, as at start), and so does a new partition
  // map: no record is rewritten and leases keep their deadlines. An error from
  // that pass (an I/O error) is returned; the options are then unchanged.
  virtual Status UpdateOptions(const FrontierOptions& options,
                               int64_t now_ms) = 0;
  // How long Open() took, recovery included, in milliseconds (for the log).
  virtual int64_t open_ms() const = 0;

  // Writes and fsyncs the transaction log: every commit before this call is
  // durable when it returns OK. Returns at once if nothing was committed
  // since the last flush (an idle POP costs no fsync).
  virtual Status FlushLog() = 0;
  // FlushLog() in two steps, so that a server can run the fsync on another
  // thread while its loop goes on committing (fsync always):
  //
  // WriteLog() hands every commit so far to the operating system, without
  // syncing, and returns the commit_seq() that this covers. Loop thread.
  virtual StatusOr<uint64_t> WriteLog() = 0;
  // SyncLog(seq) makes durable what WriteLog() returned `seq` for (and
  // anything written after it): it fdatasyncs the log files itself, not
  // through Berkeley DB, and is the one call that may run on another
  // thread, concurrently with the others. At most one SyncLog() at a time.
  // A failure is recorded as by FlushLog() (see WriteStatus()).
  virtual Status SyncLog(uint64_t seq) = 0;
  // True if a transaction committed since the last successful FlushLog()
  // (or RetryWrites()): what an fsync would make durable.
  virtual bool HasUnflushedCommits() const = 0;
  // The number of transactions committed so far (for group commit: a
  // FlushLog() that started after commit_seq() returned n covers all n).
  virtual uint64_t commit_seq() const = 0;
  // Writes a bounded slice of the cache's dirty pages to the database
  // files (without syncing them), so that the checkpoint expected at
  // `checkpoint_ms` finds few pages to write and holds the caller for
  // milliseconds instead of seconds. Does nothing until the last 10 s
  // before `checkpoint_ms` (earlier, a page written now would mostly be
  // dirtied again: wasted writes), nor while few pages are dirty, and
  // runs at most once per 100 ms whatever the call rate: call it often
  // (after each event-loop pass). A slice flushes the log first
  // (write-ahead rule). A failed write is recorded as by FlushLog() (see
  // WriteStatus()).
  virtual Status WriteBehind(int64_t now_ms, int64_t checkpoint_ms) = 0;
  // Pages WriteBehind() wrote since the frontier was opened.
  virtual uint64_t pages_written_behind() const = 0;
  // Checkpoints and removes log files no longer needed for recovery.
  virtual Status Checkpoint() = 0;
  // Checkpoints (unless skip_checkpoint) and closes. Idempotent.
  virtual Status Close(bool skip_checkpoint) = 0;

  // --- Faults (frontier_recovery.cc) ---
  //
  // OK while writes reach the disk. Once a write fails with an I/O error
  // (a full disk, an I/O error, Berkeley DB's DB_RUNRECOVERY), in a
  // transaction, FlushLog() or Checkpoint(), that error, until
  // RetryWrites() succeeds. The server refuses write commands meanwhile.
  // Cheap (no lock) while OK; safe to call from any thread.
  virtual Status WriteStatus() const = 0;
  // After a write failure: flushes the log (the commits that were waiting
  // for the disk) and forces a checkpoint, which proves that the data
  // directory takes writes again. If Berkeley DB says the environment
  // needs recovery (DB_RUNRECOVERY), closes it and reopens it with
  // recovery first, then re-reads the counters and rebuilds the scheduler
  // from disk: commits that never reached the log are gone (they were
  // never acknowledged with `fsync always`). Returns OK, and clears
  // WriteStatus(), once writes work again; otherwise the reason, and the
  // frontier stays usable for reads as far as Berkeley DB allows. Must not
  // run concurrently with any other call, FlushLog() included.
  virtual Status RetryWrites() = 0;

  // --- Hot backup (frontier_backup.cc) ---
  //
  // Copies a consistent snapshot of the data directory into `target_dir`,
  // which must be an absolute path that does not exist yet, or an empty
  // directory, outside the data directory. Checkpoints first (so the copy
  // is small and recovers fast), then copies the database files and the
  // log files with Berkeley DB's DbEnv::backup into "<target_dir>.partial",
  // fsyncs them and renames the result to `target_dir`: a crash leaves no
  // half backup under the name asked for. A frontierd started on the copy
  // finds every transaction committed before the call. Blocks the caller
  // for the copy (the data and log size). InvalidArgument for a bad
  // target, IOError if the copy fails (the partial copy is removed).
  virtual Status Backup(const std::string& target_dir) = 0;
};

}  // namespace frontier
