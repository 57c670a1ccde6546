// SiteNameCache: a host's site under a scope (politeness-scope,
// depth-scope, the crawl scope's same-site rules) as a name and its
// fingerprint, remembered.
//
// Under kHost the site is the host itself: nothing is remembered. Under
// kDomain it is SiteOf(host, kDomain), a libpsl lookup of about 12k
// instructions, while a page's links mostly share a few hosts; so the
// answer is kept by host fingerprint (with the host, to tell two hosts of
// one fingerprint apart), and the memory is bounded: when it holds
// kMaxHosts hosts, it is emptied and starts over.
//
// Owned by FrontierImpl; loop thread only. Pure: it never reads the
// databases.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "url/url.h"

namespace frontier {

class SiteNameCache {
 public:
  static constexpr size_t kMaxHosts = size_t{1} << 16;

  // A host's site under some scope: its name and fingerprint.
  struct SiteRef {
    std::string_view name;
    uint64_t fp = 0;
  };

  // SiteOf(host, scope) and its fingerprint, for `host` whose fingerprint
  // is `host_fp`. Under kHost, name views `host`; under kDomain it views
  // the cache's memory, valid until the next call.
  SiteRef SiteFor(const std::string& host, uint64_t host_fp, SiteScope scope);

 private:
  struct DomainOfHost {
    std::string host;  // to tell two hosts with one fingerprint apart
    std::string name;
    uint64_t fp = 0;
  };
  std::unordered_map<uint64_t, DomainOfHost> domains_;  // by host fingerprint
};

}  // namespace frontier
