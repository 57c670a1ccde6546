// PartitionCounters (partition_counters.h): rebuilding the per-partition
// counts.
#include "storage/partition_counters.h"

#include <optional>
#include <utility>

namespace frontier {

void PartitionCounters::Reset(const partition::PartitionMap& map) {
  std::vector<PartitionCounts> counts(map.size());
  for (size_t i = 0; i < counts.size(); ++i) {
    std::optional<size_t> old = map_.Find(map.name(i));
    if (old && *old < counts_.size()) {
      counts[i].popped = counts_[*old].popped;
      counts[i].confirmed = counts_[*old].confirmed;
    }
  }
  counts_ = std::move(counts);
  map_ = map;
}

void PartitionCounters::AddSite(size_t partition, const SiteRecord& site) {
  PartitionCounts& c = counts_[partition];
  c.sites++;
  c.queued += site.queued;
  c.leased += site.leases;
  c.done += site.done;
}

}  // namespace frontier
