// Byte-level helpers shared by the URL files (url.cc, url_lenient.cc,
// url_host.cc): ASCII only, no locale, no allocation beyond the result.
#pragma once

#include <string>
#include <string_view>

namespace frontier::url_internal {

inline constexpr char kHexDigits[] = "0123456789ABCDEF";

// The value of hex digit `c` (either case), or -1 if it is not one.
inline int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// `text` with ASCII letters lower-cased; other bytes (UTF-8 included) kept.
inline std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace frontier::url_internal
