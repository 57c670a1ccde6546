// FrontierImpl: the Berkeley DB implementation of Frontier (frontier.h).
// Private to storage/; split over frontier_{open,verbs,timers,records}.cc
// and the rest of frontier_*.cc. The verbs compose parts that each own one
// piece of the state, with its contract in its own header (docs/design.md,
// "Storage's parts"): the tables UrlTable (U), SiteQueues (Q), TimerTable
// (Qc, and the LeaseTable of leases held in memory), SiteTable (site
// records, their cache and dirty set), RobotsStore
// (robots.txt per origin) and UrlValues (per-URL values), each with its
// database; SiteTombstones (sites being removed); PartitionCounters;
// SitePolicy and UrlResolver (pure, over the options); LogDurability (the log files' and
// the directory's syncs), SiteNameCache (a host's site under a scope),
// WriteFailure (the latch of a failed write) and, for its write
// transactions, TxnBody (txn_body.h) and the tables' TxnCursors.
#pragma once

#include <array>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "policy/backoff.h"
#include "policy/politeness.h"
#include "policy/recrawl.h"
#include "storage/bdb.h"
#include "storage/crawl_space.h"
#include "storage/file_syncer.h"
#include "storage/frontier.h"
#include "storage/host_gate.h"
#include "storage/import_records.h"
#include "storage/log_durability.h"
#include "storage/partition_counters.h"
#include "storage/policy_records.h"
#include "storage/records.h"
#include "storage/replicator.h"
#include "storage/robots_store.h"
#include "storage/site_blocks.h"
#include "storage/site_name_cache.h"
#include "storage/site_policy.h"
#include "storage/site_queues.h"
#include "storage/site_scheduler.h"
#include "storage/site_table.h"
#include "storage/site_tombstones.h"
#include "storage/timer_table.h"
#include "storage/txn_body.h"
#include "storage/url_resolver.h"
#include "storage/url_table.h"
#include "storage/url_values.h"
#include "storage/write_failure.h"

namespace frontier {

class FrontierImpl final : public Frontier {
 public:
  explicit FrontierImpl(const FrontierOptions& options);
  ~FrontierImpl() override;

  // Opens the environment and databases; called once by Frontier::Open.
  Status Init();

