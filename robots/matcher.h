// Allowed: does a robots.txt's Rules let the crawler fetch a path?
#pragma once

#include <optional>
#include <string_view>

#include "robots/rules.h"

namespace frontier::robots {

// True if `rules` allow fetching `path_and_query`, the part of a URL from
// the path on ("/a/b?c=d"; the fragment already removed; "" means "/").
//
// The path is brought to the canonical form first (path_encoding.h), so
// plain and percent-encoded spellings answer alike. The most specific
// matching rule decides: the longest pattern, allow winning a tie; no
// matching rule means allowed (RFC 9309 §2.2.2). "/robots.txt" itself
// (with any query) is always allowed (§2.2.2).
// Cost: one pass over the path per rule tried, longest rules first,
// stopping at the first match; a pattern with several '*' may backtrack
// (at worst path × pattern steps).
bool Allowed(const Rules& rules, std::string_view path_and_query);

// Allowed() straight from a Rules::Serialize() string, without parsing it
// into Rules first: no allocation unless the path needs re-spelling, and
// it stops reading at the deciding rule. nullopt if `stored` is not such a
// string as far as it was read (bytes after the deciding rule are not
// checked: use it on bytes the process wrote itself).
std::optional<bool> AllowedStored(std::string_view stored,
                                  std::string_view path_and_query);

// True if `pattern` (a rule's pattern: '*' any bytes, a final '$' the end)
// matches the start of `path` (or, with '$', all of it). Both must already
// be canonical; no decoding happens here.
bool PatternMatches(std::string_view pattern, std::string_view path);

}  // namespace frontier::robots
