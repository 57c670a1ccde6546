// FrontierImpl's monitoring accessors (frontier.h, "Monitoring"): read-only
// views of in-memory state and of Berkeley DB's own statistics, cheap
// enough to call once a second from /metrics and the dashboard.
#include <algorithm>
#include <cstdlib>

#include "storage/frontier_impl.h"

namespace frontier {

SiteStateCounts FrontierImpl::SiteStates() const {
  SiteStateCounts c;
  c.ready = sched_.ready_count();
  c.waiting = sched_.waiting_count();
  c.busy = sched_.tracked_count() - c.ready - c.waiting;
  return c;
}

void FrontierImpl::CountStatusClass(int status) {
  switch (status / 100) {
    case 2:
      stats_.confirmed_2xx++;
      break;
    case 3:
      stats_.confirmed_3xx++;
      break;
    case 4:
      stats_.confirmed_4xx++;
      break;
    case 5:
      stats_.confirmed_5xx++;
      break;
    default:
      break;
  }
}

std::vector<SiteSize> FrontierImpl::LargestSites(size_t n) const {
  std::vector<SiteSize> out;
  if (n == 0) return out;
  // By URLs held, not queued: an idle crawl (everything done or scheduled)
  // still has large sites, and the dashboard lists them. Ties by name, so
  // that the list does not shuffle from one second to the next.
  auto larger = [](const SiteSize& a, const SiteSize& b) {
    return a.urls != b.urls ? a.urls > b.urls : a.name < b.name;
  };
  sites_.ForEachInMemory([&](uint64_t, const SiteRecord& rec) {
    if (rec.urls == 0) return;
    SiteSize site{rec.name, rec.urls, rec.queued, rec.leases};
    if (out.size() == n && !larger(site, out.front())) return;
    if (out.size() == n) {
      std::pop_heap(out.begin(), out.end(), larger);
      out.pop_back();
    }
    out.push_back(std::move(site));
    std::push_heap(out.begin(), out.end(), larger);
  });
  std::sort_heap(out.begin(), out.end(), larger);
  return out;
}

StatusOr<CacheCounters> FrontierImpl::CacheStats() const {
  if (!env_) return Status::IOError("memp_stat: the environment is closed");
  DB_MPOOL_STAT* stat = nullptr;
  Status s = bdb::FromDb(env_->memp_stat(&stat, nullptr, 0), "memp_stat");
  if (!s.ok()) return s;
  CacheCounters c;
  c.hits = stat->st_cache_hit;
  c.misses = stat->st_cache_miss;
  c.pages_in = stat->st_page_in;
  c.pages_out = stat->st_page_out;
  std::free(stat);  // Berkeley DB allocates statistics with malloc
  return c;
}

StatusOr<LogCounters> FrontierImpl::LogStats() const {
  if (!env_) return Status::IOError("log_stat: the environment is closed");
  DB_LOG_STAT* stat = nullptr;
  Status s = bdb::FromDb(env_->log_stat(&stat, 0), "log_stat");
  if (!s.ok()) return s;
  LogCounters c;
  // Berkeley DB carries whole megabytes over into st_w_mbytes.
  c.bytes =
      static_cast<uint64_t>(stat->st_w_mbytes) * (1u << 20) + stat->st_w_bytes;
  c.records = stat->st_record;
  std::free(stat);
  return c;
}

}  // namespace frontier
