// FrontierImpl::UpdateOptions: the runtime-tunable options (CONFIG SET).
#include "storage/frontier_impl.h"

namespace frontier {

Status FrontierImpl::UpdateOptions(const FrontierOptions& options,
                                   int64_t now_ms) {
  // Re-placing sites reads their records from the file.
  if (Status s = EndOpenPass(); !s.ok()) return s;
  const FrontierOptions previous = opts_;
  opts_.lease_timeout_ms = options.lease_timeout_ms;
  opts_.max_depth = options.max_depth;
  opts_.depth_scope = options.depth_scope;
  opts_.site_max_urls = options.site_max_urls;
  opts_.politeness_delay_ms = options.politeness_delay_ms;
  opts_.site_max_leases = options.site_max_leases;
  opts_.default_priority = options.default_priority;
  opts_.max_attempts = options.max_attempts;
  opts_.max_url_length = options.max_url_length;
  opts_.max_url_data = options.max_url_data;
  opts_.politeness_delay_factor = options.politeness_delay_factor;
  opts_.politeness_max_delay_ms = options.politeness_max_delay_ms;
  opts_.recrawl_adaptive = options.recrawl_adaptive;
  opts_.recrawl_inc_rate = options.recrawl_inc_rate;
  opts_.recrawl_dec_rate = options.recrawl_dec_rate;
  opts_.recrawl_min_ms = options.recrawl_min_ms;
  opts_.recrawl_max_ms = options.recrawl_max_ms;
  opts_.backoff_status_codes = options.backoff_status_codes;
  opts_.backoff_initial_ms = options.backoff_initial_ms;
  opts_.backoff_max_ms = options.backoff_max_ms;
  // robots.txt: rules already stored keep applying until they expire (a
  // new robots-agent or robots-max-bytes reads the next fetch of each
  // origin; a new robots-ttl applies to the rules fetched after it).
  opts_.robots = options.robots;
  opts_.robots_agent = options.robots_agent;
  opts_.robots_ttl_ms = options.robots_ttl_ms;
  opts_.robots_max_bytes = options.robots_max_bytes;
  opts_.robots_max_crawl_delay_ms = options.robots_max_crawl_delay_ms;
  opts_.partitions = options.partitions;
  // New links are judged by the new scope; queued ones by a re-check.
  opts_.scope = options.scope;
  if (opts_.site_max_leases == previous.site_max_leases &&
      opts_.partitions == previous.partitions) {
    return Status::OK();
  }

  // A site's readiness depends on the lease cap, and a site at its cap
  // (blocked) is otherwise placed again only when one of its leases ends:
  // re-derive every site's place under the new cap. A new partition map
  // moves sites between partitions, their counts with them.
  // Every crawl's, each current in turn.
  CrawlSpace* home = current_;
  Status s;
  for (auto& [name, crawl] : crawls_) {
    SwitchTo(crawl.get());
    s = RebuildScheduler();
    if (!s.ok()) break;
    sched_.Promote(now_ms);
  }
  if (!s.ok()) {
    opts_ = previous;
    for (auto& [name, crawl] : crawls_) {
      SwitchTo(crawl.get());
      Status again = RebuildScheduler();
      (void)again;  // the first error is the one to report
    }
  }
  SwitchTo(home);
  return s;
}

}  // namespace frontier
