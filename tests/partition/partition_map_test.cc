#include "partition/partition_map.h"

#include <gtest/gtest.h>

namespace frontier::partition {
namespace {

PartitionMap MapOf(std::string_view text) {
  PartitionMap map;
  std::string error;
  EXPECT_TRUE(map.AddText(text, &error)) << error;
  return map;
}

TEST(PartitionMapTest, EmptyMapPutsEveryHostInDefault) {
  PartitionMap map;
  EXPECT_EQ(map.size(), 1u);
  EXPECT_TRUE(map.trivial());
  EXPECT_EQ(map.name(0), "default");
  EXPECT_EQ(map.Match("www.example.com"), PartitionMap::kDefault);
  EXPECT_EQ(map.ToText(), "");
}

TEST(PartitionMapTest, SuffixMatchesLabelByLabel) {
  PartitionMap map = MapOf("edu edu, ex example.com");
  const size_t edu = *map.Find("edu");
  const size_t ex = *map.Find("ex");
  EXPECT_EQ(map.Match("cs.mit.edu"), edu);
  EXPECT_EQ(map.Match("edu"), edu);
  EXPECT_EQ(map.Match("example.com"), ex);
  EXPECT_EQ(map.Match("www.example.com"), ex);
  EXPECT_EQ(map.Match("a.b.example.com"), ex);
  EXPECT_EQ(map.Match("badexample.com"), PartitionMap::kDefault);
  EXPECT_EQ(map.Match("example.com.evil.org"), PartitionMap::kDefault);
  EXPECT_EQ(map.Match("seduce"), PartitionMap::kDefault);
  EXPECT_EQ(map.Match("com"), PartitionMap::kDefault);
}

TEST(PartitionMapTest, LeadingDotAndCaseAreIgnored) {
  PartitionMap map = MapOf("e .EDU");
  EXPECT_EQ(map.suffixes(1), std::vector<std::string>{"edu"});
  EXPECT_EQ(map.Match("cs.mit.edu"), 1u);
}

TEST(PartitionMapTest, LongestSuffixWins) {
  PartitionMap map = MapOf("uk uk\nbbc bbc.co.uk news.bbc.com,co co.uk");
  EXPECT_EQ(map.Match("www.bbc.co.uk"), *map.Find("bbc"));
  EXPECT_EQ(map.Match("www.gov.co.uk"), *map.Find("co"));
  EXPECT_EQ(map.Match("ac.uk"), *map.Find("uk"));
  EXPECT_EQ(map.Match("news.bbc.com"), *map.Find("bbc"));
  EXPECT_EQ(map.Match("bbc.com"), PartitionMap::kDefault);
}

TEST(PartitionMapTest, TextRoundTrips) {
  PartitionMap map = MapOf(" a  x.com\ty.org ,b z.net\n");
  EXPECT_EQ(map.ToText(), "a x.com y.org\nb z.net");
  EXPECT_EQ(MapOf(map.ToText()), map);
  EXPECT_EQ(map.Find("b"), 2u);
  EXPECT_EQ(map.Find("c"), std::nullopt);
  EXPECT_EQ(map.Find("default"), 0u);
}

TEST(PartitionMapTest, BadInputIsRefusedAndChangesNothing) {
  PartitionMap map = MapOf("a x.com");
  const PartitionMap before = map;
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"a y.com", "declared twice"},
      {"b x.com", "is in partitions 'a' and 'b'"},
      {"b y.com Y.COM", "listed twice"},
      {"b", "has no suffix"},
      {"default y.com", "reserved"},
      {"b y..com", "bad suffix 'y..com'"},
      {"b .", "bad suffix '.'"},
      {"b y.com.", "bad suffix"},
      {"b y/com", "bad suffix"},
      {"b *.y.com", "bad suffix"},
      {"b/c y.com", "may hold only"},
      {"c y.com, ,d z.com", "empty partition"},
      {"", "expected NAME"},
      {"c y.com, d z.com, e x.com", "is in partitions"},
  };
  for (const auto& [text, why] : cases) {
    std::string error;
    EXPECT_FALSE(map.AddText(text, &error)) << text;
    EXPECT_NE(error.find(why), std::string::npos) << text << ": " << error;
    EXPECT_EQ(map, before) << text;
  }
  std::string error;
  EXPECT_FALSE(map.Add(std::string(65, 'n'), {"y.com"}, &error));
  EXPECT_TRUE(map.Add(std::string(64, 'n'), {"y.com"}, &error)) << error;
}

}  // namespace
}  // namespace frontier::partition
