// The plain value types the Frontier's verbs take and return
// (storage/frontier.h): outcomes, options of single verbs, the records a
// caller reads (URLINFO, STATS, SITE INFO, ROBOTS GET) and counters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "policy/politeness.h"

namespace frontier {

// kExcluded: disallowed by its origin's robots.txt (never handed out while
// the rules say so).
enum class UrlState { kQueued, kLeased, kDone, kScheduled, kDead, kExcluded };
const char* UrlStateName(UrlState state);  // "queued", "leased", ...

// ADD's answer for one URL. kOutOfScope: FrontierOptions::scope refused
// it (FrontierStats counts why).
enum class AddOutcome {
  kAdded = 1,
  kKnown = 0,
  kRefused = -1,
  kOutOfScope = -2
};

struct AddOptions {
  std::optional<int> priority;        // 0..9999; default_priority if unset
  std::optional<int64_t> recrawl_ms;  // > 0 sets r(K); unset or <= 0: none
  // The URL's value (DATA), stored in data.db with a new URL; any bytes,
  // at most max_url_data. A known URL keeps the value it has unless
  // replace_data: then `data` becomes its value, or, unset, it has none.
  // The view must outlive the call.
  std::optional<std::string_view> data;
  bool replace_data = false;
};

// A URL POP handed out and, when asked for (WITHDATA), its value: nullopt
// if it has none.
struct PoppedUrl {
  std::string url;
  std::optional<std::string> data;
};

// CONFIRM's report of the fetch (issue 8 §1, §3); every field optional.
// The server checks the ranges before calling: status in 100..599,
// fetch_ms >= 0. `body` (the fetched robots.txt) is for robots.txt URLs
// only (IsRobotsTxtUrl); on any other URL Confirm() refuses it with
// InvalidArgument and changes nothing. The view must outlive the call.
struct ConfirmOptions {
  std::optional<int> status;             // HTTP status of the fetch
  std::optional<int64_t> fetch_ms;       // how long the fetch took
  std::optional<bool> changed;           // CHANGED (true), UNCHANGED (false)
  std::optional<std::string_view> body;  // robots.txt body
};

// FAIL's report (issue 8 §2). `retry_after` is the HTTP Retry-After value
// as the site sent it (delay-seconds or an HTTP-date, RFC 9110 §10.2.3);
// one that does not parse is ignored, as a client ignores such a header.
struct FailOptions {
  int64_t delay_ms = 0;  // > 0: requeue after that long
  std::optional<int> status;  // HTTP status, 100..599 (checked by the caller)
  std::optional<std::string_view> retry_after;
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
  int64_t created_ms = 0;  // first stored; 0 if stored by a version before
  std::optional<std::string> data;  // its value; nullopt if none
};

// What the last Checkpoint() did and how long each part kept the loop
// (issue 19, step 6): the journal's write-back of pending site records and
// in-memory leases, Berkeley DB's txn_checkpoint (its dirty pages and the
// data files' syncs) and the removal of log files.
struct CheckpointParts {
  uint64_t sites_written = 0;  // pending site records written back
  uint64_t leases_moved = 0;   // in-memory leases written to Qc
  int64_t write_back_ms = 0;
  int64_t checkpoint_ms = 0;   // txn_checkpoint
  int64_t log_removal_ms = 0;
};

struct FrontierStats {
  uint64_t urls = 0, queued = 0, leased = 0, done = 0, scheduled = 0,
           dead = 0, excluded = 0, sites = 0, ready_sites = 0;
  // Sites whose block (SITE BLOCK, back-off) had not ended at the last
  // Tick(); in memory, like ready_sites.
  uint64_t blocked_sites = 0;
  uint64_t added = 0, duplicates = 0, refused = 0, popped = 0, confirmed = 0,
           failed = 0, expired = 0, recrawled = 0;
  // CONFIRMs that reported a STATUS, by class (issue 8 §3).
  uint64_t confirmed_2xx = 0, confirmed_3xx = 0, confirmed_4xx = 0,
           confirmed_5xx = 0;
  uint64_t backoffs = 0;  // FAILs whose STATUS backed their site off
  // Links Add()/AddMany() refused as out of scope, by the rule that
  // refused them (scope::Verdict), and queued URLs a scope re-check
  // removed.
  uint64_t scope_host = 0, scope_ref = 0, scope_query = 0, scope_path = 0,
           scope_deny = 0, scope_allow = 0, scope_removed = 0;
};

// A scope re-check's progress (ScopeRecheckProgress()). The counts are
// of the current run, or of the last one once it finished; they are
// committed with each slice, so exact across a crash.
struct ScopeRecheck {
  bool running = false;
  uint64_t examined = 0;  // URL records looked at
  uint64_t removed = 0;   // queued URLs out of scope, removed
};

// One site as SITE INFO shows it.
struct SiteInfo {
  std::string name;
  uint64_t queued = 0, leased = 0, done = 0, scheduled = 0, dead = 0;
  uint64_t excluded = 0;  // URLs its origins' robots.txt excludes
  int64_t delay_ms = 0;   // the delay in force
  policy::DelaySource delay_source = policy::DelaySource::kDefault;
  int64_t next_allowed_ms = 0;  // 0: may be fetched now
  int64_t block_until_ms = 0;   // 0: not blocked
  uint32_t backoffs = 0;
  uint64_t max_urls = 0;  // the URL cap in force; 0 = none
  uint64_t done_limit = 0;  // the cap on done URLs; 0 = none
  std::string partition;  // its partition's name; empty with no partitions
};

// URLS's filter (docs/commands.md#urls): which URLs a scan returns.
struct UrlFilter {
  // Only the URLs of this site (a host, a domain or a URL, as SITE takes
  // it); empty: every site.
  std::string site;
  // Only the URLs that contain this text; empty: every URL.
  std::string match;
  bool ignore_case = false;  // `match` compared without ASCII case
};

// One page of URLS. `next_cursor` "0" means the scan is complete.
struct UrlPage {
  std::string next_cursor = "0";
  std::vector<std::string> urls;
};

// One slice of PURGE (docs/commands.md#purge): how many URLs it removed and
// where the next slice starts ("0": the purge is complete).
struct UrlPurgePage {
  std::string next_cursor = "0";
  uint64_t removed = 0;
};

// SITE LIST's filter (docs/commands.md#site-list).
enum class SiteFilter { kAll, kReady, kWaiting, kBlocked };

// One page of SITE LIST. `next_cursor` 0 means the scan is complete.
struct SitePage {
  uint64_t next_cursor = 0;
  std::vector<std::string> sites;
};

// One origin's robots.txt state (ROBOTS GET).
struct RobotsInfo {
  std::string origin;       // "https://example.com", "http://a.b:8080"
  std::string state;        // unknown|fetching|ok|allow-all|unreachable
  int status = 0;           // HTTP status of the last report; 0 = none
  int64_t fetched_ms = 0;   // 0 = never
  int64_t expires_ms = 0;   // 0 = no rules
  std::optional<int64_t> crawl_delay_ms;
  uint32_t groups = 0;
  std::vector<std::string> rules;     // "allow /a", "disallow /b*", in
                                      // matching order
  std::vector<std::string> sitemaps;  // stored, not fetched
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
// A miss is a lookup of a page that was not in the cache (st_cache_miss);
// pages_in counts those read from the files (st_page_in), pages_out the
// pages written to them (st_page_out: write-behind, checkpoints and
// evictions of dirty pages).
struct CacheCounters {
  uint64_t hits = 0, misses = 0;
  uint64_t pages_in = 0, pages_out = 0;
};

// What the transaction log took since the environment opened
// (DbEnv::log_stat): bytes put into the log (records with their headers)
// and log records (every B-tree change, commit and checkpoint record).
// For the instruments that price a verb in log (storage-pair-bench).
struct LogCounters {
  uint64_t bytes = 0;
  uint64_t records = 0;
};

// What Tick() did, for logging and for waking blocked poppers.
struct TickResult {
  uint64_t expired = 0;    // leases that ran out
  uint64_t requeued = 0;   // URLs that went back to Q (any reason)
  bool more_due = false;   // the per-tick bound was hit; call again soon
};

}  // namespace frontier
