// ASCII helpers shared by the robots.txt parser and group matching: keys
// and product tokens compare case-insensitively in ASCII only, whatever
// the locale.
#pragma once

#include <algorithm>
#include <string_view>

namespace frontier::robots {

inline char AsciiLower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

inline bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return AsciiLower(x) == AsciiLower(y);
         });
}

}  // namespace frontier::robots
