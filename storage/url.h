// URL normalisation and site identity: what makes two spellings one URL,
// and which "site" (host or registrable domain) a URL belongs to.
//
// Normalisation is uriparser's RFC 3986 section 6.2.2 syntax-based
// normalisation plus the scheme-based rules of 6.2.3 that every crawler
// applies: lower-case scheme and host, drop the default port (80 for http,
// 443 for https) and the fragment, remove dot segments, upper-case
// percent-escape hex digits and decode escapes of unreserved characters,
// and turn an empty path into "/". Only http and https URLs with a
// non-empty host are accepted.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "storage/status.h"

namespace frontier {

struct NormalizedUrl {
  std::string url;   // the normalised URL, e.g. "http://example.com/a/b?x=1"
  std::string host;  // lower-case host without port, e.g. "www.example.com"
                     // (IPv6 literals keep their brackets: "[::1]")
};

// Parses and normalises `raw`. Returns InvalidArgument with a message that
// names the problem ("URL is longer than 8192 bytes", "unsupported scheme
// 'ftp'", "URL has no host", "invalid URL syntax") when the URL is refused.
// `max_length` applies to the raw input and to the normalised result.
StatusOr<NormalizedUrl> NormalizeUrl(std::string_view raw, size_t max_length);

enum class SiteScope { kHost, kDomain };

// The site of `host` under `scope`: the host itself for kHost; for kDomain,
// the registrable domain by the public suffix list ("a.b.example.co.uk" ->
// "example.co.uk"). A host that has no registrable domain (an IP literal, a
// public suffix itself, "localhost") is its own site. `host` must be
// lower-case, as NormalizedUrl::host is.
std::string SiteOf(std::string_view host, SiteScope scope);

// Parses "host" / "domain" (the depth-scope and politeness-scope values).
// Returns false for anything else.
bool ParseSiteScope(std::string_view text, SiteScope* scope);

}  // namespace frontier
