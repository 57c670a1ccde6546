// PartitionCounters: per partition (index in the options' partitions),
// the counts PARTITION INFO gives beyond the scheduler's: sites, URLs
// queued, leased and done, and since the start URLs popped and confirmed.
//
// The state counts are sums of the site records', rebuilt at every start
// and with every new partition map (Reset, then AddSite per site); the
// verbs move them as they move URLs. A write transaction saves them
// (Save) and an aborted one puts them back (Restore), as it does the
// server's counters. Owned by FrontierImpl; switching crawls swaps them
// with the parked crawl's (Swap). Loop thread only.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "partition/partition_map.h"
#include "storage/crawl_space.h"
#include "storage/records.h"

namespace frontier {

class PartitionCounters {
 public:
  // Partition `partition`'s counts; `partition` < size().
  PartitionCounts& operator[](size_t partition) { return counts_[partition]; }
  size_t size() const { return counts_.size(); }
  const PartitionCounts& at(size_t partition) const {
    return counts_[partition];
  }

  // Counts for the partitions of `map`, from zero but for the since-start
  // counts (popped, confirmed) of the partitions the previous map also
  // had, by name.
  void Reset(const partition::PartitionMap& map);
  // Adds `site`'s counts to its partition `partition` (the rebuild).
  void AddSite(size_t partition, const SiteRecord& site);

  // Before a write transaction; Restore() after it aborted.
  void Save() { saved_ = counts_; }  // assigned: no allocation per call
  void Restore() { counts_.swap(saved_); }
  void Swap(std::vector<PartitionCounts>* counts,
            partition::PartitionMap* map) {
    counts_.swap(*counts);
    std::swap(map_, *map);
  }

 private:
  std::vector<PartitionCounts> counts_{1};
  std::vector<PartitionCounts> saved_;
  partition::PartitionMap map_;  // what counts_ is for
};

}  // namespace frontier