  StatusOr<AddOutcome> Add(std::string_view url, std::string_view ref,
                           const AddOptions& options, int64_t now_ms) override;
  StatusOr<std::vector<StatusOr<AddOutcome>>> AddMany(
      std::string_view ref, const std::vector<std::string_view>& urls,
      int64_t now_ms) override;  // frontier_batch.cc
  StatusOr<std::vector<StatusOr<AddOutcome>>> AddManyWithData(
      std::string_view ref, const std::vector<std::string_view>& urls,
      const std::vector<std::string_view>& data,
      int64_t now_ms) override;
  StatusOr<std::vector<StatusOr<AddOutcome>>> AddLinksOfRemoteRef(
      const RemoteRef& ref, const std::vector<std::string_view>& urls,
      const std::vector<std::string_view>* data, int64_t now_ms) override;  // frontier_batch.cc
  StatusOr<std::vector<PoppedUrl>> PopWithData(
      std::optional<size_t> partition, size_t count, int64_t lease_ms,
      int64_t now_ms) override;  // frontier_data.cc
  StatusOr<std::vector<std::string>> Pop(size_t count, int64_t lease_ms,
                                         int64_t now_ms) override;
  StatusOr<std::vector<std::string>> PopPartition(
      size_t partition, size_t count, int64_t lease_ms,
      int64_t now_ms) override;  // frontier_partitions.cc
  StatusOr<bool> Confirm(std::string_view url, const ConfirmOptions& options,
                         int64_t now_ms) override;
  StatusOr<bool> Fail(std::string_view url, const FailOptions& options,
                      int64_t now_ms) override;
  StatusOr<bool> Extend(std::string_view url, int64_t lease_ms,
                        int64_t now_ms) override;  // frontier_leases.cc
  StatusOr<bool> Release(std::string_view url, int64_t delay_ms,
                         int64_t now_ms) override;  // frontier_leases.cc
  StatusOr<bool> Recrawl(std::string_view url, int64_t period_ms,
                         int64_t now_ms) override;
  StatusOr<bool> Seen(std::string_view url) override;
  StatusOr<std::vector<StatusOr<bool>>> SeenMany(
      const std::vector<std::string_view>& urls) override;  // frontier_batch.cc
  StatusOr<std::optional<UrlInfo>> Info(std::string_view url) override;
  // robots.txt (frontier_robots.cc).
  StatusOr<std::optional<RobotsInfo>> RobotsGet(
      std::string_view origin_or_url) override;
  Status RobotsSet(std::string_view origin, int status, std::string_view body,
                   int64_t now_ms) override;
  StatusOr<std::optional<bool>> RobotsCheck(std::string_view url) override;
  Status SetSiteDelay(std::string_view site, int64_t delay_ms,
                      int64_t now_ms) override;
  // --- frontier_sites.cc ---
  StatusOr<std::optional<SiteInfo>> GetSiteInfo(std::string_view site,
                                                int64_t now_ms) override;
  StatusOr<SitePage> ListSites(SiteFilter filter, uint64_t cursor, size_t count,
                               int64_t now_ms) override;
  StatusOr<std::vector<SiteSize>> TopSites(size_t n) override;
  Status SetSiteLimit(std::string_view site, uint64_t max_urls,
                      int64_t now_ms) override;
  StatusOr<uint64_t> DeleteSite(std::string_view site, int64_t now_ms) override;
  StatusOr<UrlPage> ListUrls(const UrlFilter& filter, std::string_view cursor,
                             size_t count) override;  // frontier_url_scan.cc
  StatusOr<UrlPurgePage> PurgeUrls(std::string_view site,
                                   int64_t created_before_ms,
                                   std::string_view cursor, size_t count,
                                   int64_t now_ms) override;  // frontier_purge.cc
  // --- frontier_data.cc ---
  StatusOr<std::vector<PoppedUrl>> PopSite(std::string_view site, size_t count,
                                           int64_t lease_ms,
                                           int64_t now_ms) override;
  // --- frontier_limits.cc ---
  Status SetSiteDoneLimit(std::string_view site, uint64_t limit,
                          int64_t now_ms) override;
  Status SetPaused(bool paused) override;
  bool Paused() const override { return paused_; }
  Status BlockSite(std::string_view site, int64_t block_ms,
                   int64_t now_ms) override;  // frontier_blocks.cc
  // --- frontier_scope.cc ---
  Status StartScopeRecheck(int64_t now_ms) override;
  ScopeRecheck ScopeRecheckProgress() const override;
  // --- Crawls (frontier_crawls.cc) ---
  Status UseCrawl(std::string_view name) override;
  const std::string& CurrentCrawl() const override { return crawl_name_; }
  std::vector<std::string> ListCrawls() const override;
  std::optional<FrontierStats> CrawlStats(std::string_view name) const override;
  StatusOr<bool> DeleteCrawl(std::string_view name) override;
  // Tick() of every crawl with work due (frontier_crawls.cc); the current
  // crawl is current again when it returns.
  StatusOr<TickResult> Tick(int64_t now_ms) override;
  bool HasReady(int64_t now_ms) override;
  bool HasReadyIn(size_t partition,
                  int64_t now_ms) override;  // frontier_partitions.cc
  PartitionStats PartitionInfo(
      size_t partition) const override;  // frontier_partitions.cc
  std::optional<int64_t> NextWakeMs() const override;  // frontier_crawls.cc
  FrontierStats Stats() const override;
  uint64_t DataBytes() const override;
  SiteStateCounts SiteStates() const override;             // frontier_stats.cc
  std::vector<SiteSize> LargestSites(size_t n) const override;  // same
  StatusOr<CacheCounters> CacheStats() const override;          // same
  StatusOr<LogCounters> LogStats() const override;              // same
  const FrontierOptions& options() const override { return opts_; }
  Status UpdateOptions(const FrontierOptions& options,
                       int64_t now_ms) override;  // frontier_config.cc
  int64_t open_ms() const override { return open_ms_; }
  // frontier_replication.cc
  ReplicationState Replication() const override;
  void SetReplicationListener(ReplicationListener listener) override;
  Status PutGroupDirectory(std::string_view text) override;
  StatusOr<std::string> GroupDirectory() override;
  StatusOr<bool> ReopenDeadHandles() override;  // frontier_replication.cc
  Status SyncReplicaLog() override;
  Status PutClusterRecord(std::string_view text) override;
  StatusOr<std::string> ClusterRecord() override;
  Status RemoveReplicationSite(const ReplicationSite& site) override;
  Status HandoverStep(frontier::HandoverStep step) override;
  uint64_t commit_seq() const override { return commit_seq_.load(); }
  bool HasUnflushedCommits() const override {
    return flushed_seq_.load() < commit_seq_.load();
  }
  void BeginPass() override;                       // frontier_pass.cc
  Status EndPass() override;                       // frontier_pass.cc
  Status FlushLog() override;                      // frontier_log.cc
  StatusOr<uint64_t> WriteLog() override;           // frontier_log.cc
  Status SyncLog(uint64_t seq) override;            // frontier_log.cc
  // After FlushLog's log_flush: the directory's fsync if Berkeley DB
  // started a log file since the last one (log_flush synced its data, not
  // its entry; LogDurability::SyncNewFileEntries). On the loop thread.
  Status SyncNewLogFileEntries();                    // frontier_log.cc
  Status WriteBehind(int64_t now_ms,
                     int64_t checkpoint_ms) override;  // frontier_writeback.cc
  uint64_t pages_written_behind() const override {
    return pages_written_behind_;
  }
  // Also hands the log files it frees to file_syncer_'s thread for
  // removal, unless a backup pins them.
  Status Checkpoint() override;
  CheckpointParts last_checkpoint() const override { return last_checkpoint_; }
  Status Close(bool skip_checkpoint) override;
  Status WriteStatus() const override;  // frontier_recovery.cc
  Status RetryWrites() override;        // frontier_recovery.cc
  // frontier_backup.cc
  StatusOr<BackupPlan> BeginBackup(const std::string& target_dir) override;
  void EndBackup() override;
  Status Backup(const std::string& target_dir) override;
  StatusOr<std::vector<StatusOr<ImportOutcome>>> Import(
      const ImportBatch& batch, int64_t now_ms) override;  // frontier_import.cc

