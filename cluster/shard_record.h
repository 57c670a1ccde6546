// ShardRecord: what a shard owns, as the shard itself recorded it
// (docs/cluster.md, "What a shard owns"): its name, the slot ranges it
// serves and the epoch of the map they came from. Kept in the shard's
// replicated data, so every member of its group reads the same record,
// and a map (from etcd, or a node's cached copy) is taken only if it
// agrees with it.
//
// Pure: text in, answers out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster_map.h"

namespace frontier::cluster {

struct ShardRecord {
  std::string shard;
  uint64_t epoch = 0;
  std::vector<SlotRange> ranges;  // sorted, adjacent ranges merged

  // "shard NAME epoch N slots A-B C-D ..." on one line.
  std::string ToText() const;
  // nullopt if `text` is not what ToText() writes.
  static std::optional<ShardRecord> Parse(std::string_view text);
};

// Shard `shard` of `map` as a record: its ranges sorted and merged.
ShardRecord RecordOf(const ClusterMap& map, size_t shard);

// Whether a node of shard `shard` may serve with `map` when its shard's
// record is `record`: yes if the map gives the shard exactly the
// recorded slots (under the recorded name) with an epoch no lower than
// the record's. Otherwise false with *why set to a sentence for the log.
// Moving slots between shards (resharding) is not built, so a map that
// changes the shard's slots is refused whatever its epoch: each shard
// keeps serving what it recorded, and two shards never own one slot.
bool MapAgreesWithRecord(const ClusterMap& map, size_t shard,
                         const ShardRecord& record, std::string* why);

}  // namespace frontier::cluster
