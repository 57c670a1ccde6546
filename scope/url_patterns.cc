// UrlPatterns: see url_patterns.h.
#include "scope/url_patterns.h"

#include <re2/re2.h>

#include "scope/words.h"

namespace frontier::scope {

bool UrlPatterns::AddText(std::string_view text, std::string* error) {
  std::vector<Pattern> added;
  for (const std::string_view word : SplitWords(text, " \t\n\r")) {
    if (word.size() > kMaxPatternBytes) {
      *error = "pattern of " + std::to_string(word.size()) +
               " bytes is longer than " + std::to_string(kMaxPatternBytes);
      return false;
    }
    RE2::Options options;
    options.set_log_errors(false);  // the error goes to the user instead
    auto re = std::make_shared<const RE2>(
        re2::StringPiece(word.data(), word.size()), options);
    if (!re->ok()) {
      *error = "bad pattern '" + std::string(word) + "': " + re->error();
      return false;
    }
    added.push_back(Pattern{std::string(word), std::move(re)});
  }
  if (added.empty()) {
    *error = "expected one or more patterns";
    return false;
  }
  for (Pattern& p : added) {
    bool known = false;
    for (const Pattern& q : patterns_) known = known || q.text == p.text;
    if (!known) patterns_.push_back(std::move(p));
  }
  return true;
}

bool UrlPatterns::AnyMatches(std::string_view url) const {
  const re2::StringPiece input(url.data(), url.size());
  for (const Pattern& p : patterns_) {
    if (RE2::PartialMatch(input, *p.re)) return true;
  }
  return false;
}

std::string UrlPatterns::ToText() const {
  std::string out;
  for (const Pattern& p : patterns_) {
    if (!out.empty()) out += ' ';
    out += p.text;
  }
  return out;
}

}  // namespace frontier::scope