  // Tests only: puts the environment in Berkeley DB's panic state, as a
  // failed write may, so that every call returns DB_RUNRECOVERY until
  // RetryWrites() reopens it.
  Status PanicForTesting();
  // Tests only: the URL records a SITE DELETE may read in its own
  // transaction (Frontier::kDeleteSiteMaxRecords); a larger site is
  // removed in the background.
  void SetDeleteSiteBoundForTesting(uint64_t records) {
    delete_site_bound_ = records;
  }
  // Tests only: how many values data.db holds (frontier_data.cc).
  StatusOr<uint64_t> DataRecordsForTesting();
  // Tests only: the site records in the site journal not yet written
  // back to sites.db (0 without the journal).
  size_t PendingSitesForTesting() const { return sites_.pending(); }

 private:
  // A text the server keeps in the replicated meta.db under `key` (the
  // group directory, the cluster record): Put is a write like any other;
  // Get answers "" while none was put.
  Status PutMetaText(std::string_view key, std::string_view text);
  StatusOr<std::string> MetaText(std::string_view key);

  using Resolved = ResolvedUrl;  // url_resolver.h
  // What depth a link gets from its ref.
  struct RefContext {
    uint64_t depth_site_fp = 0;  // Fingerprint(SiteOf(ref host, depth-scope))
    std::optional<int> depth;   // the ref's G, if the ref is known
  };

  using SiteRef = SiteNameCache::SiteRef;
  // The indices of the valid `targets` in U key order, stably: the order a
  // batched verb visits them in (frontier_batch.cc).
  static std::vector<uint32_t> InKeyOrder(
      const std::vector<StatusOr<Resolved>>& targets);
  // Where a slice of URLS or PURGE starts (frontier_url_scan.cc): the
  // cursor's key, moved up to the site's host when the site is one host
  // (politeness-scope host: its records are one key range), and the site
  // it keeps to. InvalidArgument for a bad cursor or site.
  struct UrlSlice {
    UrlKey from;
    std::optional<NamedSite> site;
    bool one_host = false;   // read only the site's host's key range
    bool past_site = false;  // the cursor is past that range: nothing left
  };
  StatusOr<UrlSlice> StartUrlSlice(std::string_view site,
                                   std::string_view cursor) const;
  // Reads up to `count` URL records of the slice in key order and calls
  // `visit` for each URL of its site (every site without one) that is
  // stored and not one of the frontier's robots.txt fetches, with the
  // cursor `c` on its record (visit may delete it). In transaction `t`,
  // or with none (nullptr: reading only). *next_cursor: where the next
  // slice starts, "0" at the end.
  using UrlVisit =
      std::function<Status(bdb::Cursor& c, const UrlKey& key, UrlRecord& rec)>;
  Status WalkUrlSlice(DbTxn* t, const UrlSlice& slice, size_t count,
                      std::string* next_cursor, const UrlVisit& visit);
  Status LoadRefContext(DbTxn* t, const Resolved& ref, RefContext* out);

  // Runs `body` in one transaction and commits it with the counters. On
  // any failure the transaction aborts and the in-memory state (counters,
  // scheduler entries of the sites touched) is restored from disk.
  Status RunWrite(TxnBody body);
  // RunWrite's two halves (frontier_pass.cc): BeginWrite starts a
  // transaction and saves what an abort puts back; FinishWrite writes the
  // dirty sites, closes the cursors, commits `txn` if `s` is OK (else
  // aborts it and restores memory) and returns the outcome. A verb outside
  // a pass runs both around its body; a pass runs them around all of its.
  Status BeginWrite(bdb::Txn* txn);
  Status FinishWrite(bdb::Txn* txn, Status s);
  // In a pass with an open transaction: writes the dirty site records into
  // it now, for readers that scan sites.db itself (SITE LIST, TopSites).
  Status WritePassSites();
  // Before a scan of sites.db (SITE LIST, TopSites): WritePassSites(), so
  // that sites.db overlaid with SiteTable::Unsettled() (the journal's
  // pending and this transaction's records) holds every site as this
  // transaction sees it. Writes nothing back (frontier_journal.cc).
  Status SettleSites();
  // Ends an open pass for the callers that must run outside any
  // transaction (flush, checkpoint, backup, options); OK if none.
  Status EndOpenPass();
  // Binds the tables' cursors to RunWrite's transaction `t` (txn_cursor.h);
  // CloseCursors() closes them all before it ends.
  void BindCursors(DbTxn* t);
  Status CloseCursors();

