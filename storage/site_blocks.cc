#include "storage/site_blocks.h"

namespace frontier {

void SiteBlocks::Set(uint64_t site_fp, int64_t until_ms) {
  auto it = until_.find(site_fp);
  if (it != until_.end()) {
    if (it->second == until_ms) return;
    by_end_.erase({it->second, site_fp});
    until_.erase(it);
  }
  if (until_ms <= now_ms_) return;
  until_.emplace(site_fp, until_ms);
  by_end_.insert({until_ms, site_fp});
}

void SiteBlocks::Clear() {
  until_.clear();
  by_end_.clear();
}

void SiteBlocks::Expire(int64_t now_ms) {
  if (now_ms <= now_ms_) return;
  now_ms_ = now_ms;
  while (!by_end_.empty() && by_end_.begin()->first <= now_ms) {
    until_.erase(by_end_.begin()->second);
    by_end_.erase(by_end_.begin());
  }
}

}  // namespace frontier
