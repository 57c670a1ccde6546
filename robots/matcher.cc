// Matching paths against one agent's rules: see matcher.h.
#include "robots/matcher.h"

#include <string>

#include "robots/path_encoding.h"

namespace frontier::robots {

bool PatternMatches(std::string_view pattern, std::string_view path) {
  const bool anchored = !pattern.empty() && pattern.back() == '$';
  if (anchored) pattern.remove_suffix(1);
  // Glob matching with one saved '*': on a mismatch, let the last '*' seen
  // take one more byte and try again from there. A pattern without '$' is
  // a prefix: having used all of it is a match.
  constexpr size_t kNoStar = std::string_view::npos;
  size_t p = 0;
  size_t s = 0;
  size_t star = kNoStar;
  size_t star_s = 0;
  while (s < path.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_s = s;
    } else if (p == pattern.size() && !anchored) {
      return true;
    } else if (p < pattern.size() && pattern[p] == path[s]) {
      ++p;
      ++s;
    } else if (star != kNoStar) {
      p = star + 1;
      s = ++star_s;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool Allowed(const Rules& rules, std::string_view path_and_query) {
  if (path_and_query.empty()) path_and_query = "/";
  std::string canonical;
  if (!IsCanonicalPath(path_and_query)) {
    canonical = CanonicalPath(path_and_query);
    path_and_query = canonical;
  }
  const std::string_view path =
      path_and_query.substr(0, path_and_query.find('?'));
  if (path == "/robots.txt") return true;
  for (const Rule& rule : rules.rules) {
    if (PatternMatches(rule.pattern, path_and_query)) return rule.allow;
  }
  return true;
}

}  // namespace frontier::robots
