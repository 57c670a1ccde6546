// The server's side of partitions (docs/commands.md#partitions): naming a
// partition in a command, popping from it, and the hints published to its
// workers on `frontier:hints:<partition>`.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "partition/hint_rule.h"
#include "server/pubsub.h"
#include "storage/frontier.h"

namespace frontier {

// The index of partition `name` in the frontier's map; InvalidArgument
// "unknown partition '<name>'" if there is none.
StatusOr<size_t> ResolvePartition(const Frontier& frontier,
                                  std::string_view name);

// Frontier::Pop() for `partition` "" (any), else PopPartition() for the
// partition so named (InvalidArgument if unknown); PopWithData() instead
// with `with_data` (POP ... WITHDATA), else every value is nullopt.
StatusOr<std::vector<PoppedUrl>> PopFromPartition(Frontier& frontier,
                                                  std::string_view partition,
                                                  size_t count,
                                                  int64_t lease_ms,
                                                  int64_t now_ms,
                                                  bool with_data);

// BPOP clients waiting on a partition, by name ("" = on no partition).
using WaitingFn = std::function<size_t(std::string_view)>;

// The BPOP clients that wait for partition `index`'s URLs: those that
// named it, and, while the map has no partition but `default`, those that
// named none (they can only be waiting for default's).
uint64_t WaitersOf(const Frontier& frontier, size_t index,
                   const WaitingFn& waiting);

// One partition's advice and what it was drawn from (HINT's reply).
struct Hint {
  partition::Advice advice = partition::Advice::kSteady;
  partition::HintInputs inputs;
};
// The advice for partition `index` now.
Hint CurrentHint(const Frontier& frontier, size_t index,
                 const WaitingFn& waiting);
// The advice for the whole frontier (HINT without PARTITION): the sums
// over every partition, with every BPOP client as waiting.
Hint OverallHint(const Frontier& frontier, uint64_t all_waiting);

// Publishes each partition's advice when it changes: Run() from a timer
// every hint-interval, so at most one message per partition per interval.
class HintPublisher {
 public:
  // Works out every partition's advice and publishes "<advice> <n>" on
  // "frontier:hints:<name>" for each whose advice differs from the last
  // one published for that name (or that had none yet).
  void Run(const Frontier& frontier, const WaitingFn& waiting, PubSub& pubsub);

 private:
  // Last advice published, by partition name (a partition dropped from
  // the map is forgotten).
  std::vector<std::pair<std::string, partition::Advice>> last_;
};

}  // namespace frontier
