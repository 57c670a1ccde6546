// The shape of a normalised URL that crawler traps give away: how many
// query parameters and how many path segments it has (a calendar's
// ?y=..&m=..&d=.. without end, /a/b/a/b/a/b/... from relative links).
//
// Pure: takes a URL as url/url.h's NormalizeUrl writes it
// ("scheme://host[:port]/path[?query]", no fragment).
#pragma once

#include <cstddef>
#include <string_view>

namespace frontier::scope {

// The parameters of the query: its '&'-separated parts that are not
// empty. "/?" and "/" have 0, "/?a=1&&b" has 2.
size_t QueryParamCount(std::string_view normalized_url);

// The segments of the path as RFC 3986 §3.3 counts them: one per '/'.
// "/" has 1 (an empty one), "/a/b" has 2, "/a/b/" has 3.
size_t PathSegmentCount(std::string_view normalized_url);

}  // namespace frontier::scope
