// Matching paths against one agent's rules: see matcher.h.
#include "robots/matcher.h"

#include <string>

#include "robots/path_encoding.h"

namespace frontier::robots {

bool PatternMatches(std::string_view pattern, std::string_view path) {
  const bool anchored = !pattern.empty() && pattern.back() == '$';
  if (anchored) pattern.remove_suffix(1);
  // The literal head, up to the first '*': most rules end or fail in it.
  size_t head = 0;
  while (head < pattern.size() && pattern[head] != '*') {
    if (head >= path.size() || pattern[head] != path[head]) return false;
    ++head;
  }
  if (head == pattern.size()) return !anchored || path.size() == head;
  pattern.remove_prefix(head);
  path.remove_prefix(head);
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

namespace {

// The canonical spelling of a path to match, in *storage if it differs.
// Sets *robots_txt if the path is /robots.txt, which is always allowed.
std::string_view PathToMatch(std::string_view path_and_query,
                             std::string* storage, bool* robots_txt) {
  if (path_and_query.empty()) path_and_query = "/";
  if (!IsCanonicalPath(path_and_query)) {
    *storage = CanonicalPath(path_and_query);
    path_and_query = *storage;
  }
  *robots_txt =
      path_and_query.substr(0, path_and_query.find('?')) == "/robots.txt";
  return path_and_query;
}

}  // namespace

bool Allowed(const Rules& rules, std::string_view path_and_query) {
  std::string storage;
  bool robots_txt = false;
  const std::string_view path =
      PathToMatch(path_and_query, &storage, &robots_txt);
  if (robots_txt) return true;
  for (const Rule& rule : rules.rules) {
    if (PatternMatches(rule.pattern, path)) return rule.allow;
  }
  return true;
}

std::optional<bool> AllowedStored(std::string_view stored,
                                  std::string_view path_and_query) {
  StoredRules rules;
  if (!rules.Open(stored)) return std::nullopt;
  std::string storage;
  bool robots_txt = false;
  const std::string_view path =
      PathToMatch(path_and_query, &storage, &robots_txt);
  if (robots_txt) return true;
  bool allow = false;
  std::string_view pattern;
  while (rules.Next(&allow, &pattern)) {
    if (PatternMatches(pattern, path)) return allow;
  }
  if (!rules.ok()) return std::nullopt;
  return true;
}

}  // namespace frontier::robots
