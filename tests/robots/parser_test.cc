// Tests for the line parser alone: what records a handler sees.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "robots/robots_parser.h"

namespace frontier::robots {
namespace {

using namespace std::string_literals;

struct Seen {
  int line;
  Directive directive;
  std::string key;
  std::string value;
  bool operator==(const Seen&) const = default;
};

class Recorder : public ParseHandler {
 public:
  void OnRecord(int line, Directive directive, std::string_view key,
                std::string_view value) override {
    seen.push_back({line, directive, std::string(key), std::string(value)});
  }
  std::vector<Seen> seen;
};

std::vector<Seen> Records(std::string_view body,
                          size_t max_bytes = kDefaultMaxBytes) {
  Recorder r;
  ParseRobotsTxt(body, max_bytes, r);
  return r.seen;
}

TEST(RobotsParser, KeysValuesCommentsAndLineNumbers) {
  EXPECT_EQ(Records("# header\n"
                    "User-Agent :  FooBot  # trailing comment\n"
                    "\n"
                    "\tDisallow:/a b \r\n"
                    "Allow:\n"
                    "Host: example.com\n"
                    "crawl-delay: 5\r"
                    "SITEMAP: http://x/s.xml\n"),
            (std::vector<Seen>{
                {2, Directive::kUserAgent, "User-Agent", "FooBot"},
                {4, Directive::kDisallow, "Disallow", "/a b"},
                {5, Directive::kAllow, "Allow", ""},
                {6, Directive::kUnknown, "Host", "example.com"},
                {7, Directive::kCrawlDelay, "crawl-delay", "5"},
                {8, Directive::kSitemap, "SITEMAP", "http://x/s.xml"},
            }));
}

TEST(RobotsParser, ValueKeepsLaterColons) {
  EXPECT_EQ(Records("sitemap: https://a.example:8080/s.xml"),
            (std::vector<Seen>{{1, Directive::kSitemap, "sitemap",
                                "https://a.example:8080/s.xml"}}));
}

TEST(RobotsParser, MissingColon) {
  EXPECT_EQ(Records("disallow /a b\nuser agent  FooBot\ncrawl delay 5\n"
                    "user bar baz\n"),
            (std::vector<Seen>{
                {1, Directive::kDisallow, "disallow", "/a b"},
                {2, Directive::kUserAgent, "user agent", "FooBot"},
                {3, Directive::kCrawlDelay, "crawl delay", "5"},
                {4, Directive::kUnknown, "user", "bar baz"},
            }));
}

TEST(RobotsParser, LoneWordsAreNoRecords) {
  EXPECT_TRUE(Records("foo\nbar\n:\n").size() == 1u);  // ":" has an empty key
  EXPECT_TRUE(Records("disallow\n").empty());
}

TEST(RobotsParser, SummaryCountsLinesAndTruncation) {
  Recorder r;
  ParseSummary s = ParseRobotsTxt("a: 1\r\nb: 2\n\nc: 3", 100, r);
  EXPECT_EQ(s.lines, 4);
  EXPECT_FALSE(s.truncated);
  s = ParseRobotsTxt("a: 1\nb: 2\n", 7, r);
  EXPECT_TRUE(s.truncated);
  EXPECT_EQ(s.lines, 1);
}

TEST(RobotsParser, NulAndBinaryBytesStayInValues) {
  EXPECT_EQ(
      Records("disallow: /a\0b\n"s),
      (std::vector<Seen>{{1, Directive::kDisallow, "disallow", "/a\0b"s}}));
}

TEST(RobotsParser, DirectiveNames) {
  EXPECT_EQ(DirectiveOf("User-Agent"), Directive::kUserAgent);
  EXPECT_EQ(DirectiveOf("CrawlDelay"), Directive::kCrawlDelay);
  EXPECT_EQ(DirectiveOf("crawl delay"), Directive::kCrawlDelay);
  EXPECT_EQ(DirectiveOf("Sitemaps"), Directive::kSitemap);
  EXPECT_EQ(DirectiveOf("disallows"), Directive::kUnknown);
  EXPECT_EQ(DirectiveOf(""), Directive::kUnknown);
}

}  // namespace
}  // namespace frontier::robots
