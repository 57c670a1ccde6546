// Unit tests of the scope library (scope/): host suffixes, RE2 patterns,
// the trap guards and how Scope::Check combines them.
#include "scope/scope.h"

#include <gtest/gtest.h>

#include "scope/url_shape.h"

namespace frontier::scope {
namespace {

TEST(HostSuffixesTest, MatchesLabelByLabel) {
  HostSuffixes h;
  EXPECT_TRUE(h.Allows("anything.org"));  // empty: any host
  std::string error;
  ASSERT_TRUE(h.AddText("Example.com .edu", &error)) << error;
  EXPECT_TRUE(h.Allows("example.com"));
  EXPECT_TRUE(h.Allows("www.example.com"));
  EXPECT_TRUE(h.Allows("a.b.example.com"));
  EXPECT_FALSE(h.Allows("badexample.com"));
  EXPECT_FALSE(h.Allows("example.com.evil.net"));
  EXPECT_TRUE(h.Allows("mit.edu"));
  EXPECT_FALSE(h.Allows("edu.org"));
  EXPECT_EQ(h.ToText(), "example.com edu");
}

TEST(HostSuffixesTest, BadSuffixChangesNothing) {
  HostSuffixes h;
  std::string error;
  ASSERT_TRUE(h.AddText("a.com", &error));
  EXPECT_FALSE(h.AddText("b.com a..com", &error));
  EXPECT_NE(error.find("a..com"), std::string::npos) << error;
  EXPECT_FALSE(h.AddText("b.com ex/ample", &error));
  EXPECT_FALSE(h.AddText("  , ", &error));
  EXPECT_EQ(h.ToText(), "a.com");
  EXPECT_FALSE(h.Allows("b.com"));
}

TEST(HostSuffixesTest, CommasAndDuplicates) {
  HostSuffixes h;
  std::string error;
  ASSERT_TRUE(h.AddText("a.com,b.org, a.com", &error)) << error;
  EXPECT_EQ(h.ToText(), "a.com b.org");
  HostSuffixes again;
  ASSERT_TRUE(again.AddText(h.ToText(), &error));
  EXPECT_EQ(again, h);
}

TEST(UrlPatternsTest, CompilesAndMatchesUnanchored) {
  UrlPatterns p;
  std::string error;
  ASSERT_TRUE(p.AddText(R"(\.(jpg|png)$ /calendar/)", &error)) << error;
  EXPECT_EQ(p.size(), 2u);
  EXPECT_TRUE(p.AnyMatches("http://a.com/x.jpg"));
  EXPECT_TRUE(p.AnyMatches("http://a.com/calendar/2024"));
  EXPECT_FALSE(p.AnyMatches("http://a.com/x.jpg?y"));
  EXPECT_FALSE(p.AnyMatches("http://a.com/"));
  EXPECT_EQ(p.ToText(), R"(\.(jpg|png)$ /calendar/)");
}

TEST(UrlPatternsTest, BadPatternIsAClearErrorAndChangesNothing) {
  UrlPatterns p;
  std::string error;
  ASSERT_TRUE(p.AddText("/a/", &error));
  EXPECT_FALSE(p.AddText("/b/ (unclosed", &error));
  EXPECT_NE(error.find("(unclosed"), std::string::npos) << error;
  EXPECT_NE(error.find("missing )"), std::string::npos) << error;
  // RE2 has no back-references: refused, not silently misread.
  EXPECT_FALSE(p.AddText(R"((a)\1)", &error));
  EXPECT_FALSE(p.AddText(std::string(UrlPatterns::kMaxPatternBytes + 1, 'a'),
                         &error));
  EXPECT_FALSE(p.AddText(" \n", &error));
  EXPECT_EQ(p.ToText(), "/a/");
}

TEST(UrlShapeTest, CountsQueryParameters) {
  EXPECT_EQ(QueryParamCount("http://a.com/"), 0u);
  EXPECT_EQ(QueryParamCount("http://a.com/?"), 0u);
  EXPECT_EQ(QueryParamCount("http://a.com/p?x=1"), 1u);
  EXPECT_EQ(QueryParamCount("http://a.com/p?x=1&&y&z="), 3u);
  EXPECT_EQ(QueryParamCount("http://u:p@a.com:81/p?x=1&y=2"), 2u);
}

TEST(UrlShapeTest, CountsPathSegments) {
  EXPECT_EQ(PathSegmentCount("http://a.com/"), 1u);
  EXPECT_EQ(PathSegmentCount("http://a.com/a/b"), 2u);
  EXPECT_EQ(PathSegmentCount("http://a.com/a/b/"), 3u);
  // Slashes in the query are not the path's.
  EXPECT_EQ(PathSegmentCount("http://a.com/a?x=/b/c"), 1u);
}

Scope Make(std::string_view hosts, std::string_view deny,
           std::string_view allow) {
  Scope s;
  std::string error;
  if (!hosts.empty()) {
    EXPECT_TRUE(s.hosts.AddText(hosts, &error)) << error;
  }
  if (!deny.empty()) {
    EXPECT_TRUE(s.deny.AddText(deny, &error)) << error;
  }
  if (!allow.empty()) {
    EXPECT_TRUE(s.allow.AddText(allow, &error)) << error;
  }
  return s;
}

TEST(ScopeTest, UnrestrictedLetsEverythingIn) {
  Scope s;
  EXPECT_TRUE(s.Unrestricted());
  EXPECT_EQ(s.Check("http://x.org/a", "x.org", RefRelation{}), Verdict::kIn);
}

TEST(ScopeTest, DenyWinsAndAllowMustMatchWhenSet) {
  Scope s = Make("", "/private/", "^https?://[^/]+/docs/");
  EXPECT_FALSE(s.Unrestricted());
  EXPECT_EQ(s.CheckStored("http://a.com/docs/x", "a.com"), Verdict::kIn);
  EXPECT_EQ(s.CheckStored("http://a.com/docs/private/x", "a.com"),
            Verdict::kDeny);
  EXPECT_EQ(s.CheckStored("http://a.com/blog/x", "a.com"), Verdict::kAllow);
  Scope deny_only = Make("", "/private/", "");
  EXPECT_EQ(deny_only.CheckStored("http://a.com/blog/x", "a.com"),
            Verdict::kIn);
}

TEST(ScopeTest, RefRuleAppliesOnlyWithARef) {
  Scope s;
  s.ref_rule = RefRule::kSameSite;
  const RefRelation other{false, false}, domain{false, true}, site{true, true};
  EXPECT_EQ(s.Check("http://b.com/", "b.com", other), Verdict::kRef);
  EXPECT_EQ(s.Check("http://w.a.com/", "w.a.com", domain), Verdict::kRef);
  EXPECT_EQ(s.Check("http://a.com/", "a.com", site), Verdict::kIn);
  EXPECT_EQ(s.Check("http://b.com/", "b.com", std::nullopt), Verdict::kIn);
  s.ref_rule = RefRule::kSameDomain;
  EXPECT_EQ(s.Check("http://w.a.com/", "w.a.com", domain), Verdict::kIn);
  EXPECT_EQ(s.Check("http://b.com/", "b.com", other), Verdict::kRef);
}

TEST(ScopeTest, RulesAreTestedInOrder) {
  Scope s = Make("a.com", "x", "");
  s.max_query_params = 1;
  s.max_path_segments = 2;
  EXPECT_EQ(s.CheckStored("http://b.com/x", "b.com"), Verdict::kHost);
  EXPECT_EQ(s.CheckStored("http://a.com/p?q=1&r=2", "a.com"), Verdict::kQuery);
  EXPECT_EQ(s.CheckStored("http://a.com/p/q/r", "a.com"), Verdict::kPath);
  EXPECT_EQ(s.CheckStored("http://a.com/p/q?x=1", "a.com"), Verdict::kDeny);
  EXPECT_EQ(s.CheckStored("http://www.a.com/p/q?y=1", "www.a.com"),
            Verdict::kIn);
  EXPECT_STREQ(VerdictName(Verdict::kQuery), "query");
}

TEST(ScopeTest, CopiesShareCompiledPatternsAndCompareByText) {
  Scope a = Make("a.com", "/x/", "");
  Scope b = a;
  EXPECT_EQ(a, b);
  EXPECT_EQ(b.CheckStored("http://a.com/x/", "a.com"), Verdict::kDeny);
  std::string error;
  ASSERT_TRUE(b.deny.AddText("/y/", &error));
  EXPECT_FALSE(a == b);
  EXPECT_EQ(a.CheckStored("http://a.com/y/", "a.com"), Verdict::kIn);
}

}  // namespace
}  // namespace frontier::scope
