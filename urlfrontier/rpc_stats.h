// RpcStats: calls, errors and open calls per rpc of the URL Frontier
// service, counted on gRPC's threads and read by INFO and /metrics on the
// loop's (relaxed atomics: each counter is exact, a reading of several is
// not a snapshot). Free of gRPC's headers, so the server's stats can hold
// one.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace frontier::urlfrontier {

// The rpcs the service serves (the others answer UNIMPLEMENTED unseen).
enum class Rpc : size_t {
  kListNodes,
  kListCrawls,
  kDeleteCrawl,
  kListQueues,
  kGetURLs,
  kPutURLs,
  kPutDiscovered,
  kGetStats,
  kDeleteQueue,
  kBlockQueueUntil,
  kSetDelay,
  kSetLogLevel,
  kGetURLStatus,
  kCountURLs,
  kSetActive,
  kGetActive,
  kSetCrawlLimit,
  kListURLs,
  kPurgeURLs,
};
inline constexpr size_t kRpcCount = static_cast<size_t>(Rpc::kPurgeURLs) + 1;

// The rpc's name as the proto spells it ("PutURLs").
std::string_view RpcName(Rpc rpc);

class RpcStats {
 public:
  struct Counts {
    uint64_t calls = 0;   // calls started
    uint64_t errors = 0;  // calls ended with a status other than OK
    uint64_t open = 0;    // calls started and not ended
  };

  void Started(Rpc rpc) {
    calls_[Index(rpc)].fetch_add(1, std::memory_order_relaxed);
  }
  void Ended(Rpc rpc, bool ok) {
    ended_[Index(rpc)].fetch_add(1, std::memory_order_relaxed);
    if (!ok) errors_[Index(rpc)].fetch_add(1, std::memory_order_relaxed);
  }
  Counts Read(Rpc rpc) const;

 private:
  static size_t Index(Rpc rpc) { return static_cast<size_t>(rpc); }

  std::array<std::atomic<uint64_t>, kRpcCount> calls_{};
  std::array<std::atomic<uint64_t>, kRpcCount> ended_{};
  std::array<std::atomic<uint64_t>, kRpcCount> errors_{};
};

}  // namespace frontier::urlfrontier