  // Adds one URL. `likely_new` picks the order of the work: a URL that is
  // probably new (ADD) is inserted first, one search instead of a lookup
  // and then an insert; a link of a page (MADD), usually known already, is
  // looked up first. The outcome is the same either way.
  Status AddOne(DbTxn* t, const Resolved& url, const RefContext* ref,
                const AddOptions& options, int64_t now_ms, bool likely_new,
                AddOutcome* out);
  // ADD of a URL whose record `rec` is stored: counts a back-link (and,
  // under `order popularity`, moves a queued URL whose class grows).
  // With options.replace_data, its value becomes options.data.
  Status AddKnown(DbTxn* t, const Resolved& url, const AddOptions& options,
                  int64_t now_ms, UrlRecord* rec, AddOutcome* out);
  // AddMany() and AddManyWithData() (data null: no values); with
  // `given`, the ref's context is that, not read from the ref's record
  // (AddLinksOfRemoteRef).
  StatusOr<std::vector<StatusOr<AddOutcome>>> AddLinks(
      std::string_view ref, const std::vector<std::string_view>& urls,
      const std::vector<std::string_view>* data, int64_t now_ms,
      const RefContext* given = nullptr);
  // Pops the first ready URL of `partition` (nullopt: of any partition),
  // and appends its value to *data unless data is null.
  // With `only_site`, from that site only (PopSite), whatever `partition`.
  Status PopOne(DbTxn* t, std::optional<size_t> partition, int64_t lease_ms,
                int64_t now_ms, std::vector<std::string>* out,
                std::vector<std::optional<std::string>>* data, bool* popped,
                std::optional<uint64_t> only_site = std::nullopt);
  // PopWithData() and PopSite(): PopFrom() with each URL's value.
  StatusOr<std::vector<PoppedUrl>> PopPairs(std::optional<size_t> partition,
                                            std::optional<uint64_t> site_fp,
                                            size_t count, int64_t lease_ms,
                                            int64_t now_ms);
  // Pop(), PopPartition(), PopWithData() and PopSite() (values in *data
  // unless null).
  StatusOr<std::vector<std::string>> PopFrom(
      std::optional<size_t> partition, size_t count, int64_t lease_ms,
      int64_t now_ms, std::vector<std::optional<std::string>>* data = nullptr,
      std::optional<uint64_t> site_fp = std::nullopt);

  // Import's writes of one checked item (frontier_import.cc).
  Status ImportUrlRecord(DbTxn* t, const ImportUrl& in, const Resolved& url,
                         int64_t now_ms, ImportOutcome* out);
  Status ImportSiteRecord(DbTxn* t, const ImportSite& in, int64_t now_ms);
  Status ImportPolicy(DbTxn* t, const ImportRobots& in, ImportOutcome* out);
  // Applies one due Qc entry (its key already deleted).
  Status FireTimer(DbTxn* t, const UrlKey& key, int64_t due_ms,
                   int64_t now_ms, TickResult* result);

