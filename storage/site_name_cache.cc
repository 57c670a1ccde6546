// SiteNameCache (site_name_cache.h).
#include "storage/site_name_cache.h"

#include "storage/records.h"

namespace frontier {

SiteNameCache::SiteRef SiteNameCache::SiteFor(const std::string& host,
                                              uint64_t host_fp,
                                              SiteScope scope) {
  if (scope == SiteScope::kHost) {
    return {host, host_fp};  // Fingerprint(host): the same function
  }
  auto it = domains_.find(host_fp);
  if (it == domains_.end() || it->second.host != host) {
    if (domains_.size() >= kMaxHosts) domains_.clear();
    DomainOfHost& entry = domains_[host_fp];
    entry.host = host;
    entry.name = SiteOf(host, scope);
    entry.fp = Fingerprint(entry.name);
    return {entry.name, entry.fp};
  }
  return {it->second.name, it->second.fp};
}

}  // namespace frontier
