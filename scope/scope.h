// Scope: which links a crawl follows, decided once in the server for all
// workers (Nutch's URL filters, Heritrix's decide rules). A link is in
// scope if its host is allowed (HostSuffixes), it stays as close to the
// page it was found on as the ref rule asks, its shape is not a trap's
// (too many query parameters or path segments), no deny pattern matches
// it, and, when allow patterns are set, one of them does.
//
// Pure: strings in, a verdict out; no storage, sockets or RESP. The caller
// says how the link relates to its ref (same site, same domain), because
// what a site is belongs to the frontier (politeness-scope, the public
// suffix list). A value type: copies share the compiled patterns.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "scope/host_suffixes.h"
#include "scope/url_patterns.h"

namespace frontier::scope {

// The `scope` directive: how a link must relate to the page that links it.
enum class RefRule { kAny, kSameSite, kSameDomain };

// Why a link is out of scope, in the order Check() tests the rules (the
// cheap ones first): the first rule that refuses names the verdict.
enum class Verdict {
  kIn = 0,
  kHost,        // its host is not under an allowed suffix
  kRef,         // not on the ref's site or domain, as RefRule asks
  kQuery,       // more query parameters than the maximum
  kPath,        // more path segments than the maximum
  kDeny,        // a deny pattern matches it
  kAllow,       // allow patterns are set and none matches it
};
inline constexpr int kVerdictCount = 7;
// "in", "host", "ref", "query", "path", "deny", "allow".
const char* VerdictName(Verdict verdict);

// How a link relates to its ref, as the frontier sees sites.
struct RefRelation {
  bool same_site = false;    // the same site under politeness-scope
  bool same_domain = false;  // the same registrable domain
};

struct Scope {
  HostSuffixes hosts;  // empty: any host
  RefRule ref_rule = RefRule::kAny;
  UrlPatterns deny;
  UrlPatterns allow;  // empty: no allow rule
  uint64_t max_query_params = 0;   // 0 = no limit
  uint64_t max_path_segments = 0;  // 0 = no limit

  // True if Check() answers kIn for every link: nothing is set.
  bool Unrestricted() const {
    return hosts.empty() && ref_rule == RefRule::kAny && deny.empty() &&
           allow.empty() && max_query_params == 0 && max_path_segments == 0;
  }

  // The verdict on a link. `url` is the normalised URL and `host` its host
  // (url/url.h's NormalizedUrl); `ref` how the link relates to the
  // page it was found on, or nullopt if it came without one (ADD without
  // a ref), in which case the ref rule does not apply.
  Verdict Check(std::string_view url, std::string_view host,
                const std::optional<RefRelation>& ref) const;

  // Check() for a URL already stored, whose ref is not kept: every rule
  // but the ref rule (a re-check cannot apply it).
  Verdict CheckStored(std::string_view url, std::string_view host) const {
    return Check(url, host, std::nullopt);
  }

  bool operator==(const Scope& other) const = default;
};

}  // namespace frontier::scope