  // --- robots.txt (frontier_robots.cc) ---
  // True if U holds a URL of `origin`, whose host's fingerprint is
  // `host_fp` (ROBOTS GET of an origin not fetched yet). Reads outside any
  // transaction; a host with very many URLs of other origins may answer
  // true without a match (bounded scan, docs/robots.md).
  StatusOr<bool> HoldsUrlOfOrigin(uint64_t host_fp, std::string_view origin);
  //
  // With `robots`, decides for the site's head `rec` (a queued URL that is
  // not a robots fetch, at `key`) before PopOne leases it: *held is false
  // if it may be handed out; otherwise the head was dealt with inside `t`
  // and the site re-placed: excluded (disallowed by fresh rules), the
  // origin's robots.txt queued in front of it, or the site parked until
  // the origin's robots fetch ends or its retry is due.
  Status GateHead(DbTxn* t, uint64_t site_fp, const UrlKey& key,
                  UrlRecord* rec, SiteRecord* site, int64_t now_ms,
                  bool* held);
  // With crawls (gate_on_), before `rec`, a robots fetch at the head of
  // `site_fp`, is handed out: another crawl may have fetched the origin's
  // robots.txt meanwhile, or be fetching it. If the frontier queued `rec`
  // itself (depth 0) and the rules are fresh now, it is not needed: done
  // without a fetch, *held. While another crawl's fetch is in flight, or
  // its back-off after an unreachable one runs, the site waits (*held).
  // Otherwise *held is false: `rec` goes.
  Status GateRobotsFetch(DbTxn* t, uint64_t site_fp, const UrlKey& key,
                         UrlRecord* rec, SiteRecord* site, int64_t now_ms,
                         bool* held);
  // Puts `origin`'s /robots.txt at the top of its site's queue (creating
  // its URL record if needed): *busy_until stays nullopt. If that URL is
  // leased or waiting for a retry instead, *busy_until is when that ends.
  Status QueueRobotsFetch(DbTxn* t, std::string_view origin, uint64_t site_fp,
                          SiteRecord* site, int64_t now_ms,
                          std::optional<int64_t>* busy_until);
  // PopOne leased the robots fetch `rec`: its origin is now "fetching".
  Status NoteRobotsLeased(DbTxn* t, const UrlRecord& rec);
  // True if `rec` is its origin's robots fetch (as opposed to an ordinary
  // URL): a URL the frontier queued (depth 0) or, with `robots`, any
  // /robots.txt URL.
  bool IsRobotsFetch(const UrlRecord& rec) const;
  // Applies a robots report (CONFIRM with status/body, FAIL, ROBOTS SET)
  // to the origin's record `p` (whose key is `origin_fp`), which it
  // stores, and to the origin's `site` (may be null; the caller stores
  // it, then calls StartRecheck). `status` nullopt = a
  // CONFIRM without STATUS; kFailStatus = a FAIL. *unreachable says the
  // fetch must be retried at p->until_ms.
  static constexpr int kFailStatus = -1;
  Status ApplyRobotsReport(DbTxn* t, uint64_t origin_fp, PolicyRecord* p,
                           std::optional<int> status, std::string_view body,
                           SiteRecord* site, int64_t now_ms,
                           bool* unreachable);
  // CONFIRM or FAIL of a robots fetch `rec` at `key` (any state but done
  // with CONFIRM; leased with FAIL): records the report and moves the URL
  // to done, or to a retry at the back-off time when unreachable.
  Status ReportRobotsFetch(DbTxn* t, const UrlKey& key, UrlRecord* rec,
                           std::optional<int> status, std::string_view body,
                           int64_t now_ms);
  // The re-check of excluded URLs after new rules (frontier_recheck.cc).
  // After a report stored new rules (p->recheck): marks the origin in
  // every crawl holding excluded URLs of it, clears p->recheck and stores
  // `p`, then runs the current crawl's first batch. Call it after the
  // caller's own site record is stored (the re-check moves site counts).
  Status StartRecheck(DbTxn* t, uint64_t origin_fp, PolicyRecord* p,
                      int64_t now_ms);
  // Marks `origin_fp` for a re-check from the start in every crawl whose
  // excluded index holds URLs of it (a record in the crawl's meta.db).
  Status MarkRechecks(DbTxn* t, uint64_t origin_fp);
  // The current crawl's next batch: re-checks up to `budget` of its
  // excluded URLs of the origin against `rules` (its stored rules), from
  // the crawl's mark; those now allowed go back to the queue. Moves the
  // mark on, or removes it when none is left to check.
  Status RecheckExcluded(DbTxn* t, uint64_t origin_fp, std::string_view rules,
                         size_t budget, int64_t now_ms, uint64_t* requeued);
  // Tick's share: one re-check batch for a pending origin of the crawl.
  Status TickRechecks(int64_t now_ms, TickResult* result);
  // The current crawl's pending origins (its marks in meta.db).
  Status LoadRechecks();
  // Re-checks pending in policy records (an older version kept the
  // position there) become marks in every crawl; once all are open.
  Status MarkLegacyRechecks();

  // --- Crawl scope (frontier_scope.cc) ---
  //
  // The validation step of Add()/AddMany(): true if opts_.scope refuses
  // `url` (found on `ref`, or nullptr), counting the refusal by reason.
  // Before any lookup: nothing is read or written.
  bool OutOfScope(const Resolved& url, const Resolved* ref);
  // Tick's share: one slice of the scope re-check, if one is running.
  Status TickScopeRecheck(int64_t now_ms, TickResult* result);
  // The re-check's state, from meta.db at start.
  Status LoadScopeRecheck();

  // --- SITE DELETE of a large site (frontier_site_delete.cc) ---
  //
  // Deletes the queue or timer entry of `rec` (stored at `key`), a URL of
  // the deleted site `site_fp`, by its state, and its value (data.db); an
  // entry already gone is no error. The record itself is the caller's to
  // delete.
  Status DeleteEntryOfUrl(DbTxn* t, uint64_t site_fp, const UrlKey& key,
                          const UrlRecord& rec);
  // Deletes the robots.txt state (policy.db) of the deleted site's
  // `origins`: an origin belongs to one host, so to one site.
  Status DeleteOrigins(DbTxn* t, const std::set<uint64_t>& origins);
  // Takes the deleted `site` out of the scheduler, the caches and the
  // counters (its URL counts too when `with_urls`: the tombstone's case).
  void ForgetSite(uint64_t site_fp, const SiteRecord& site, bool with_urls);
  // PURGE's removal of one URL (frontier_purge.cc): its queue entry,
  // lease or timer and value go, and its site's and the crawl's counts;
  // the record is the caller's to delete.
  Status PurgeOne(DbTxn* t, const UrlKey& key, UrlRecord* rec, int64_t now_ms);
  // Tick's share: one slice of the removal of the first deleting site.
  Status TickDeletes(TickResult* result);

