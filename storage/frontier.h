// Frontier: the URL database of Dorosz's model (U, Q, Qc) grouped by site,
// with per-site politeness, leases and recrawl dates, kept in a Berkeley DB
// transactional environment.
//
// Its API is the frontier's verbs over plain C++ types; it knows nothing of
// sockets or RESP. Every mutating call happens whole or not at all (an
// error leaves nothing changed): one Berkeley DB transaction of its own, or
// part of the caller's pass (BeginPass/EndPass below). The types it takes
// and returns are in frontier_options.h and frontier_types.h.
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

#include "policy/politeness.h"
#include "partition/partition_map.h"
#include "scope/scope.h"
#include "storage/backup_copy.h"
#include "storage/frontier_options.h"
#include "storage/frontier_types.h"
#include "storage/replication_state.h"
#include "util/status.h"
#include "url/url.h"

namespace frontier {

struct ImportBatch;  // storage/import_records.h
enum class ImportOutcome;

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
  // unknown or empty ref gives depth 1. A value (options.data) longer than
  // max_url_data is InvalidArgument and nothing is stored.
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
  // MADD ref DATA url data ...: AddMany() where link i carries the value
  // data[i] (AddOptions::data; a known link keeps its value). `data` must
  // be as long as `urls`, and no value longer than max_url_data: else
  // InvalidArgument and nothing is stored.
  virtual StatusOr<std::vector<StatusOr<AddOutcome>>> AddManyWithData(
      std::string_view ref, const std::vector<std::string_view>& urls,
      const std::vector<std::string_view>& data, int64_t now_ms) = 0;

  // A MADD's links that another shard than their ref's stores
  // (docs/cluster.md): AddMany() (data null) or AddManyWithData() of the
  // links, with what the ref's own shard read of the ref: its depth
  // (nullopt if unknown there) and its site under depth-scope. A link
  // gets the depth a MADD on one node would give it. The ref URL itself
  // is still read here for the scope's ref rules.
  struct RemoteRef {
    std::string_view url;
    std::optional<int> depth;
    std::string_view depth_site;
  };
  virtual StatusOr<std::vector<StatusOr<AddOutcome>>> AddLinksOfRemoteRef(
      const RemoteRef& ref, const std::vector<std::string_view>& urls,
      const std::vector<std::string_view>* data, int64_t now_ms) = 0;

  // POP COUNT n LEASE ms: up to `count` URLs from ready sites, first in Q
  // order, each leased until now + lease_ms (lease_ms <= 0: lease_timeout).
  // Runs Tick(now_ms) first. Returns the normalised URLs (possibly none).
  virtual StatusOr<std::vector<std::string>> Pop(size_t count, int64_t lease_ms,
                                                 int64_t now_ms) = 0;

  // POP ... WITHDATA: Pop() (partition nullopt) or PopPartition(), each
  // URL with its value, read in the same transaction.
  virtual StatusOr<std::vector<PoppedUrl>> PopWithData(
      std::optional<size_t> partition, size_t count, int64_t lease_ms,
      int64_t now_ms) = 0;

  // POP ... SITE site (URL Frontier's GetURLs with a key): PopWithData()
  // from the one site that `site` names (a host, a domain or a URL, as
  // SetSiteDelay maps it); nothing while that site is not ready.
  // InvalidArgument for a bad site (frontier_data.cc).
  virtual StatusOr<std::vector<PoppedUrl>> PopSite(std::string_view site,
                                                   size_t count,
                                                   int64_t lease_ms,
                                                   int64_t now_ms) = 0;
  // Pop() limited to the sites of partition `partition` (an index in
  // options().partitions; InvalidArgument if out of range). Never looks at
  // another partition's sites.
  virtual StatusOr<std::vector<std::string>> PopPartition(size_t partition,
                                                          size_t count,
                                                          int64_t lease_ms,
                                                          int64_t now_ms) = 0;

