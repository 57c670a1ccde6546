// Tests for Rules' compact byte form and its refusal of bad bytes.
#include "robots/rules.h"

#include <gtest/gtest.h>

#include <string>

#include "robots/agent_rules.h"
#include "robots/matcher.h"

namespace frontier::robots {
namespace {

Rules Sample() {
  return RulesForAgent(
      "Sitemap: https://example.com/a.xml\n"
      "User-agent: *\nDisallow: /\n"
      "User-agent: frontierd\nCrawl-delay: 1.5\n"
      "Disallow: /private\nAllow: /private/open\nDisallow: /*.pdf$\n"
      "Sitemap: https://example.com/b.xml\n",
      "frontierd");
}

TEST(RulesSerialize, RoundTripKeepsEverything) {
  const Rules rules = Sample();
  ASSERT_EQ(rules.match, GroupMatch::kAgent);
  ASSERT_EQ(rules.rules.size(), 3u);
  ASSERT_EQ(rules.groups, 2u);
  ASSERT_EQ(rules.crawl_delay_ms, 1500);
  ASSERT_EQ(rules.sitemaps.size(), 2u);

  const std::string bytes = rules.Serialize();
  const std::optional<Rules> back = Rules::Parse(bytes);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, rules);
  EXPECT_FALSE(Allowed(*back, "/private/x"));
  EXPECT_TRUE(Allowed(*back, "/private/open/x"));
  EXPECT_FALSE(Allowed(*back, "/a.pdf"));
  EXPECT_TRUE(Allowed(*back, "/"));
}

TEST(RulesSerialize, IsCompact) {
  // The stored form costs about the pattern bytes, not the file's size.
  const Rules rules = Sample();
  size_t payload = 0;
  for (const Rule& r : rules.rules) payload += r.pattern.size();
  for (const std::string& s : rules.sitemaps) payload += s.size();
  EXPECT_LE(rules.Serialize().size(), payload + 20);
}

TEST(RulesSerialize, EmptyRulesRoundTrip) {
  const Rules empty;
  EXPECT_EQ(Rules::Parse(empty.Serialize()), empty);
  Rules zero_delay;
  zero_delay.crawl_delay_ms = 0;
  zero_delay.truncated = true;
  EXPECT_EQ(Rules::Parse(zero_delay.Serialize()), zero_delay);
}

TEST(RulesSerialize, StoredCrawlDelayReadsTheHeaderAlone) {
  std::optional<int64_t> delay;
  ASSERT_TRUE(StoredCrawlDelay(Sample().Serialize(), &delay));
  EXPECT_EQ(delay, 1500);
  Rules zero;
  zero.crawl_delay_ms = 0;
  ASSERT_TRUE(StoredCrawlDelay(zero.Serialize(), &delay));
  EXPECT_EQ(delay, 0);
  ASSERT_TRUE(StoredCrawlDelay(Rules().Serialize(), &delay));
  EXPECT_EQ(delay, std::nullopt);
  EXPECT_FALSE(StoredCrawlDelay("", &delay));
  EXPECT_FALSE(StoredCrawlDelay(std::string("\x7f\0\0\0\0", 5), &delay));
  const std::string good = Sample().Serialize();
  EXPECT_FALSE(StoredCrawlDelay(good.substr(0, 4), &delay));  // cut
}

TEST(RulesSerialize, RefusesBadBytes) {
  const std::string good = Sample().Serialize();
  EXPECT_FALSE(Rules::Parse(""));
  EXPECT_FALSE(Rules::Parse(good + "x")) << "trailing bytes";
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_FALSE(Rules::Parse(good.substr(0, n))) << "cut at " << n;
  }
  std::string other_version = good;
  other_version[0] = 2;
  EXPECT_FALSE(Rules::Parse(other_version));
  std::string bad_match = good;
  bad_match[1] = 7;
  EXPECT_FALSE(Rules::Parse(bad_match));
  // A count far beyond the bytes left is refused, not allocated.
  std::string huge_count("\x01\x00\x00\x00\x00\xff\xff\xff\xff\x0f", 10);
  EXPECT_FALSE(Rules::Parse(huge_count));
}

TEST(RulesSerialize, AllowedStoredAnswersAsAllowed) {
  const Rules rules = Sample();
  const std::string bytes = rules.Serialize();
  for (std::string_view path :
       {"/", "/private", "/private/x", "/private/open", "/private/open/y",
        "/a.pdf", "/a.pdf?x", "/robots.txt", "/%70rivate/x", ""}) {
    EXPECT_EQ(AllowedStored(bytes, path), Allowed(rules, path)) << path;
  }
  EXPECT_EQ(AllowedStored(bytes, "/private/x"), false);
  EXPECT_EQ(AllowedStored(bytes, "/private/open/y"), true);
  EXPECT_EQ(AllowedStored("", "/"), std::nullopt);
  EXPECT_EQ(AllowedStored(bytes.substr(0, bytes.size() - 2), "/zzz"),
            std::nullopt)
      << "cut short before a decision";
  EXPECT_EQ(AllowedStored(Rules().Serialize(), "/x"), true);
}

TEST(RulesSerialize, UnsortedRulesAreStoredInMatchingOrder) {
  Rules rules;
  rules.rules = {{false, "/a"}, {true, "/a/b"}};  // not SortRules()ed
  EXPECT_EQ(AllowedStored(rules.Serialize(), "/a/b"), true);
  EXPECT_EQ(AllowedStored(rules.Serialize(), "/a/c"), false);
}

TEST(RulesSerialize, ParseRestoresTheMatchingOrder) {
  Rules rules;
  rules.rules = {{false, "/a"}, {true, "/a/b"}};  // out of order
  const std::optional<Rules> back = Rules::Parse(rules.Serialize());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->rules.front().pattern, "/a/b");
  EXPECT_TRUE(Allowed(*back, "/a/b"));
}

}  // namespace
}  // namespace frontier::robots
