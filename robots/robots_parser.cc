// The robots.txt line parser: see robots_parser.h.
#include "robots/robots_parser.h"

#include <array>
#include <string_view>

#include "robots/ascii.h"

namespace frontier::robots {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

struct KeyName {
  std::string_view name;
  Directive directive;
};

constexpr std::array<KeyName, 16> kKeys = {{
    {"user-agent", Directive::kUserAgent},
    {"useragent", Directive::kUserAgent},
    {"user agent", Directive::kUserAgent},
    {"allow", Directive::kAllow},
    {"disallow", Directive::kDisallow},
    {"dissallow", Directive::kDisallow},
    {"dissalow", Directive::kDisallow},
    {"disalow", Directive::kDisallow},
    {"diasllow", Directive::kDisallow},
    {"disallaw", Directive::kDisallow},
    {"crawl-delay", Directive::kCrawlDelay},
    {"crawldelay", Directive::kCrawlDelay},
    {"crawl delay", Directive::kCrawlDelay},
    {"sitemap", Directive::kSitemap},
    {"sitemaps", Directive::kSitemap},
    {"site-map", Directive::kSitemap},
}};

// Reads one line (without its terminator) into the handler.
void ParseLine(int number, std::string_view line, ParseHandler& handler) {
  const size_t hash = line.find('#');
  if (hash != std::string_view::npos) line = line.substr(0, hash);
  line = Trim(line);
  if (line.empty()) return;

  std::string_view key;
  std::string_view value;
  const size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    key = Trim(line.substr(0, colon));
    value = Trim(line.substr(colon + 1));
  } else {
    size_t blank = 0;
    while (blank < line.size() && !IsBlank(line[blank])) ++blank;
    if (blank == line.size()) return;  // a lone word: no record
    key = line.substr(0, blank);
    value = Trim(line.substr(blank));
    // "user agent FooBot", "crawl delay 5": a two-word key.
    size_t second = 0;
    while (second < value.size() && !IsBlank(value[second])) ++second;
    if (second < value.size()) {
      const std::string_view two_words =
          line.substr(0, value.data() - line.data() + second);
      if (DirectiveOf(key) == Directive::kUnknown &&
          DirectiveOf(two_words) != Directive::kUnknown) {
        key = two_words;
        value = Trim(value.substr(second));
      }
    }
  }
  handler.OnRecord(number, DirectiveOf(key), key, value);
}

}  // namespace

Directive DirectiveOf(std::string_view key) {
  for (const KeyName& k : kKeys) {
    if (EqualsIgnoreAsciiCase(key, k.name)) return k.directive;
  }
  return Directive::kUnknown;
}

ParseSummary ParseRobotsTxt(std::string_view body, size_t max_bytes,
                            ParseHandler& handler) {
  ParseSummary summary;
  if (body.size() > max_bytes) {
    summary.truncated = true;
    body = body.substr(0, max_bytes);
    const size_t end = body.find_last_of("\r\n");
    body = end == std::string_view::npos ? std::string_view()
                                         : body.substr(0, end + 1);
  }
  // The byte order mark, or as much of it as the file starts with.
  static constexpr std::string_view kBom = "\xEF\xBB\xBF";
  for (size_t i = 0; i < kBom.size() && !body.empty() && body[0] == kBom[i];
       ++i) {
    body.remove_prefix(1);
  }

  size_t pos = 0;
  while (pos < body.size()) {
    size_t end = pos;
    while (end < body.size() && body[end] != '\n' && body[end] != '\r') ++end;
    ++summary.lines;
    ParseLine(summary.lines, body.substr(pos, end - pos), handler);
    if (end < body.size() && body[end] == '\r' && end + 1 < body.size() &&
        body[end + 1] == '\n') {
      ++end;
    }
    pos = end + 1;
  }
  return summary;
}

}  // namespace frontier::robots