  // True if the URL was known and not done (see docs/commands.md).
  virtual StatusOr<bool> Confirm(std::string_view url,
                                 const ConfirmOptions& options,
                                 int64_t now_ms) = 0;
  // True if the URL was leased. options.delay_ms > 0 requeues it after
  // that long. A status in backoff_status_codes backs the site off: the
  // site is blocked (see FrontierOptions) and the URL goes back without
  // counting an attempt; a CONFIRM of any of the site's URLs ends the
  // series. Any other FAIL counts an attempt.
  virtual StatusOr<bool> Fail(std::string_view url, const FailOptions& options,
                              int64_t now_ms) = 0;
  // EXTEND (frontier_leases.cc): true if the URL is leased; its lease then
  // ends at now_ms + lease_ms (which may also be sooner than before).
  // InvalidArgument, changing nothing, if lease_ms <= 0.
  virtual StatusOr<bool> Extend(std::string_view url, int64_t lease_ms,
                                int64_t now_ms) = 0;
  // RELEASE (frontier_leases.cc): true if the URL was leased; it goes back
  // to the queue at once (delay_ms == 0) or after delay_ms, without
  // counting an attempt, and its site's lease slot is free at once.
  // InvalidArgument, changing nothing, if delay_ms < 0.
  virtual StatusOr<bool> Release(std::string_view url, int64_t delay_ms,
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
  // Read-only: the URL's record, its value included, or nullopt if unknown.
  virtual StatusOr<std::optional<UrlInfo>> Info(std::string_view url) = 0;
  // Sets the politeness delay of the site that `site` names (a host, a
  // domain or a URL; mapped through politeness-scope). delay_ms < 0 restores
  // the default. Persistent.
  virtual Status SetSiteDelay(std::string_view site, int64_t delay_ms,
                              int64_t now_ms) = 0;
  // SITE BLOCK (frontier_blocks.cc): the site that `site` names (as for
  // SetSiteDelay) hands out nothing until now_ms + block_ms; block_ms == 0
  // ends any block at once (the back-off series is left as it is). The
  // block replaces the one in force, longer or shorter. Persistent.
  // InvalidArgument, changing nothing, for a bad site or block_ms < 0.
  virtual Status BlockSite(std::string_view site, int64_t block_ms,
                           int64_t now_ms) = 0;

  // --- Sites, for operators (frontier_sites.cc; docs/commands.md#site) ---
  //
  // In each, `site` is a host, a domain or a URL, mapped through
  // politeness-scope as SetSiteDelay does; anything else is
  // InvalidArgument "invalid site '<site>': ...".
  //
  // Read-only: the site's state at `now_ms`, or nullopt if the frontier
  // has no record of it.
  virtual StatusOr<std::optional<SiteInfo>> GetSiteInfo(std::string_view site,
                                                        int64_t now_ms) = 0;
  // Read-only, SCAN-style: examines up to `count` (>= 1) site records in
  // key order from `cursor` (0 starts) and returns those that pass
  // `filter` at `now_ms`, and the cursor to continue from (0 when the
  // scan is complete). Every site present for the whole scan is returned
  // exactly once; a page may be empty while the scan goes on.
  virtual StatusOr<SitePage> ListSites(SiteFilter filter, uint64_t cursor,
                                       size_t count, int64_t now_ms) = 0;
  // Read-only: up to `n` sites with the most queued URLs, most first
  // (ties by name). Exact while there are at most kTopSitesScanMax site
  // records; beyond that, the largest among the first kTopSitesScanMax in
  // key order (hash order: a uniform sample) and the cached recently
  // touched sites. Reads at most kTopSitesScanMax records.
  static constexpr size_t kTopSitesScanMax = 100'000;
  virtual StatusOr<std::vector<SiteSize>> TopSites(size_t n) = 0;
  // Sets the site's own URL cap (n > 0), or restores site-max-urls (0).
  // Creates the site's record if it has none. Persistent.
  virtual Status SetSiteLimit(std::string_view site, uint64_t max_urls,
                              int64_t now_ms) = 0;
  // Sets the site's cap on done URLs (limit > 0), or removes it (0): once
  // the site has `limit` done URLs in the current crawl, none of its URLs
  // is handed out (its queued ones stay queued; a higher cap, or none,
  // hands them out again). Creates the site's record if it has none.
  // Persistent (frontier_limits.cc).
  virtual Status SetSiteDoneLimit(std::string_view site, uint64_t limit,
                                  int64_t now_ms) = 0;
  // Removes the site's record and all its URLs (queue entries, leases,
  // retry and recrawl dates, values) and returns how many URLs the site had (0
  // for an unknown site). Once it returns, none of them is handed out,
  // Seen() says false for each and the counters no longer hold them. A
  // site whose removal reads at most kDeleteSiteMaxRecords URL records
  // (under politeness-scope host the site's own, its host's key range;
  // under domain every URL record: a domain's hosts have no index) is
  // removed in this one transaction. A larger one leaves a durable
  // tombstone: its records read as absent, Tick() removes them in
  // bounded slices (TickResult::more_due while some remain; a restart
  // resumes), and an Add() of one of its URLs is refused until then.
  static constexpr uint64_t kDeleteSiteMaxRecords = 100'000;
  virtual StatusOr<uint64_t> DeleteSite(std::string_view site,
                                        int64_t now_ms) = 0;

  // --- URLs, for operators (frontier_url_scan.cc; docs/commands.md#urls)
  //
  // Read-only, SCAN-style: examines up to `count` (>= 1) URL records of
  // the current crawl in stored order (grouped by host) from `cursor`
  // ("0" starts) and returns those that pass `filter`, and the cursor to
  // continue from ("0" when the scan is complete). Every URL present for
  // the whole scan is returned exactly once; a page may be empty while the
  // scan goes on. With a site under politeness-scope host only that
  // host's records are read. The frontier's own robots.txt fetches are
  // not listed. InvalidArgument for a bad cursor or site.
  virtual StatusOr<UrlPage> ListUrls(const UrlFilter& filter,
                                     std::string_view cursor,
                                     size_t count) = 0;
  // PURGE, one slice (frontier_purge.cc; URL Frontier's PurgeURLs): in
  // one transaction, examines up to `count` (>= 1) URL records of the
  // current crawl in ListUrls's order from `cursor` and removes those of
  // `site` (empty: every site) first stored before `created_before_ms`
  // (records from before version 3, without a date, count as older than
  // any date), whatever their state: queued (out of the queue), leased
  // (the lease ends, as SITE DELETE ends it), scheduled, done, dead or
  // excluded; their values go too. Returns how many it removed and the
  // cursor of the next slice ("0" when done). The counts move in the same
  // transaction, so a crash between slices leaves them exact and a purge
  // started again from "0" removes only what is left. The frontier's own
  // robots.txt fetches stay. InvalidArgument for a bad cursor or site.
  virtual StatusOr<UrlPurgePage> PurgeUrls(std::string_view site,
                                           int64_t created_before_ms,
                                           std::string_view cursor,
                                           size_t count, int64_t now_ms) = 0;

  // --- robots.txt (frontier_robots.cc; docs/robots.md) ---
  //
  // ROBOTS GET: the origin of `origin_or_url` (an origin or any URL of it)
  // and its robots state; nullopt if the frontier never met that origin.
  // InvalidArgument if it is not a URL.
  virtual StatusOr<std::optional<RobotsInfo>> RobotsGet(
      std::string_view origin_or_url) = 0;
  // ROBOTS SET: stores `body` with HTTP `status` (100..599) for `origin`
  // as if its robots.txt had just been fetched, with the same effects as
  // CONFIRM <origin>/robots.txt STATUS status BODY body. InvalidArgument
  // if `origin` is not an origin (a URL with a path other than "/", a
  // query or a fragment is refused) or the status is out of range.
  virtual Status RobotsSet(std::string_view origin, int status,
                           std::string_view body, int64_t now_ms) = 0;
  // ROBOTS CHECK: true if the rules of the URL's origin allow it, false if
  // they disallow it, nullopt if no rules are known (never fetched, or
  // unreachable with no earlier rules). Expired rules still answer.
  virtual StatusOr<std::optional<bool>> RobotsCheck(std::string_view url) = 0;

  // --- Crawl scope (frontier_scope.cc; docs/commands.md#scope) ---
  //
  // SCOPE RECHECK: starts a re-check of every queued URL against the
  // scope in force (options().scope, without its ref rule: a URL's ref is
  // not stored), or starts it over if one is running. Tick() runs it in
  // bounded slices (TickResult::more_due while it runs); each slice
  // deletes the queued URLs out of scope, as if they had never been
  // added (Seen() then says false; an ADD of one is judged anew), and
  // commits with its position, so a restart resumes where the last
  // slice ended. Leased, scheduled, done, dead and excluded URLs, and the
  // robots.txt fetches the frontier queues itself, are left alone.
  virtual Status StartScopeRecheck(int64_t now_ms) = 0;
  // Read-only: the re-check's progress.
  virtual ScopeRecheck ScopeRecheckProgress() const = 0;

  // --- The node-wide pause (frontier_limits.cc; URL Frontier's SetActive)
  //
  // SetPaused(true) stops every hand-out, in every crawl: Pop(),
  // PopWithData() and PopPartition() return nothing and HasReady() and
  // HasReadyIn() say false until SetPaused(false); every other verb works
  // as usual (URLs are added, confirmed, leases run out). The switch is
  // stored in the default crawl's meta.db, in a transaction of its own
  // (an open pass is ended first), so it holds across restarts and
  // kill -9. Paused() is the switch in force (false on a new frontier).
  virtual Status SetPaused(bool paused) = 0;
  virtual bool Paused() const = 0;

  // --- Crawls (frontier_crawls.cc; docs/design.md "Crawls") ---
  //
  // A crawl is a namespace: its own URLs, queue, timers, site records,
  // values and counters. Every verb above works in the current crawl,
  // which is kDefaultCrawl until UseCrawl() names another; the default
  // crawl is the directory's original databases. Politeness (delays,
  // leases per site, blocks and back-offs) holds per site across crawls.
  static constexpr std::string_view kDefaultCrawl = "DEFAULT";
  static constexpr size_t kMaxCrawlName = 255;
  // Whether `name` may name a crawl: 1 to kMaxCrawlName bytes, no space,
  // no control character, and not LIST, INFO or DELETE (any case).
  static bool ValidCrawlName(std::string_view name);
  // Makes `name` the current crawl, creating it (durably, in one
  // transaction) if it does not exist. InvalidArgument for a bad name;
  // IOError if it cannot be created. Switching crawls commits the open
  // pass's transaction first; if that commit fails, the rest of the pass
  // fails with it (EndPass() reports the error).
  virtual Status UseCrawl(std::string_view name) = 0;
  // The current crawl's name.
  virtual const std::string& CurrentCrawl() const = 0;
  // Every crawl's name, kDefaultCrawl first, then in byte order.
  virtual std::vector<std::string> ListCrawls() const = 0;
  // The counters (Stats()) of crawl `name`; nullopt if there is none.
  virtual std::optional<FrontierStats> CrawlStats(
      std::string_view name) const = 0;
  // CRAWL DELETE: removes crawl `name` and everything in it, in one
  // transaction that drops its databases (their files go at commit, so
  // the answer does not depend on the crawl's size); true if it existed.
  // The default crawl cannot be deleted (InvalidArgument). If it was the
  // current crawl, the default crawl becomes current; a later UseCrawl()
  // of the name starts an empty crawl.
  virtual StatusOr<bool> DeleteCrawl(std::string_view name) = 0;

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
  // Up to `n` of the largest sites by URLs held (ties by name) among those
  // in the in-memory site cache (the sites the crawl touched lately, at
  // most 64K of them, and after an open the kLargestSitesAtOpen largest):
  // bounded work, no disk read. Largest first.
  virtual std::vector<SiteSize> LargestSites(size_t n) const = 0;
  static constexpr size_t kLargestSitesAtOpen = 64;
  // The cache's hits and misses (DbEnv::memp_stat); IOError if Berkeley DB
  // cannot report them.
  virtual StatusOr<CacheCounters> CacheStats() const = 0;
  // The log's bytes and records so far (DbEnv::log_stat); IOError if
  // Berkeley DB cannot report them or the frontier is closed.
  virtual StatusOr<LogCounters> LogStats() const = 0;

  // The settings in use.
  virtual const FrontierOptions& options() const = 0;
  // CONFIG SET: takes the runtime-tunable fields of `options`
  // (lease_timeout_ms, max_depth, depth_scope, site_max_urls,
  // politeness_delay_ms, site_max_leases, default_priority, max_attempts,
  // max_url_length, backoff_*, robots_*, partitions, and the adaptive
  // politeness and recrawl settings) and ignores the others, which the
  // stored layout or the open environment fixed. New values apply from the
  // next call: leases already given keep their deadlines, waiting sites
  // their next-allowed time, blocked sites their blocks. A new
  // site_max_leases re-places every site with queued URLs (one pass over
  // the sites, as at start), and so does a new partition map: no record is
  // rewritten and leases keep their deadlines. An error from that pass (an
  // I/O error) is returned; the options are then unchanged.
  virtual Status UpdateOptions(const FrontierOptions& options,
                               int64_t now_ms) = 0;
  // How long Open() took, recovery included, in milliseconds (for the log).
  virtual int64_t open_ms() const = 0;

  // Replication (docs/replication.md): this site's role and its group as
  // it knows it; role kNone with replication no. With replication, a
  // write on a replica fails with ReadOnly, one on a master that reaches
  // too few peers for a quorum with NoReplicas (nothing written), a pass
  // a passing lock conflict aborted with TryAgain (nothing stored), and a
  // commit (EndPass, or a verb outside a pass) that a quorum did not
  // acknowledge in time with NotAcknowledged: it is committed here, and
  // may or may not survive a failover.
  virtual ReplicationState Replication() const = 0;
  // Any thread. `listener` is called for each Replication Manager event
  // (see ReplicationListener); never with replication no. nullptr stops;
  // once this returns the previous listener is not called again.
  virtual void SetReplicationListener(ReplicationListener listener) = 0;
  // The group's directory (docs/replication.md, "Finding the master"):
  // where clients reach each site, as text the server writes and reads
  // (opaque here), kept in the replicated meta.db so that every site
  // reads what the master wrote. Put: a write (READONLY on a replica,
  // NOREPLICAS or NOQUORUM as any write); Get: "" while none was put.
  virtual Status PutGroupDirectory(std::string_view text) = 0;
  virtual StatusOr<std::string> GroupDirectory() = 0;
  // Loop thread, between passes: after a storage call returned
  // DB_REP_HANDLE_DEAD (a demoted master's unacknowledged tail rolled back
  // under its open handles; such a call fails Busy "... retry"), closes
  // every database handle and opens it again, and rebuilds the in-memory
  // state from the data (as a promotion does): true. False and nothing
  // done otherwise (also inside a pass's open transaction); an error (e.g.
  // the databases still locked out while the site syncs with its master)
  // is tried again by the next call.
  virtual StatusOr<bool> ReopenDeadHandles() = 0;
  // Loop thread, on a replica (nothing elsewhere): writes and syncs the
  // log it received if it grew since the last call. A replica acknowledges
  // the master's records once they are in its log buffer, not on disk; a
  // replica killed before this loses that tail, group membership changes
  // included (docs/replication.md, "Two restarted sites"). IOError if the
  // sync fails.
  virtual Status SyncReplicaLog() = 0;
  // The shard's record of what it owns in a cluster (docs/cluster.md,
  // "What a shard owns"; cluster/shard_record.h), as text the server
  // writes and reads (opaque here), in the replicated meta.db like the
  // directory, with the same errors. Get: "" while none was put.
  virtual Status PutClusterRecord(std::string_view text) = 0;
  virtual StatusOr<std::string> ClusterRecord() = 0;
  // Removes the site whose replication address is `site` from the group
  // (Replicator::RemoveSite); InvalidArgument with replication no.
  virtual Status RemoveReplicationSite(const ReplicationSite& site) = 0;
  // Loop thread, outside a pass's open transaction: a step of a planned
  // hand-over of the master role (Replicator::Handover); InvalidArgument
  // with replication no. kTakeOver then rebuilds the in-memory state, as
  // after an election, and commits the new master's first record in a
  // transaction of its own that waits for no acknowledgement (the
  // replicas finish their sync with a new master once a record comes).
  virtual Status HandoverStep(frontier::HandoverStep step) = 0;

  // --- Passes: one transaction for many verbs (docs/design.md, "One
  // transaction per pass") ---
  //
  // Between BeginPass() and EndPass() every write verb (and Tick) runs in
  // one Berkeley DB transaction, the pass's, begun by the first of them:
  // they share its cursors, each site record they change is written once,
  // at EndPass(), and the pass costs one commit. Verbs validate their input
  // before their first write, so a verb's own error (InvalidArgument)
  // changes nothing and does not touch the pass. A storage error in a verb
  // dooms the pass: that verb and every later one of the pass return it
  // without running, and EndPass() aborts. Reads in a pass see its writes.
  // Outside a pass each verb is its own transaction, as before.
  //
  // Nothing of a pass is committed, let alone durable, before EndPass():
  // the caller holds every reply of the pass until then. FlushLog,
  // WriteLog, WriteBehind, Checkpoint, Backup, UpdateOptions, RetryWrites
  // and Close end an open pass first (as EndPass() would) and fail with its
  // error if it fails; a server that tracks which replies a commit covers
  // calls EndPass() itself before them.
  //
  // BeginPass() while a pass is open does nothing.
  virtual void BeginPass() = 0;
  // Commits the pass (if any verb wrote). On failure the transaction is
  // aborted, every change of the pass is undone, in memory too, and the
  // error is returned (IOError for a full disk, etc.); the caller answers
  // each command of the pass with it. Outside a pass: OK.
  virtual Status EndPass() = 0;

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
  // The parts of the last Checkpoint() that succeeded, for the log.
  virtual CheckpointParts last_checkpoint() const = 0;
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

  // --- Hot backup (frontier_backup.cc, storage/backup_copy.h) ---
  //
  // A backup in three steps, so that a server can copy on a thread of its
  // own while its loop goes on (docs/operations.md, "Backup and restore"):
  //
  // BeginBackup(target_dir) checks the target, which must be an absolute
  // path that does not exist yet, or an empty directory, outside the data
  // directory; ends an open pass; checkpoints (so the copy is small and
  // recovers fast) and flushes the log, so that the files on disk hold
  // every transaction committed before the call; creates
  // "<target_dir>.partial" (replacing a leftover of an interrupted
  // backup); and pins the log files: none from the plan's first_log on is
  // removed until EndBackup(). Returns the plan for CopyBackup(), which
  // runs on any thread without calling this object. InvalidArgument for a
  // bad target or while another backup holds the pin (one at a time);
  // IOError if the checkpoint or flush fails (nothing is pinned then).
  virtual StatusOr<BackupPlan> BeginBackup(const std::string& target_dir) = 0;
  // Releases the pin of BeginBackup(), after CopyBackup() returned (or
  // will never run). Logs kept for it go at the next checkpoint. Does
  // nothing without a pin.
  virtual void EndBackup() = 0;
  // BeginBackup, CopyBackup and EndBackup in one call on the caller's
  // thread: blocks it for the copy. A frontierd started on the copy finds
  // every transaction committed before the call. Errors as BeginBackup's
  // and CopyBackup's (a failed copy is removed).
  virtual Status Backup(const std::string& target_dir) = 0;

  // --- Import (frontier_import.cc; types in import_records.h) ---
  //
  // Checks every item of `batch` (URL syntax, site names, states), then
  // applies the valid ones in one transaction: nothing of it is stored if
  // the transaction fails. The answer has one entry per item, in order: an
  // ImportOutcome, or InvalidArgument for an item refused (and skipped).
  // Merge rule: a URL or origin already known keeps its record (kKept); a
  // site's policy fields become the imported ones. Fails as a whole only on
  // a storage error.
  virtual StatusOr<std::vector<StatusOr<ImportOutcome>>> Import(
      const ImportBatch& batch, int64_t now_ms) = 0;
};

}  // namespace frontier
