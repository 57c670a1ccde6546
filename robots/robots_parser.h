// The robots.txt line parser (RFC 9309 §2.2), with no matching in it.
//
// Bytes in, directives out: the parser splits a robots.txt body into
// records ("key: value" lines), recognises the keys RFC 9309 defines plus
// the usual extensions and misspellings, and reports each record to a
// ParseHandler. What a group is, which group applies and how paths match
// is the handler's business (robots_rules.h builds the rules of one agent
// from it). Keeping the two apart lets a caller look at a file in other
// ways (a linter, statistics) without touching the matcher.
//
// Any bytes are accepted: binary data, NUL, a missing final newline, CR,
// LF or CRLF line ends, a UTF-8 byte order mark, lines of any length. No
// input makes the parser fail, allocate without bound or crash.
#pragma once

#include <cstddef>
#include <string_view>

namespace frontier::robots {

// RFC 9309 §2.5: a parsing limit of at least 500 KiB. The caller passes
// its own; this is the default the server's robots-max-bytes uses.
inline constexpr size_t kDefaultMaxBytes = 512 * 1024;

enum class Directive {
  kUserAgent,   // "user-agent", also "useragent", "user agent"
  kAllow,       // "allow"
  kDisallow,    // "disallow", also "dissallow", "dissalow", "disalow",
                // "diasllow", "disallaw"
  kCrawlDelay,  // "crawl-delay", also "crawldelay", "crawl delay"
  kSitemap,     // "sitemap", also "sitemaps", "site-map"
  kUnknown,     // any other key ("host", "request-rate", typos, junk)
};

// Receives the records of a file in order. Views passed to OnRecord are
// valid only during the call.
class ParseHandler {
 public:
  virtual ~ParseHandler() = default;

  // One record. `line` counts from 1 (CR, LF and CRLF each end one line).
  // `key` is the key as written (trimmed); `value` has its comment and the
  // surrounding spaces and tabs removed and may be empty ("Disallow:").
  // Lines with neither a key nor a value (blank, comment-only) are not
  // reported. Lines of any length are: the body's limit (max_bytes) is
  // the only bound, since a long pattern with wildcards can match short
  // paths, and dropping or cutting it would allow what it blocks.
  virtual void OnRecord(int line, Directive directive, std::string_view key,
                        std::string_view value) = 0;
};

// What ParseRobotsTxt saw, for callers that report on a file.
struct ParseSummary {
  bool truncated = false;  // the body was longer than max_bytes
  int lines = 0;           // lines read (within the limit)
};

// Parses the first `max_bytes` bytes of `body` and reports every record to
// `handler`. When the body is longer, the last line that the limit cuts in
// two is dropped rather than read in part (a cut "Allow: /public" would
// allow "/p"). A UTF-8 byte order mark (or a leading part of one) at the
// start is skipped. A line without ':' is read as "key value", split at
// its first space or tab, or its second if the first word is no key and
// the first two are ("user agent FooBot"): a missing colon is a common
// mistake whose meaning is plain. Keys compare case-insensitively.
ParseSummary ParseRobotsTxt(std::string_view body, size_t max_bytes,
                            ParseHandler& handler);

// The directive a key names (case-insensitive; kUnknown if none).
Directive DirectiveOf(std::string_view key);

}  // namespace frontier::robots