  // U's LoadUrl: urls_.Load(), but NotFound for a URL of a site being
  // deleted (every verb treats it as absent).
  Status LoadUrl(DbTxn* t, const UrlKey& key, UrlRecord* rec);
  // Writes the transaction's dirty site records (sites_.WriteDirty), each
  // with its stored head, and those whose head alone moved.
  Status WriteDirtySites(DbTxn* t);
  // The head to store in `rec` (SiteRecord::head): the site's first queue
  // key in this transaction, none if it has no queued URL.
  Status StoredHeadOf(DbTxn* t, uint64_t site_fp, const SiteRecord& rec,
                      std::optional<QueuePos>* head);
  // Writes the counters records (every crawl's) in transaction `t`.
  Status PutCounters(DbTxn* t);
  // Writes the counters record in a transaction of its own, committed
  // with `commit_flags`.
  Status SaveCounters(u_int32_t commit_flags = 0);
  // A URL's position in its site's queue, by the queue order.
  QueuePos PosOf(const UrlRecord& rec, const UrlKey& key) const;
  // A URL into and out of Q (queue_), with its state and its site's count.
  Status Enqueue(DbTxn* t, const UrlKey& key, UrlRecord* rec,
                 SiteRecord* site);
  Status Dequeue(DbTxn* t, const UrlKey& key, const UrlRecord& rec,
                 SiteRecord* site);
  // Re-derives the site's place in the scheduler from its record.
  Status PlaceSite(DbTxn* t, uint64_t site_fp, const SiteRecord& site,
                   int64_t now_ms);
  // Moves the state counters, the server's and `site`'s, for a URL of
  // `site` leaving `from` and entering `to`. The site's queued and leases
  // counts are kept by Enqueue/Dequeue/EndLease and POP instead.
  void CountMove(SiteRecord* site, std::optional<StoredState> from,
                 std::optional<StoredState> to);
  // Counts a CONFIRM's STATUS in confirmed_2xx ... confirmed_5xx (1xx is
  // not counted: no fetch ends with one).
  void CountStatusClass(int status);
  // Loads the site `name` (a new record if it has none), applies `change`
  // and stores and re-places it, in one transaction.
  Status UpdateSite(const std::string& name, int64_t now_ms,
                    const std::function<void(SiteRecord*)>& change);
  // --- Partitions (frontier_partitions.cc) ---
  // Counts a site record created by this transaction.
  void CountNewSite(const SiteRecord& site);
  // A FAIL's back-off (frontier_blocks.cc): blocks `site` for the
  // Retry-After or the series' next delay and counts it. A back-off
  // reported while the site is blocked already (a fetch that began before
  // the block) may lengthen the block but does not advance the series.
  void BackOff(const FailOptions& options, int64_t now_ms, SiteRecord* site);
  // Loads `url`'s record into *rec inside `t` and sets *leased: whether it
  // is that URL's (not a fingerprint twin's) and the URL is leased. An
  // unknown URL is OK with *leased false (frontier_leases.cc).
  Status LoadLeased(DbTxn* t, const Resolved& url, UrlRecord* rec,
                    bool* leased);
  // Puts a URL that left its lease back: queued at once (delay_ms <= 0),
  // or scheduled for now_ms + delay_ms.
  Status Requeue(DbTxn* t, const UrlKey& key, UrlRecord* rec,
                 SiteRecord* site, int64_t delay_ms, int64_t now_ms);
  // Takes `rec` out of the queue, its lease or its Qc date, whichever its
  // state holds (nothing for done, dead, excluded), before a state change.
  Status Detach(DbTxn* t, const UrlKey& key, const UrlRecord& rec,
                SiteRecord* site);
  // Ends a lease held by `rec` (timer entry and the site's lease count).
  Status EndLease(DbTxn* t, const UrlKey& key, const UrlRecord& rec,
                  SiteRecord* site);

