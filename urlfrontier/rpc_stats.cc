#include "urlfrontier/rpc_stats.h"

namespace frontier::urlfrontier {

std::string_view RpcName(Rpc rpc) {
  static constexpr std::string_view kNames[kRpcCount] = {
      "ListNodes",    "ListCrawls",      "DeleteCrawl",   "ListQueues",
      "GetURLs",      "PutURLs",         "PutDiscovered", "GetStats",
      "DeleteQueue",  "BlockQueueUntil", "SetDelay",      "SetLogLevel",
      "GetURLStatus", "CountURLs",       "SetActive",     "GetActive",
      "SetCrawlLimit", "ListURLs",       "PurgeURLs"};
  return kNames[static_cast<size_t>(rpc)];
}

RpcStats::Counts RpcStats::Read(Rpc rpc) const {
  Counts c;
  const size_t i = Index(rpc);
  // Ended before started: a call that ends between the two reads is not
  // seen as open twice, nor as ended before it started.
  const uint64_t ended = ended_[i].load(std::memory_order_relaxed);
  c.errors = errors_[i].load(std::memory_order_relaxed);
  c.calls = calls_[i].load(std::memory_order_relaxed);
  c.open = c.calls >= ended ? c.calls - ended : 0;
  return c;
}

}  // namespace frontier::urlfrontier
