// CommandStats: calls and latency per command, kept by the event loop where
// commands are dispatched (Server::Execute) and read by INFO commandstats
// and /metrics. Indexed by the command's position in the command table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "server/histogram.h"

namespace frontier {

struct CommandStat {
  uint64_t calls = 0;
  Histogram latency_ns{kLatencyBoundsNs};
};

class CommandStats {
 public:
  // Counts one call of command number `index` that took `ns` nanoseconds.
  // The table grows once per command the first time it runs: no
  // allocation afterwards.
  void Record(size_t index, uint64_t ns) {
    if (index >= per_command_.size()) per_command_.resize(index + 1);
    CommandStat& s = per_command_[index];
    ++s.calls;
    s.latency_ns.Observe(ns);
  }
  // The stat of command number `index`; nullptr if it never ran.
  const CommandStat* Find(size_t index) const {
    if (index >= per_command_.size() || per_command_[index].calls == 0) {
      return nullptr;
    }
    return &per_command_[index];
  }
  void Reset() {
    for (CommandStat& s : per_command_) s = CommandStat();
  }

 private:
  std::vector<CommandStat> per_command_;
};

}  // namespace frontier
