// Glob-style pattern matching as Redis's stringmatchlen() does it, for
// CONFIG GET patterns (and any other command that takes one).
#pragma once

#include <string_view>

namespace frontier {

// Whether `text` matches `pattern`, where
//   *      matches any run of characters (also none),
//   ?      matches one character,
//   [abc]  matches one of the listed characters; [^abc] one that is not
//          listed; [a-z] a range (either order); \ quotes inside brackets,
//   \x     matches x literally.
// With `nocase`, ASCII letters match regardless of case. An unclosed [
// matches up to the end of the pattern, as in Redis.
bool GlobMatch(std::string_view pattern, std::string_view text, bool nocase);

}  // namespace frontier
