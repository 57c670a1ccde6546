// CrawlSpace: the state of one crawl (issue 22) while another crawl is the
// current one. FrontierImpl works on its members (urls_, sched_, stats_,
// ...), which hold the current crawl; switching crawls swaps them with the
// CrawlSpace of the crawl that becomes current (frontier_crawls.cc), so
// that the verbs need not know crawls exist and the default crawl's path
// costs nothing. Private to storage/.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "partition/partition_map.h"
#include "storage/bdb.h"
#include "storage/frontier_types.h"
#include "storage/records.h"
#include "storage/site_blocks.h"
#include "storage/site_scheduler.h"

namespace frontier {

// Per partition (index in the options' partitions): what PartitionInfo()
// gives beyond the scheduler's counts.
struct PartitionCounts {
  uint64_t sites = 0, queued = 0, leased = 0, done = 0;
  uint64_t popped = 0, confirmed = 0;
};

struct CrawlSpace {
  uint32_t id = 0;  // 0: the default crawl; names its files otherwise
  std::string name;
  // The crawl's databases: its own files (CrawlFile()); policy.db (robots
  // rules, per origin) is shared by every crawl.
  bdb::Database urls, queue, timers, sites, meta, excluded, data;
  SiteScheduler sched;
  SiteBlocks blocks;
  FrontierStats stats;
  std::vector<PartitionCounts> part_counts{1};
  partition::PartitionMap counted_partitions;
  std::unordered_map<uint64_t, SiteRecord> site_cache;
  std::map<uint64_t, std::string> deleting;
  std::set<uint64_t> rechecks;
  ScopeRecheck scope_recheck;
  std::string scope_recheck_next;
  std::optional<int64_t> timer_min;
};

// The file of database `base` ("urls.db") for crawl `id`: `base` itself
// for the default crawl (0), "crawl-<id>-<base>" for the others.
std::string CrawlFile(uint32_t id, const char* base);
// crawls.db's value for a crawl name: its id (4 bytes, big-endian). False
// if `value` is not one.
bool DecodeCrawlId(std::string_view value, uint32_t* id);

}  // namespace frontier
