// UrlPatterns: a list of regular expressions (RE2 syntax) matched against
// normalised URLs, for the scope's deny and allow lists. RE2 runs in time
// linear in the URL whatever the pattern, so a pattern from a
// configuration cannot stall the server's loop (no backtracking).
//
// Pure: strings in, answers out; no storage, sockets or RESP. Copies share
// the compiled expressions (immutable, and RE2 objects are safe to share).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace frontier::scope {

class UrlPatterns {
 public:
  // Longest pattern accepted, in bytes; a longer one is refused.
  static constexpr size_t kMaxPatternBytes = 4096;

  // Compiles the patterns of `text`, separated by spaces, tabs or
  // newlines (a normalised URL holds no space: write \s or \x20 for one in
  // a pattern), and appends them. All or nothing: returns false, sets
  // *error to a sentence naming the pattern and RE2's reason, and leaves
  // the list unchanged if a pattern does not compile or is too long, or if
  // `text` holds none. A pattern given twice counts once.
  bool AddText(std::string_view text, std::string* error);

  bool empty() const { return patterns_.empty(); }
  size_t size() const { return patterns_.size(); }

  // True if at least one pattern matches somewhere in `url` (unanchored:
  // use ^ and $ to anchor). False for an empty list.
  bool AnyMatches(std::string_view url) const;

  // The patterns as given, separated by spaces: what AddText() reads back
  // ("" for none).
  std::string ToText() const;

  bool operator==(const UrlPatterns& other) const {
    return ToText() == other.ToText();
  }

 private:
  struct Pattern {
    std::string text;
    std::shared_ptr<const re2::RE2> re;
  };
  std::vector<Pattern> patterns_;
};

}  // namespace frontier::scope
