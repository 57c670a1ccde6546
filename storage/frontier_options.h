// FrontierOptions: what a Frontier is opened with (storage/frontier.h),
// the settings fixed at open and the ones UpdateOptions() may change.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "partition/partition_map.h"
#include "policy/politeness.h"
#include "scope/scope.h"
#include "storage/replication_options.h"
#include "url/url.h"

namespace frontier {

// G+p+h(K), p+G+h(K), or most back-links first, then G+p+h(K) (by the
// class floor(log2(1 + back-links)), see records.h), or by the URL's date
// in seconds (QueueDateOf: URL Frontier's order), then h(K).
enum class QueueOrder { kBfs, kPriority, kPopularity, kDate };

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
  // Bytes of one URL's value (ADD ... DATA); a larger one is refused.
  size_t max_url_data = 64 << 10;
  // Adaptive politeness (issue 8 §3): with delay_factor > 0, a CONFIRM
  // with FETCH-MS t delays the site's next fetch by clamp(factor × t,
  // the delay in force, politeness_max_delay_ms).
  double politeness_delay_factor = 0;  // 0 = off
  int64_t politeness_max_delay_ms = 30'000;
  // Adaptive recrawl (issue 8 §3): CONFIRM UNCHANGED multiplies a URL's
  // recrawl period by 1 + inc_rate, CHANGED by 1 - dec_rate, within
  // [recrawl_min_ms, recrawl_max_ms].
  bool recrawl_adaptive = false;
  double recrawl_inc_rate = 0.4;
  double recrawl_dec_rate = 0.2;
  int64_t recrawl_min_ms = 60'000;
  int64_t recrawl_max_ms = 31'536'000'000;
  // Back-off (issue 8 §2): a FAIL whose STATUS is one of these blocks the
  // whole site, for the Retry-After it names or for the series of
  // policy/backoff.h (backoff_initial_ms doubled per back-off in a row, at
  // most backoff_max_ms, ±10% jitter). Empty: no status backs off.
  std::vector<int> backoff_status_codes = {429, 503};
  int64_t backoff_initial_ms = 60'000;
  int64_t backoff_max_ms = 86'400'000;
  // With true, each commit writes its log records to the OS (not synced);
  // with false they stay in the log buffer until FlushLog() or a checkpoint.
  bool write_log_at_commit = false;
  // robots.txt (issue 8 §1, docs/robots.md): with `robots`, POP hands out
  // an origin's /robots.txt before its other URLs and never hands out a
  // URL its rules disallow. Runtime-tunable.
  bool robots = false;
  std::string robots_agent = "frontierd";  // a product token
  int64_t robots_ttl_ms = 86'400'000;
  size_t robots_max_bytes = 512 << 10;
  int64_t robots_max_crawl_delay_ms = 300'000;
  // Which partition each site is in (by its name under politeness_scope).
  partition::PartitionMap partitions;
  // Crawl scope (issue 25 §2, docs/commands.md#scope): Add() and
  // AddMany() refuse a link out of it (AddOutcome::kOutOfScope) before
  // looking it up, storing nothing. Runtime-tunable; a change applies to
  // new links, and StartScopeRecheck() to the queued ones.
  scope::Scope scope;
  // With false, site records are written without their first queue key,
  // as versions before it wrote them, so that a start reads the heads
  // from Q. Only tests set it: they check that path, which a directory
  // written by an earlier version takes.
  bool store_site_heads = true;
  // Single node, one crawl: site records are journaled in the log once
  // per transaction and written to sites.db behind (storage/journal.h,
  // docs/design.md "The site journal"). False: written by every
  // transaction, as with replication or several crawls. For measurements.
  bool site_journal = true;
  // Replication (issue 20, docs/replication.md); off by default.
  ReplicationOptions replication;
};

}  // namespace frontier
