// The first half of URL normalisation: an http(s) URL as the web writes it,
// read with the leniency of the WHATWG URL Standard's basic URL parser
// (https://url.spec.whatwg.org/#concept-basic-url-parser) and split into
// its components, each already in the form frontierd stores except the
// host, which url_host.h parses. Pure: no storage, no I/O. Used by url.cc.
#pragma once

#include <string>
#include <string_view>

#include "util/status.h"

namespace frontier::url_internal {

struct WebUrlParts {
  std::string scheme;    // "http" or "https"
  std::string userinfo;  // "user" or "user:password", escaped; "" if none
  std::string host;      // as written (escapes, UTF-8): for ParseHost
  std::string port;      // "8080"; "" when absent, empty or the default
  std::string path;      // starts with '/', no dot segments, escaped
  std::string query;     // "?..." escaped, "?" for an empty query; "" if none
};

// Splits `raw` as the Standard does for a special scheme without a base
// URL: leading and trailing C0 controls and spaces are ignored, tabs and
// newlines removed anywhere, '\' read as '/', any number of slashes
// accepted after "http:", userinfo split at the last '@', the fragment
// dropped, dot segments ("." "..", "%2e" in any case) removed. Path, query
// and userinfo are percent-encoded with the Standard's encode sets plus
// every byte RFC 3986 does not allow there ('[', ']', '|', '^', '\', '{',
// '}', '`', and a '%' that starts no escape); escapes get upper-case hex,
// and escapes of unreserved characters are decoded.
//
// Returns InvalidArgument naming the problem for: bytes that are not UTF-8
// (with their offset in `raw`), an empty URL, a relative reference, a
// scheme other than http and https, no host, a port that is not a number
// from 1 to 65535.
StatusOr<WebUrlParts> SplitWebUrl(std::string_view raw);

}  // namespace frontier::url_internal
