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
//
// Decisions beyond RFC 3986:
// - An empty query ("http://a/?") is kept: RFC 3986 section 6.2.3 says the
//   delimiter of an empty component must not be removed unless the scheme
//   allows it, and a server may answer "/?" differently from "/". A query
//   is otherwise kept byte for byte (parameter order and case included),
//   apart from the percent-escape rules above.
// - Userinfo ("user:pass@") is kept as uriparser normalises it (escape hex
//   upper-cased, nothing else changed): it is part of the authority, and
//   dropping it would change which credentials a fetcher sends.
// - Raw non-ASCII bytes (UTF-8) are not RFC 3986. In the path, query and
//   userinfo they are percent-encoded first, as browsers do:
//   "http://a/café" becomes "http://a/caf%C3%A9". In the host they are
//   refused: send the punycode ("xn--") form. A host with escapes that do
//   not decode to unreserved characters is refused too ("%C3%A9.com"): no
//   DNS name contains them.
// - A non-default port loses its leading zeros (":08080" -> ":8080", and
//   ":080" on http is the default port, so it goes); 0 and values above
//   65535 are refused, as is an IPvFuture host ("[v1.x]"), which nothing
//   can fetch.
// - An IPv6 host is written in its RFC 5952 form, as browsers write it:
//   "http://[2001:DB8:0::1]:80/" -> "http://[2001:db8::1]/".
// - Space, NUL, the other control characters and the ASCII characters that
//   RFC 3986 allows nowhere ('"', '<', '>', '\', '^', '`', '{', '|', '}')
//   are refused, not escaped, with the offset of the first offending byte.
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
// 'ftp'", "URL has no host", "invalid URL syntax at offset 7", "empty URL",
// "invalid port '0': ...", "non-ASCII host: ...") when the URL is refused,
// and Busy only if uriparser runs out of memory. `max_length` applies to
// the raw input and to the normalised result. The result borrows nothing.
StatusOr<NormalizedUrl> NormalizeUrl(std::string_view raw, size_t max_length);

// NormalizeUrl without its fast path for URLs that are plainly normal
// already (ASCII, no port, escape or dot segment): always through
// uriparser. The same result for every input; tests and the fuzzer compare
// the two.
StatusOr<NormalizedUrl> NormalizeUrlFully(std::string_view raw,
                                          size_t max_length);

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
