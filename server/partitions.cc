#include "server/partitions.h"

namespace frontier {

StatusOr<size_t> ResolvePartition(const Frontier& frontier,
                                  std::string_view name) {
  std::optional<size_t> index = frontier.options().partitions.Find(name);
  if (!index) {
    return Status::InvalidArgument("unknown partition '" + std::string(name) +
                                   "'");
  }
  return *index;
}

StatusOr<std::vector<PoppedUrl>> PopFromPartition(Frontier& frontier,
                                                  std::string_view partition,
                                                  size_t count,
                                                  int64_t lease_ms,
                                                  int64_t now_ms,
                                                  bool with_data) {
  std::optional<size_t> index;
  if (!partition.empty()) {
    StatusOr<size_t> found = ResolvePartition(frontier, partition);
    if (!found.ok()) return found.status();
    index = *found;
  }
  if (with_data) return frontier.PopWithData(index, count, lease_ms, now_ms);
  StatusOr<std::vector<std::string>> urls =
      index ? frontier.PopPartition(*index, count, lease_ms, now_ms)
            : frontier.Pop(count, lease_ms, now_ms);
  if (!urls.ok()) return urls.status();
  std::vector<PoppedUrl> popped(urls->size());
  for (size_t i = 0; i < popped.size(); ++i) {
    popped[i].url = std::move((*urls)[i]);
  }
  return popped;
}

uint64_t WaitersOf(const Frontier& frontier, size_t index,
                   const WaitingFn& waiting) {
  const partition::PartitionMap& map = frontier.options().partitions;
  uint64_t n = waiting(map.name(index));
  if (map.trivial()) n += waiting("");
  return n;
}

namespace {

void AddInputs(const PartitionStats& s, partition::HintInputs* in) {
  in->capacity += s.capacity;
  in->ready_sites += s.ready_sites;
  in->leased += s.leased;
}

}  // namespace

Hint CurrentHint(const Frontier& frontier, size_t index,
                 const WaitingFn& waiting) {
  Hint hint;
  AddInputs(frontier.PartitionInfo(index), &hint.inputs);
  hint.inputs.waiting = WaitersOf(frontier, index, waiting);
  hint.advice = partition::Advise(hint.inputs);
  return hint;
}

Hint OverallHint(const Frontier& frontier, uint64_t all_waiting) {
  Hint hint;
  for (size_t i = 0; i < frontier.options().partitions.size(); ++i) {
    AddInputs(frontier.PartitionInfo(i), &hint.inputs);
  }
  hint.inputs.waiting = all_waiting;
  hint.advice = partition::Advise(hint.inputs);
  return hint;
}

void HintPublisher::Run(const Frontier& frontier, const WaitingFn& waiting,
                        PubSub& pubsub) {
  const partition::PartitionMap& map = frontier.options().partitions;
  std::vector<std::pair<std::string, partition::Advice>> now;
  now.reserve(map.size());
  for (size_t i = 0; i < map.size(); ++i) {
    const std::string& name = map.name(i);
    const Hint hint = CurrentHint(frontier, i, waiting);
    now.emplace_back(name, hint.advice);
    bool changed = true;
    for (const auto& [old_name, old_advice] : last_) {
      if (old_name == name) changed = old_advice != hint.advice;
    }
    if (!changed) continue;
    pubsub.Publish("frontier:hints:" + name,
                   std::string(partition::AdviceName(hint.advice)) + " " +
                       std::to_string(hint.inputs.capacity));
  }
  last_ = std::move(now);
}

}  // namespace frontier
