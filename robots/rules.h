// Rules: what one crawler must obey on one origin, as parsed from that
// origin's robots.txt, in a form small enough to store.
//
// A robots.txt holds groups for many crawlers; a crawler only ever needs
// the group for its own product token (RFC 9309 §2.2.1). Rules keeps just
// that: the matched group's allow/disallow patterns (canonical, most
// specific first), its Crawl-delay, and the file's Sitemap lines, plus a
// few counts for operators. RulesForAgent (agent_rules.h) builds one from
// a body; Allowed (matcher.h) answers for a path. Serialize/Parse turn it
// into a compact byte string and back, so storage keeps the rules per
// origin instead of the raw file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace frontier::robots {

// Crawl-delay values above this are kept as this (one day). The caller
// applies its own, smaller cap (robots-max-crawl-delay).
inline constexpr int64_t kMaxCrawlDelayMs = 86400 * 1000LL;

struct Rule {
  bool allow = false;
  // Canonical (path_encoding.h), starting with '/' or '*'. '*' matches any
  // run of bytes; a final '$' anchors the end of the path. Never empty.
  std::string pattern;

  bool operator==(const Rule&) const = default;
};

// Which group of the file the rules come from.
enum class GroupMatch : uint8_t {
  kNone = 0,    // no group names the agent and there is no '*' group:
                // everything is allowed
  kGlobal = 1,  // the '*' group(s)
  kAgent = 2,   // the group(s) naming the agent's product token
};

struct Rules {
  GroupMatch match = GroupMatch::kNone;
  // Sorted by pattern length, longest first, and among equal lengths allow
  // before disallow: the first rule that matches a path decides (RFC 9309
  // §2.2.2: the most specific match wins, allow wins a tie). RulesForAgent
  // and Parse keep this order; code that edits `rules` calls SortRules().
  std::vector<Rule> rules;
  // Crawl-delay of the matched group in milliseconds, at most
  // kMaxCrawlDelayMs; nullopt if the group has none.
  std::optional<int64_t> crawl_delay_ms;
  // Sitemap values in file order (not fetched, not checked to be URLs).
  std::vector<std::string> sitemaps;
  uint32_t groups = 0;     // groups in the whole file, for any agent (a
                           // crawl-delay line ends one: agent_rules.h)
  bool truncated = false;  // the body was longer than the parse limit

  bool operator==(const Rules&) const = default;

  // Restores the order documented at `rules`.
  void SortRules();

  // A compact byte string holding every field (a version byte, then
  // varints and length-prefixed strings), the rules in matching order even
  // if `rules` was left unsorted. Stable across releases: a new layout gets
  // a new version byte and Parse keeps reading the old ones.
  std::string Serialize() const;

  // The Rules that Serialize wrote into `bytes`; nullopt if `bytes` is not
  // such a string (bad version, cut short, trailing bytes, a rule that is
  // not a pattern). Never crashes, whatever the bytes.
  static std::optional<Rules> Parse(std::string_view bytes);
};

// True if rule `a` is tried before rule `b` (the order at Rules::rules).
bool RuleBefore(const Rule& a, const Rule& b);

// The Crawl-delay of a Rules::Serialize() string, read from its header
// alone (no parse, no allocation): true and sets *delay_ms (nullopt: the
// rules give none); false if `stored` does not start like such a string.
bool StoredCrawlDelay(std::string_view stored,
                      std::optional<int64_t>* delay_ms);

// Reads the rules of a Rules::Serialize() string in place, in matching
// order, without copying or allocating: for matching straight from the
// stored bytes (matcher.h: AllowedStored). `stored` must outlive it.
class StoredRules {
 public:
  // Reads the header. False if `stored` does not start like a string
  // Serialize wrote.
  bool Open(std::string_view stored);

  // The next rule: true and sets *allow and *pattern (a view into
  // `stored`); false at the end, or when the bytes are bad (then ok() is
  // false).
  bool Next(bool* allow, std::string_view* pattern);

  bool ok() const { return ok_; }

 private:
  std::string_view rest_;
  uint64_t left_ = 0;
  bool ok_ = false;
};

}  // namespace frontier::robots
