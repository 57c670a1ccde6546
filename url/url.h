// URL normalisation and site identity: what makes two spellings one URL,
// and which "site" (host or registrable domain) a URL belongs to.
//
// A URL is read as a browser reads it, by the WHATWG URL Standard's parser
// for http and https (url_lenient.h, url_host.h): surrounding spaces and
// control characters ignored, tabs and newlines removed, '\' read as '/',
// characters outside the Standard's sets percent-encoded, IDN hosts
// converted to their ASCII form (libidn2, UTS #46 non-transitional), IPv4
// addresses in any spelling written dotted-decimal. On top, the crawler's
// own normalisation (RFC 3986 sections 6.2.2 and 6.2.3): fragment dropped,
// default port dropped, dot segments removed, scheme and host lower-case,
// escapes with upper-case hex, escapes of unreserved characters decoded,
// and every byte RFC 3986 forbids in a component escaped even where a
// browser sends it raw. The result is the URL a browser would request, up
// to these equivalences; docs/commands.md lists each rule, and
// tests/url_reference/ checks all of it against whatwg-url.
//
// Decisions beyond the Standard and RFC 3986:
// - An empty query ("http://a/?") is kept, as browsers keep it: a server
//   may answer "/?" differently from "/". A query is otherwise kept byte
//   for byte (parameter order and case included), apart from escaping.
// - Userinfo ("user:pass@") is kept: dropping it would change which
//   credentials a fetcher sends.
// - Bytes that are not UTF-8 are refused (a client that means a raw byte
//   sends %XX); port 0 is refused (nothing listens there); so are '"', '`',
//   '{' and '}' in a host, and IDN labels IDNA2008 forbids (libidn2 applies
//   it on top of UTS #46: "☃.com").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "util/status.h"

namespace frontier {

struct NormalizedUrl {
  std::string url;   // the normalised URL, e.g. "http://example.com/a/b?x=1"
  std::string host;  // lower-case host without port, e.g. "www.example.com"
                     // (IPv6 literals keep their brackets: "[::1]")
};

// Parses and normalises `raw`. Returns InvalidArgument with a message that
// names the problem ("URL is longer than 8192 bytes", "unsupported scheme
// 'ftp'", "URL has no host", "invalid host '...': ...", "invalid IDN host
// '...': ...", "empty URL", "invalid port '0': ...", "invalid UTF-8 at
// offset 7 ...") when the URL is refused; a message never contains a line
// break. `max_length` applies to the raw input and to the normalised
// result. The result borrows nothing.
StatusOr<NormalizedUrl> NormalizeUrl(std::string_view raw, size_t max_length);

// NormalizeUrl without its fast path for URLs that are plainly normal
// already (ASCII, no port, escape or dot segment): always the full parse.
// The same result for every input; tests and the fuzzer compare the two.
StatusOr<NormalizedUrl> NormalizeUrlFully(std::string_view raw,
                                          size_t max_length);

// True if `url` is its origin's robots.txt: the path is exactly
// "/robots.txt" and there is no query (RFC 9309 §2.3).
bool IsRobotsTxtUrl(const NormalizedUrl& url);

// The origin of `url` (RFC 9309 §2.3's scope of a robots.txt):
// "scheme://host[:port]", without userinfo; the port only if not the
// scheme's default (a normalised URL has none then).
std::string OriginOf(const NormalizedUrl& url);
// The same for a URL NormalizeUrl() wrote (a stored URL record's).
std::string OriginOf(std::string_view normalized_url);
// The part of a URL NormalizeUrl() wrote from its path on ("/a?b=c"):
// what robots.txt rules match (RFC 9309 §2.2.2).
std::string_view PathAndQueryOf(std::string_view normalized_url);

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
