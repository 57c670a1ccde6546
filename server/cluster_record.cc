#include "server/cluster_record.h"

#include <optional>
#include <string>

#include "cluster/shard_record.h"

namespace frontier {
namespace {

// The stored record: nullopt in *record if there is none.
Status ReadRecord(Frontier& frontier,
                  std::optional<cluster::ShardRecord>* record) {
  StatusOr<std::string> text = frontier.ClusterRecord();
  if (!text.ok()) return text.status();
  if (text->empty()) return Status::OK();
  *record = cluster::ShardRecord::Parse(*text);
  if (!*record) {
    return Status::Corruption("the shard's cluster record is not one: " +
                              *text);
  }
  return Status::OK();
}

}  // namespace

Status CheckClusterRecord(Frontier& frontier, const ClusterState& state) {
  std::optional<cluster::ShardRecord> record;
  if (Status s = ReadRecord(frontier, &record); !s.ok()) return s;
  std::string why;
  if (record && !cluster::MapAgreesWithRecord(*state.map, state.self_shard(),
                                              *record, &why)) {
    return Status::InvalidArgument(state.origin + ": " + why);
  }
  return Status::OK();
}

StatusOr<bool> ClusterRecordBehind(Frontier& frontier,
                                   const ClusterState& state) {
  std::optional<cluster::ShardRecord> record;
  if (Status s = ReadRecord(frontier, &record); !s.ok()) return s;
  return !record || record->epoch < state.map->epoch();
}

Status SaveClusterRecord(Frontier& frontier, const ClusterState& state) {
  return frontier.PutClusterRecord(
      cluster::RecordOf(*state.map, state.self_shard()).ToText());
}

}  // namespace frontier
