#include "server/glob.h"

namespace frontier {
namespace {

char Fold(char c, bool nocase) {
  return (nocase && c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a')
                                          : c;
}

// Matches one [...] class starting just after '['. Advances *p past the
// closing ']' (or to the end) and returns whether `c` is in the class.
bool MatchClass(std::string_view pattern, size_t* p, char c, bool nocase) {
  bool negate = *p < pattern.size() && pattern[*p] == '^';
  if (negate) ++*p;
  bool match = false;
  while (*p < pattern.size() && pattern[*p] != ']') {
    if (pattern[*p] == '\\' && *p + 1 < pattern.size()) {
      ++*p;
      if (Fold(pattern[*p], nocase) == Fold(c, nocase)) match = true;
    } else if (*p + 2 < pattern.size() && pattern[*p + 1] == '-' &&
               pattern[*p + 2] != ']') {
      char lo = Fold(pattern[*p], nocase), hi = Fold(pattern[*p + 2], nocase);
      if (lo > hi) {
        char t = lo;
        lo = hi;
        hi = t;
      }
      char fc = Fold(c, nocase);
      if (fc >= lo && fc <= hi) match = true;
      *p += 2;
    } else if (Fold(pattern[*p], nocase) == Fold(c, nocase)) {
      match = true;
    }
    ++*p;
  }
  if (*p < pattern.size()) ++*p;  // the ']'
  return negate ? !match : match;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text, bool nocase) {
  // Iterative matcher with one backtrack point for the last '*': linear
  // in practice, and never recursive however many stars the pattern has.
  size_t p = 0, t = 0;
  size_t star_p = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size()) {
      char pc = pattern[p];
      if (pc == '*') {
        while (p < pattern.size() && pattern[p] == '*') ++p;
        if (p == pattern.size()) return true;
        star_p = p;
        star_t = t;
        continue;
      }
      if (pc == '?') {
        ++p;
        ++t;
        continue;
      }
      if (pc == '[') {
        size_t q = p + 1;
        if (MatchClass(pattern, &q, text[t], nocase)) {
          p = q;
          ++t;
          continue;
        }
      } else {
        if (pc == '\\' && p + 1 < pattern.size()) {
          ++p;
          pc = pattern[p];
        }
        if (Fold(pc, nocase) == Fold(text[t], nocase)) {
          ++p;
          ++t;
          continue;
        }
      }
    }
    // Mismatch: let the last '*' swallow one more character.
    if (star_p == std::string_view::npos) return false;
    p = star_p;
    t = ++star_t;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace frontier
