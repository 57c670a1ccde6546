// The canonical spelling of a URL path (and query) for robots.txt matching.
//
// RFC 9309 §2.2.2 compares paths octet by octet after percent-encoding:
// octets outside ASCII are compared encoded, an encoded unreserved
// character decoded, and a reserved character and its encoding alike (the
// RFC's table matches "/foo/bar?baz=https://foo.bar" with
// "/foo/bar?baz=https%3A%2F%2Ffoo.bar"). Rules and paths are both brought
// to one spelling, so "/%7Ejoe" matches "/~joe", "/a:b" matches "/a%3Ab",
// and "/ツ", "/%E3%83%84" and "/%e3%83%84" are one path.
//
// Some encodings are data that the plain character would not be, and stay
// encoded: "%2F" in the path part (a%2Fb is one segment, a/b two), "%3F"
// (a literal '?', not the start of the query), "%25", "%23", and "%2A" and
// "%24": '*' and '$' are wildcards in a pattern (§2.2.3), so a pattern
// spells a literal one encoded, and a URL's '*' and '$' are compared
// encoded: the pattern "/a-%2A" matches the path "/a-*".
#pragma once

#include <string>
#include <string_view>

namespace frontier::robots {

// Returns the canonical form of a URL's path and query, `path`:
//   - %XX is decoded, except the encodings listed above, which keep their
//     %XX with upper-case hex digits;
//   - a '%' not followed by two hex digits becomes "%25";
//   - control bytes, space, DEL, bytes >= 0x80, '"' '#' '<' '>' '\\' '^' '`'
//     '{' '|' '}' and the wildcards '*' and '$' are percent-encoded.
// The query starts at the first literal '?'. Idempotent.
std::string CanonicalPath(std::string_view path);

// True if CanonicalPath(path) == path (the common case; saves a copy).
bool IsCanonicalPath(std::string_view path);

// The canonical form of a robots.txt path pattern: as CanonicalPath, except
// that every '*' and a final '$' stay wildcards (a '$' elsewhere is a
// literal and becomes "%24"). Idempotent.
std::string CanonicalPattern(std::string_view pattern);

}  // namespace frontier::robots
