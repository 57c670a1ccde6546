// The canonical spelling of a URL path (and query) for robots.txt matching.
//
// RFC 9309 §2.2.2: octets outside ASCII, and those a URI may not carry,
// are compared percent-encoded; a percent-encoded octet of an unreserved
// character (RFC 3986 §2.3: ALPHA DIGIT - . _ ~) is compared decoded; the
// encoding of a reserved character (":/?#[]@!$&'()*+,;=") stays encoded,
// since "/a%2Fb" and "/a/b" are different paths. Rules and paths are both
// brought to this form, so "/%7Efoo" matches "/~foo", and "/ツ" matches
// "/%E3%83%84" and "/%e3%83%84".
//
// '*' and '$' are wildcards in a pattern (§2.2.3), so a pattern spells a
// literal one "%2A" or "%24"; a URL's path has no wildcards, so its '*' and
// '$' are compared encoded: "/a-%2A" matches the path "/a-*".
#pragma once

#include <string>
#include <string_view>

namespace frontier::robots {

// Returns the canonical form of a URL's path (and query) `path`: %XX of an
// unreserved character decoded; every other %XX with upper-case hex
// digits; a '%' not followed by two hex digits, control bytes, space, DEL,
// bytes >= 0x80, '"' '<' '>' '\\' '^' '`' '{' '|' '}' and the wildcards
// '*' and '$' percent-encoded. Idempotent.
std::string CanonicalPath(std::string_view path);

// True if CanonicalPath(path) == path (the common case; saves a copy).
bool IsCanonicalPath(std::string_view path);

// The canonical form of a robots.txt path pattern: as CanonicalPath, except
// that every '*' and a final '$' stay wildcards (a '$' elsewhere is a
// literal and becomes "%24"). Idempotent.
std::string CanonicalPattern(std::string_view pattern);

}  // namespace frontier::robots