  // The part of Init() after the directory lock: the environment (with
  // recovery), the databases, the layout check and the scheduler. Also
  // what RetryWrites() runs again after DB_RUNRECOVERY.
  Status OpenEnvironment(int64_t started_ms);
  // Closes the databases and the environment without a checkpoint,
  // ignoring errors (a panicked environment reports DB_RUNRECOVERY on
  // close but frees its handles all the same). Keeps the directory lock.
  void CloseEnvironment();
  // Starts file_syncer_ on the database files (frontier_writeback.cc).
  void StartFileSyncer();
  Status CheckLayout();
  Status RebuildScheduler();
  // The site journal (frontier_journal.cc, storage/journal.h). At open,
  // before the scheduler is built: replays the journal from meta.db's
  // replay point, writes every record replayed to sites.db and drops the
  // replay point, in one transaction; nothing to do without one.
  Status ReplayJournal();
  // After the crawls are open: journal mode on (single node, one crawl,
  // FrontierOptions::site_journal), its first replay point stored.
  Status StartJournal();
  // Journal mode off: everything pending written, the leases held in
  // memory and the `replayed` ones (deadline, key) put in Qc, and the
  // replay point dropped, in one transaction (before another crawl
  // becomes current).
  Status StopJournal(
      const std::vector<std::pair<int64_t, UrlKey>>* replayed = nullptr);
  // One write-back transaction: up to `max` of the oldest pending site
  // records (all if `all`) go to sites.db with the new replay point.
  Status WriteBackJournal(size_t max, bool all);
  // Removes (through the FileSyncer) the log files neither recovery, a
  // replica nor the journal's replay point needs.
  Status RemoveUnusedLogs();
  // Replication (frontier_replication.cc). OK without replication.
  // Before DbEnv::open: configures repl_ and adds its flags to *flags.
  Status ConfigureReplication(u_int32_t* flags);
  // After it: starts the Replication Manager, waits for a role.
  Status StartReplication();
  // Loop thread, before a write transaction: READONLY on a replica,
  // NOREPLICAS when a quorum cannot be reached; on a site just promoted
  // to master, first CatchUpPromotion().
  Status CheckWritable();
  // On a site elected master since the last successful call: its
  // in-memory state (scheduler, timers, counters, every crawl's) built
  // again from the replicated data. Called before a write, and before POP
  // and Tick read that state; OK and nothing done otherwise. A failed
  // rebuild is noted as a write failure and tried again at the next call.
  Status CatchUpPromotion();
  // Opens the default crawl's databases and the shared ones in env_
  // (frontier_open.cc): at Open, and again by ReopenDeadHandles.
  Status OpenDatabases();
  // Every database the members hold (the current crawl's and the shared
  // ones), for closing them all.
  std::array<bdb::Database*, 8> Databases();
  // What Open builds in memory from the data: the layout check and the
  // counters, the scheduler, the robots re-checks, the sites being
  // deleted, the scope re-check.
  Status LoadState();
  // Sites are hosts (politeness-scope host), not domains.
  bool ByHost() const { return opts_.politeness_scope == SiteScope::kHost; }
  // A write may be committed from here: single node, or the master.
  bool IsWritable() const { return !repl_ || repl_->is_master(); }
  // Of the log files a checkpoint left unneeded (oldest first), keeps in
  // *paths only those to remove: with replication, the newest ones whose
  // sizes add up to repl-log-retain stay for replicas that fall behind.
  void KeepLogsForReplicas(std::vector<std::string>* paths) const;
  // RebuildScheduler's pass over sites.db inside `t` (whose cursors are
  // the transaction's): places every site with queued URLs or leases,
  // sums the state counters and caches the kLargestSitesAtOpen sites
  // holding the most URLs (so that LargestSites lists them after a
  // restart, before the crawl touches them).
  Status PlaceEverySite(DbTxn* t);

  // --- Crawls (frontier_crawls.cc; docs/design.md "Crawls") ---
  //
  // The current crawl's Tick (frontier_timers.cc).
  StatusOr<TickResult> TickCrawl(int64_t now_ms);
  // Exchanges the per-crawl members (databases, scheduler, counters,
  // caches) with *space.
  void SwapCrawlState(CrawlSpace* space);
  // Makes `space` current. Commits the open pass's transaction first (a
  // transaction holds one crawl's writes); if that fails, the rest of
  // the pass is doomed with its error. Not inside a RunWrite body.
  void SwitchTo(CrawlSpace* space);
  // At open, after the default crawl's databases: crawls.db, then every
  // registered crawl's databases, counters and scheduler.
  Status OpenCrawls();
  // Opens the databases of crawl `space` (not current) inside `txn`
  // (nullptr: each in its own transaction).
  Status OpenCrawlDatabases(CrawlSpace* space, DbTxn* txn);
  // The pause switch from the default crawl's meta.db (at open).
  Status LoadPaused();
  // The current crawl's counters from its meta.db "stats" (none: zeros).
  Status LoadCrawlCounters();
  // Creates crawl `name` (registry entry and empty databases, one
  // transaction) and makes it current.
  Status CreateCrawl(std::string_view name);
  // Closes every crawl's databases and crawls.db and forgets the crawls,
  // the default one's state left in the members (CloseEnvironment, Close).
  Status CloseCrawls(bool sync);
  // The per-site state shared across crawls: records the current crawl's
  // hold on `site_fp` from `site`, and tells whether the other crawls'
  // holds keep it from being fetched at `now_ms`.
  void GateSet(uint64_t site_fp, const SiteRecord& site, int64_t now_ms);
  bool GateHolds(uint64_t site_fp, const SiteRecord& site,
                 int64_t now_ms) const;

