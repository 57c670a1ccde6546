// The links of an HTML page: the href of every <a> and <area>, resolved
// against the page's URL or its first <base href>, as a browser would.
// Parsing is gumbo's (HTML5, so any bytes parse); resolution is uriparser's
// (RFC 3986 section 5), with uriparser's syntax normalisation (section
// 6.2.2); links are freed of their fragment and kept to http and https.
// frontierd normalises further what it is given.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace worker {

// `reference` resolved against the absolute URL `base`, normalised (RFC
// 3986 section 6.2.2), without its fragment. Characters a URL cannot hold
// (spaces, non-ASCII bytes, ...) are percent-encoded first and tabs and
// newlines dropped, as browsers do. nullopt if either does not parse or the
// result is not http or https.
std::optional<std::string> ResolveLink(std::string_view base,
                                       std::string_view reference);

// The distinct http(s) links of `html`, in document order. `page_url` is the
// absolute URL the page was fetched from (after redirects).
std::vector<std::string> ExtractLinks(std::string_view html,
                                      std::string_view page_url);

}  // namespace worker
