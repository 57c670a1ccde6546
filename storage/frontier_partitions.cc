// FrontierImpl: partitions (WEB-SAILOR's domain sets). Which partition a
// site is in, its counts, and POP limited to one partition.
#include "storage/frontier_impl.h"

namespace frontier {

void FrontierImpl::CountNewSite(const SiteRecord& site) {
  stats_.sites++;
  part_counts_[site_policy_.PartitionOf(site)].sites++;
}

StatusOr<std::vector<std::string>> FrontierImpl::PopPartition(size_t partition,
                                                              size_t count,
                                                              int64_t lease_ms,
                                                              int64_t now_ms) {
  if (partition >= sched_.partitions()) {
    return Status::InvalidArgument("unknown partition");
  }
  return PopFrom(partition, count, lease_ms, now_ms);
}

bool FrontierImpl::HasReadyIn(size_t partition, int64_t now_ms) {
  if (partition >= sched_.partitions()) return false;
  return HasReady(now_ms) && sched_.ready_count_in(partition) > 0;
}

PartitionStats FrontierImpl::PartitionInfo(size_t partition) const {
  PartitionStats s;
  if (partition >= part_counts_.size() || partition >= sched_.partitions()) {
    return s;
  }
  const PartitionCounts& c = part_counts_.at(partition);
  s.sites = c.sites;
  s.ready_sites = sched_.ready_count_in(partition);
  s.queued = c.queued;
  s.leased = c.leased;
  s.done = c.done;
  s.popped = c.popped;
  s.confirmed = c.confirmed;
  s.capacity = sched_.capacity_in(partition);
  return s;
}

}  // namespace frontier
