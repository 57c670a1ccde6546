#include "storage/host_gate.h"

#include <algorithm>

namespace frontier {

void HostGate::Set(uint32_t crawl, uint64_t site_fp, Hold hold) {
  const bool empty = hold.leases == 0 && hold.until_ms <= 0;
  auto it = sites_.find(site_fp);
  if (it == sites_.end()) {
    if (!empty) sites_[site_fp].emplace_back(crawl, hold);
    return;
  }
  auto& holders = it->second;
  auto mine = std::find_if(holders.begin(), holders.end(),
                           [crawl](const auto& h) { return h.first == crawl; });
  if (empty) {
    if (mine != holders.end()) holders.erase(mine);
    if (holders.empty()) sites_.erase(it);
  } else if (mine == holders.end()) {
    holders.emplace_back(crawl, hold);
  } else {
    mine->second = hold;
  }
}

HostGate::Hold HostGate::Others(uint32_t crawl, uint64_t site_fp) const {
  Hold total;
  auto it = sites_.find(site_fp);
  if (it == sites_.end()) return total;
  for (const auto& [holder, hold] : it->second) {
    if (holder == crawl) continue;
    total.leases += hold.leases;
    total.until_ms = std::max(total.until_ms, hold.until_ms);
  }
  return total;
}

void HostGate::ForgetCrawl(uint32_t crawl) {
  for (auto it = sites_.begin(); it != sites_.end();) {
    auto& holders = it->second;
    std::erase_if(holders, [crawl](const auto& h) { return h.first == crawl; });
    it = holders.empty() ? sites_.erase(it) : std::next(it);
  }
}

}  // namespace frontier
