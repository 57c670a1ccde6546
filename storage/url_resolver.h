// UrlResolver: what a client names, as the tables key it. A URL becomes
// its normal form (url/url.h) with its U key; a site argument (SITE,
// DELAY, BLOCK, POP SITE) becomes a site name under politeness-scope with
// its fingerprint.
//
// Pure: it reads the options and its argument, never the databases; a
// refused argument is an InvalidArgument whose text the client sees.
// Owned by FrontierImpl; `opts` (FrontierImpl's options, reassigned in
// place by UpdateOptions) must outlive it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "storage/frontier_options.h"
#include "storage/records.h"
#include "url/url.h"
#include "util/status.h"

namespace frontier {

// A URL as the client gave it, normalised and keyed.
struct ResolvedUrl {
  NormalizedUrl norm;
  UrlKey key;
};

// A site named by an operator: its name under politeness-scope and the
// name's fingerprint (the site's key).
struct NamedSite {
  std::string name;
  uint64_t fp = 0;
};

class UrlResolver {
 public:
  explicit UrlResolver(const FrontierOptions* opts) : opts_(opts) {}

  // Normalises `url` (at most max-url-length bytes); InvalidArgument
  // "<what>: <reason>" if refused.
  StatusOr<ResolvedUrl> Url(std::string_view url, const char* what) const;
  // The site `site_arg` names: a host, a domain or a URL, mapped through
  // politeness-scope. InvalidArgument if it is none of these.
  StatusOr<NamedSite> Site(std::string_view site_arg) const;
  // Site(site_arg)'s name alone.
  StatusOr<std::string> SiteName(std::string_view site_arg) const;

 private:
  const FrontierOptions* opts_;
};

}  // namespace frontier
