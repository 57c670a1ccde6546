// Tests for the canonical spelling paths and patterns are compared in.
#include "robots/path_encoding.h"

#include <gtest/gtest.h>

#include <string>

namespace frontier::robots {
namespace {

using namespace std::string_literals;

TEST(CanonicalPath, DecodesWhatThePlainCharacterMeansAlike) {
  EXPECT_EQ(CanonicalPath("/%62%61%7A"), "/baz");
  EXPECT_EQ(CanonicalPath("/%7e%2D%2e%5F"), "/~-._");
  EXPECT_EQ(CanonicalPath("/a%3Ab%40c%21%26%3d%2B"), "/a:b@c!&=+");
  EXPECT_EQ(CanonicalPath("/?baz=https%3A%2F%2Ffoo.bar"),
            "/?baz=https://foo.bar");
}

TEST(CanonicalPath, KeepsEncodingsThatAreData) {
  EXPECT_EQ(CanonicalPath("/a%2fb"), "/a%2Fb") << "one segment, not two";
  EXPECT_EQ(CanonicalPath("/a%3fb?c"), "/a%3Fb?c") << "not a query";
  EXPECT_EQ(CanonicalPath("/%25%23"), "/%25%23");
  EXPECT_EQ(CanonicalPath("/%2a%24"), "/%2A%24");
  EXPECT_EQ(CanonicalPath("/%e3%83%84"), "/%E3%83%84");
  EXPECT_EQ(CanonicalPath("/%00%0a%20"), "/%00%0A%20");
}

TEST(CanonicalPath, EncodesWhatAUriCannotCarry) {
  EXPECT_EQ(CanonicalPath("/\xE3\x83\x84"), "/%E3%83%84");
  EXPECT_EQ(CanonicalPath("/a b\t\x7F"), "/a%20b%09%7F");
  EXPECT_EQ(CanonicalPath("/\0"s), "/%00");
  EXPECT_EQ(CanonicalPath("/\"<>\\^`{|}#"), "/%22%3C%3E%5C%5E%60%7B%7C%7D%23");
  EXPECT_EQ(CanonicalPath("/100%"), "/100%25");
  EXPECT_EQ(CanonicalPath("/%zz%4"), "/%25zz%254");
}

TEST(CanonicalPath, WildcardsAreLiteralInPathsAndWildInPatterns) {
  EXPECT_EQ(CanonicalPath("/a*b$"), "/a%2Ab%24");
  EXPECT_EQ(CanonicalPattern("/a*b$"), "/a*b$");
  EXPECT_EQ(CanonicalPattern("/a$b$"), "/a%24b$");
  EXPECT_EQ(CanonicalPattern("/a%2Ab"), "/a%2Ab");
  EXPECT_EQ(CanonicalPattern("/\xC3\xA4*"), "/%C3%A4*");
}

TEST(CanonicalPath, KeepsReservedCharactersAndQueries) {
  const std::string plain = "/a/b;c?d=e&f=g:h@i!j'k(l)m+n,o";
  EXPECT_EQ(CanonicalPath(plain), plain);
  EXPECT_TRUE(IsCanonicalPath(plain));
}

TEST(CanonicalPath, IsIdempotentAndIsCanonicalAgrees) {
  for (std::string s :
       {"/%%41"s, "/%2541"s, "/a%7e"s, "/\xFF"s, "/a*$"s, "/%aa"s, "/%AA"s,
        "/%41"s, ""s, "%"s, "%4"s, "/%2f?%2f"s, "/%3f%2f"s, "/?%3F%2F"s,
        "/%2525"s, "/a%3a"s}) {
    const std::string once = CanonicalPath(s);
    EXPECT_EQ(CanonicalPath(once), once) << s;
    EXPECT_TRUE(IsCanonicalPath(once)) << s;
    EXPECT_EQ(IsCanonicalPath(s), once == s) << s;
    const std::string pattern = CanonicalPattern(s);
    EXPECT_EQ(CanonicalPattern(pattern), pattern) << s;
  }
}

}  // namespace
}  // namespace frontier::robots