  FrontierOptions opts_;
  SitePolicy site_policy_{&opts_};  // what opts_ makes of a site record
  UrlResolver resolver_{&opts_};    // URLs and site arguments, keyed
  // Crawls: every crawl by name, the default one included. The current
  // crawl's state is in the members below; its entry holds nothing
  // meanwhile. crawls_db_ is the registry (name -> id, and the next id).
  std::map<std::string, std::unique_ptr<CrawlSpace>, std::less<>> crawls_;
  CrawlSpace* current_ = nullptr;
  std::string crawl_name_{Frontier::kDefaultCrawl};
  uint32_t crawl_id_ = 0;
  uint32_t next_crawl_id_ = 1;
  HostGate gate_;
  bool gate_on_ = false;  // more than one crawl: consult and keep gate_
  bool paused_ = false;   // SetPaused(): no hand-outs
  // The log files' and the directory's syncs, in opts_.dir as it was at
  // construction (SyncLog() runs on the server's thread, and opts_ may be
  // reassigned by UpdateOptions() meanwhile).
  LogDurability durability_;
  int lock_fd_ = -1;
  int64_t open_ms_ = 0;
  bool closed_ = true;
  // With replication: the env's event callback points at it, so it is
  // declared before env_ (destroyed after it).
  std::unique_ptr<Replicator> repl_;
  // Between BeginBackup() and EndBackup(): no log file is removed (by a
  // checkpoint or RetryWrites), so the backup's copy finds them all.
  bool backup_pinned_ = false;
  bdb::EnvPtr env_;  // declared before the databases: closed after them
  // The tables the verbs compose, each owning its database (the current
  // crawl's; docs/design.md, "Storage's parts"): U, Q (which reads the
  // heads sched_ tracks), Qc, the site records and the robots.txt state.
  SiteScheduler sched_;
  UrlTable urls_;
  SiteQueues queue_{&sched_};
  TimerTable timers_;
  SiteTable sites_;
  RobotsStore robots_;             // shared by every crawl
  bdb::Database meta_, excluded_;  // excluded: robots.txt, policy_records.h
  UrlValues values_;         // per-URL values (ADD ... DATA), keyed as urls_
  bdb::Database crawls_db_;  // the crawl registry, shared
  SiteBlocks blocks_;  // blocked sites, for STATS (PlaceSite keeps it)
  std::mt19937_64 jitter_rng_{std::random_device{}()};  // back-off jitter
  FrontierStats stats_;
  PartitionCounters part_counts_;  // PartitionInfo()'s, beside sched_'s
  // What an aborted write puts back (BeginWrite saves it).
  FrontierStats saved_stats_;
  std::optional<int64_t> saved_timer_min_;  // timers_.min()
  // The pass (BeginPass .. EndPass): open, its transaction once a verb
  // wrote, and the storage error that doomed it.
  bool in_pass_ = false;
  bdb::Txn pass_txn_;
  bool pass_txn_open_ = false;
  // bdb::HandlesDead() when ReopenDeadHandles last succeeded.
  uint64_t handles_dead_seen_ = 0;
  // Elected master, and the in-memory state not yet rebuilt from the data
  // (CatchUpPromotion): set by a promotion, cleared by a rebuild that
  // succeeds.
  bool promotion_pending_ = false;
  // OK but in test builds (frontierd_faults, frontier_pass.cc), where a
  // rebuild after a promotion can be made to fail midway on demand.
  Status PromotionRebuildFault() const;
  Status pass_error_;
  uint32_t pass_writes_ = 0;          // RunWrite calls in the pass
  std::set<uint64_t> touched_sites_;  // sites placed during a transaction
  // Sites whose URL records Tick is removing (SITE DELETE of a large site).
  SiteTombstones tombstones_;
  uint64_t delete_site_bound_ = Frontier::kDeleteSiteMaxRecords;
  // Origins whose excluded URLs wait for a re-check (Tick works them off).
  std::set<uint64_t> rechecks_;
  // The scope re-check (meta.db "scope-recheck", rewritten with each
  // slice): its counts, and the urls.db key its next slice starts at.
  ScopeRecheck scope_recheck_;
  std::string scope_recheck_next_;
  std::mt19937_64 robots_rng_{std::random_device{}()};  // back-off jitter
  // A host's site under a scope, remembered for kDomain (the verbs' links
  // mostly share a few hosts).
  SiteNameCache site_names_;
  // Group commit bookkeeping: transactions committed, and how many of them
  // the last FlushLog() made durable.
  std::atomic<uint64_t> commit_seq_{0};
  std::atomic<uint64_t> flushed_seq_{0};
  // commit_seq_ just after the counters record was last written.
  uint64_t counters_saved_seq_ = 0;
  // The write failure since the last successful RetryWrites() (see
  // WriteStatus()); noted from any thread.
  WriteFailure write_failure_;
  // WriteBehind(): when the last slice ran, and the pages written so far.
  int64_t write_behind_ms_ = 0;
  int64_t journal_slice_ms_ = 0;  // the last journal write-back slice
  uint64_t journal_replayed_ = 0;  // journal records replayed at open
  CheckpointParts last_checkpoint_;
  uint64_t pages_written_behind_ = 0;
  // Syncs the database files behind the write-behind while the
  // environment is open (see FileSyncer).
  std::unique_ptr<FileSyncer> file_syncer_;
};

}  // namespace frontier
