// HostGate: politeness shared by the crawls of one server (issue 22). Each
// crawl keeps its own site records (counts, queue head, its own next
// allowed time and leases); the gate remembers, per site, what every crawl
// holds on it (leases in flight, the time before which it may not be
// fetched), so that a crawl asks the others before it hands out a URL of
// the site. In memory only: every entry is a copy of fields of a durable
// site record, set whenever a crawl (re-)places the site and at start.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace frontier {

class HostGate {
 public:
  // What crawls hold on one site.
  struct Hold {
    uint64_t leases = 0;
    int64_t until_ms = 0;  // no fetch before this time (delay or block)
  };

  // Records that crawl `crawl` holds `hold` on `site_fp` (its record's
  // leases and the later of its next-allowed and block times). A hold of
  // nothing forgets the crawl's entry.
  void Set(uint32_t crawl, uint64_t site_fp, Hold hold);
  // The sum of the leases and the latest time of the crawls other than
  // `crawl` on `site_fp`.
  Hold Others(uint32_t crawl, uint64_t site_fp) const;
  // Forgets everything crawl `crawl` held (CRAWL DELETE).
  void ForgetCrawl(uint32_t crawl);
  void Clear() { sites_.clear(); }
  // A site held back only by the other crawls' leases is looked at again
  // after this long: their lease ends are not signalled to it.
  static constexpr int64_t kRecheckMs = 200;
  size_t size() const { return sites_.size(); }

 private:
  // Site -> (crawl, hold), a short vector: few crawls share a site.
  std::unordered_map<uint64_t, std::vector<std::pair<uint32_t, Hold>>> sites_;
};

}  // namespace frontier
