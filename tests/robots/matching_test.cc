// Tests for RulesForAgent + Allowed: RFC 9309's examples and the behaviours
// Google's robotstxt test suite checks (written here from the behaviour,
// not copied), and the choices docs/robots.md states.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "robots/agent_rules.h"
#include "robots/matcher.h"

namespace frontier::robots {
namespace {

using namespace std::string_literals;  // "..."s keeps embedded NULs

bool IsAllowed(std::string_view body, std::string_view agent,
               std::string_view path) {
  return Allowed(RulesForAgent(body, agent), path);
}

// RFC 9309 §5.1.
constexpr std::string_view kRfcSimple =
    "User-Agent: *\n"
    "Disallow: *.gif$\n"
    "Disallow: /example/\n"
    "Allow: /publications/\n"
    "\n"
    "User-Agent: foobot\n"
    "Disallow:/\n"
    "Allow:/example/page.html\n"
    "Allow:/example/allowed.gif\n"
    "\n"
    "User-Agent: barbot\n"
    "User-Agent: bazbot\n"
    "Disallow: /example/page.html\n"
    "\n"
    "User-Agent: quxbot\n"
    "\n";

TEST(RfcExamples, SimpleExampleForEachAgent) {
  // foobot: everything but the two allowed files.
  EXPECT_TRUE(IsAllowed(kRfcSimple, "foobot", "/example/page.html"));
  EXPECT_TRUE(IsAllowed(kRfcSimple, "foobot", "/example/allowed.gif"));
  EXPECT_FALSE(IsAllowed(kRfcSimple, "foobot", "/example/other.html"));
  EXPECT_FALSE(IsAllowed(kRfcSimple, "foobot", "/"));
  // barbot and bazbot share a group.
  for (std::string_view bot : {"barbot", "bazbot"}) {
    EXPECT_FALSE(IsAllowed(kRfcSimple, bot, "/example/page.html")) << bot;
    EXPECT_TRUE(IsAllowed(kRfcSimple, bot, "/example/other.html")) << bot;
    EXPECT_TRUE(IsAllowed(kRfcSimple, bot, "/a.gif")) << bot;
  }
  // quxbot's group is empty: all allowed, the '*' group does not apply.
  EXPECT_TRUE(IsAllowed(kRfcSimple, "quxbot", "/example/"));
  EXPECT_TRUE(IsAllowed(kRfcSimple, "quxbot", "/a.gif"));
  // Anyone else gets '*'.
  EXPECT_FALSE(IsAllowed(kRfcSimple, "otherbot", "/a.gif"));
  EXPECT_TRUE(IsAllowed(kRfcSimple, "otherbot", "/a.gifx"));
  EXPECT_FALSE(IsAllowed(kRfcSimple, "otherbot", "/example/x"));
  EXPECT_TRUE(IsAllowed(kRfcSimple, "otherbot", "/publications/x"));
  EXPECT_TRUE(IsAllowed(kRfcSimple, "otherbot", "/other"));
}

TEST(RfcExamples, LongestMatch) {  // RFC 9309 §5.2
  constexpr std::string_view body =
      "User-Agent: foobot\n"
      "Allow: /example/page/\n"
      "Disallow: /example/page/disallowed.gif\n";
  EXPECT_TRUE(IsAllowed(body, "foobot", "/example/page/"));
  EXPECT_TRUE(IsAllowed(body, "foobot", "/example/page/a.gif"));
  EXPECT_FALSE(IsAllowed(body, "foobot", "/example/page/disallowed.gif"));
}

TEST(RfcExamples, GroupsForTheSameAgentMerge) {  // §2.2.1
  constexpr std::string_view body =
      "user-agent: ExampleBot\n"
      "disallow: /foo\n"
      "disallow: /bar\n"
      "\n"
      "user-agent: ExampleBot\n"
      "disallow: /baz\n";
  for (std::string_view p : {"/foo", "/bar/x", "/baz"}) {
    EXPECT_FALSE(IsAllowed(body, "ExampleBot", p)) << p;
  }
  EXPECT_TRUE(IsAllowed(body, "ExampleBot", "/qux"));
  EXPECT_EQ(RulesForAgent(body, "examplebot").groups, 2u);
}

TEST(RfcExamples, SpecialCharacters) {  // §2.2.3
  constexpr std::string_view body =
      "User-agent: *\n"
      "Allow: /this/path/exactly$ # a comment\n"
      "Allow: /this/*/exactly\n"
      "Disallow: /this\n"
      "Disallow: /path/file-with-a-%2A.html\n"
      "Disallow: /path/foo-%24\n";
  EXPECT_TRUE(IsAllowed(body, "a", "/this/path/exactly"));
  EXPECT_FALSE(IsAllowed(body, "a", "/this/path/exactl"));
  EXPECT_TRUE(IsAllowed(body, "a", "/this/path/exactly/more"))
      << "the '$' rule does not match, the prefix rule /this/*/exactly does";
  EXPECT_TRUE(IsAllowed(body, "a", "/this/is/exactly"));
  EXPECT_TRUE(IsAllowed(body, "a", "/this/is/also/exactly/x"));
  EXPECT_FALSE(IsAllowed(body, "a", "/this/is"));
  // A literal '*' or '$' is written encoded in a pattern.
  EXPECT_FALSE(IsAllowed(body, "a", "/path/file-with-a-*.html"));
  EXPECT_TRUE(IsAllowed(body, "a", "/path/file-with-a-b.html"));
  EXPECT_FALSE(IsAllowed(body, "a", "/path/foo-$"));
  EXPECT_TRUE(IsAllowed(body, "a", "/path/foo-x"));
}

TEST(RfcExamples, PercentEncodingTable) {  // §2.2.2
  auto disallowed = [](std::string_view pattern, std::string_view path) {
    return !IsAllowed("User-agent: *\nDisallow: "s + std::string(pattern),
                      "bot", path);
  };
  EXPECT_TRUE(disallowed("/foo/bar?baz=quz", "/foo/bar?baz=quz"));
  EXPECT_TRUE(disallowed("/foo/bar?baz=https://foo.bar",
                         "/foo/bar?baz=https%3A%2F%2Ffoo.bar"));
  EXPECT_TRUE(disallowed("/foo/bar?baz=https%3A%2F%2Ffoo.bar",
                         "/foo/bar?baz=https://foo.bar"));
  EXPECT_TRUE(disallowed("/foo/bar/\xE3\x83\x84", "/foo/bar/%E3%83%84"));
  EXPECT_TRUE(disallowed("/foo/bar/%E3%83%84", "/foo/bar/%E3%83%84"));
  EXPECT_TRUE(disallowed("/foo/bar/%62%61%7A", "/foo/bar/baz"));
  // And the other way round, and in lower-case hex.
  EXPECT_TRUE(disallowed("/foo/bar/baz", "/foo/bar/%62%61%7A"));
  EXPECT_TRUE(disallowed("/foo/bar/%E3%83%84", "/foo/bar/%e3%83%84"));
  EXPECT_TRUE(disallowed("/foo/bar/%e3%83%84", "/foo/bar/\xE3\x83\x84"));
  EXPECT_TRUE(disallowed("/~joe", "/%7Ejoe"));
  // Reserved characters compare alike encoded or not...
  EXPECT_TRUE(disallowed("/a%3Ab", "/a:b"));
  EXPECT_TRUE(disallowed("/a:b", "/a%3ab"));
  // ...except where the encoding is data: '/' in the path, '?'.
  EXPECT_FALSE(disallowed("/a%2Fb", "/a/b"));
  EXPECT_FALSE(disallowed("/a/b", "/a%2Fb"));
  EXPECT_FALSE(disallowed("/a%3Fb", "/a?b"));
  EXPECT_TRUE(disallowed("/a%3Fb", "/a%3fb"));
}

TEST(RfcExamples, RobotsTxtIsAlwaysAllowed) {  // §2.2.2
  constexpr std::string_view body = "User-agent: *\nDisallow: /\n";
  EXPECT_TRUE(IsAllowed(body, "bot", "/robots.txt"));
  EXPECT_TRUE(IsAllowed(body, "bot", "/robots.txt?x=1"));
  EXPECT_TRUE(IsAllowed(body, "bot", "/robots%2Etxt"));
  EXPECT_FALSE(IsAllowed(body, "bot", "/robots.txt/x"));
  EXPECT_FALSE(IsAllowed(body, "bot", "/a/robots.txt"));
}

// --- Behaviours of Google's robotstxt tests ---

TEST(GoogleBehaviour, EmptyAndRuleFreeFilesAllowEverything) {
  EXPECT_TRUE(IsAllowed("", "FooBot", "/"));
  EXPECT_TRUE(IsAllowed("# only a comment\n", "FooBot", "/x"));
  EXPECT_TRUE(IsAllowed("user-agent: FooBot\n", "FooBot", "/x"));
  EXPECT_TRUE(IsAllowed("disallow: /\n", "FooBot", "/x"))
      << "rules before any user-agent line belong to no group";
}

TEST(GoogleBehaviour, MissingColonIsAccepted) {
  EXPECT_FALSE(IsAllowed("user-agent FooBot\ndisallow /\n", "FooBot", "/x"));
  EXPECT_FALSE(IsAllowed("user-agent\tFooBot\ndisallow\t/\n", "FooBot", "/x"));
}

TEST(GoogleBehaviour, GroupsAndTheirBoundaries) {
  constexpr std::string_view body =
      "allow: /foo/bar/\n"  // no group yet: ignored
      "\n"
      "user-agent: FooBot\n"
      "disallow: /\n"
      "allow: /x/\n"
      "user-agent: BarBot\n"
      "disallow: /\n"
      "allow: /y/\n"
      "\n\n"
      "allow: /w/\n"  // still BarBot's: blank lines do not end a group
      "user-agent: BazBot\n"
      "\n"
      "user-agent: FooBot\n"  // merges with the first FooBot group
      "allow: /z/\n"
      "disallow: /\n";
  EXPECT_TRUE(IsAllowed(body, "FooBot", "/x/b"));
  EXPECT_TRUE(IsAllowed(body, "FooBot", "/z/d"));
  EXPECT_FALSE(IsAllowed(body, "FooBot", "/y/c"));
  EXPECT_FALSE(IsAllowed(body, "FooBot", "/foo/bar/"));
  EXPECT_TRUE(IsAllowed(body, "BarBot", "/y/c"));
  EXPECT_TRUE(IsAllowed(body, "BarBot", "/w/a"));
  EXPECT_FALSE(IsAllowed(body, "BarBot", "/z/d"));
  // BazBot shares the last group with FooBot.
  EXPECT_TRUE(IsAllowed(body, "BazBot", "/z/d"));
  EXPECT_FALSE(IsAllowed(body, "BazBot", "/x/b"));
  EXPECT_EQ(RulesForAgent(body, "x").groups, 3u);
}

TEST(GoogleBehaviour, OtherRecordsDoNotSplitAGroup) {  // RFC 9309 §2.2.4
  constexpr std::string_view body =
      "User-agent: BarBot\n"
      "Sitemap: https://example.com/sitemap.xml\n"
      "Crawl-delay: 3\n"
      "Unknown-thing: x\n"
      "User-agent: FooBot\n"
      "Disallow: /\n";
  EXPECT_FALSE(IsAllowed(body, "FooBot", "/x"));
  EXPECT_FALSE(IsAllowed(body, "BarBot", "/x"));
  EXPECT_EQ(RulesForAgent(body, "BarBot").crawl_delay_ms, 3000);
  EXPECT_EQ(RulesForAgent(body, "FooBot").crawl_delay_ms, std::nullopt)
      << "a crawl-delay line ends the agents its delay is for (protego, "
         "urllib.robotparser), though not the rule group";
  EXPECT_EQ(RulesForAgent(body, "FooBot").sitemaps,
            std::vector<std::string>{"https://example.com/sitemap.xml"});
}

TEST(GoogleBehaviour, KeysAreCaseInsensitiveAndCommonTyposAccepted) {
  EXPECT_FALSE(IsAllowed("USER-AGENT: FooBot\nDISALLOW: /\n", "FooBot", "/"));
  EXPECT_FALSE(IsAllowed("uSeR-aGeNt: FooBot\ndIsAlLoW: /\n", "FooBot", "/"));
  EXPECT_FALSE(IsAllowed("useragent: FooBot\ndissallow: /\n", "FooBot", "/"));
  EXPECT_FALSE(IsAllowed("user agent: FooBot\ndisalow: /\n", "FooBot", "/"));
  EXPECT_FALSE(IsAllowed("user-agent: FooBot\ndissalow: /a\n", "FooBot", "/a"));
  EXPECT_FALSE(IsAllowed("user-agent: FooBot\ndiasllow: /a\n", "FooBot", "/a"));
  EXPECT_FALSE(IsAllowed("user-agent: FooBot\ndisallaw: /a\n", "FooBot", "/a"));
  EXPECT_TRUE(IsAllowed("user-agent: FooBot\ndisalloww: /a\n", "FooBot", "/a"));
}

TEST(GoogleBehaviour, AgentMatchesItsProductTokenCaseInsensitively) {
  constexpr std::string_view body =
      "User-Agent: FOO BAR\n"  // names FOO: the token ends at the space
      "Disallow: /foo\n"
      "User-Agent: BazBot/2.1\n"  // names BazBot
      "Disallow: /baz\n"
      "User-Agent: *\n"
      "Disallow: /all\n";
  EXPECT_FALSE(IsAllowed(body, "foo", "/foo"));
  EXPECT_FALSE(IsAllowed(body, "Foo", "/foo"));
  EXPECT_TRUE(IsAllowed(body, "Foo", "/all"));
  EXPECT_FALSE(IsAllowed(body, "bazbot", "/baz"));
  EXPECT_FALSE(IsAllowed(body, "Bar", "/all")) << "Bar is not named: '*'";
  EXPECT_TRUE(IsAllowed(body, "Bar", "/foo"));
  EXPECT_FALSE(IsAllowed(body, "Baz", "/all")) << "no prefix matching";
  EXPECT_EQ(RulesForAgent(body, "foo").match, GroupMatch::kAgent);
  EXPECT_EQ(RulesForAgent(body, "bar").match, GroupMatch::kGlobal);
}

TEST(GoogleBehaviour, StarWithMoreTextIsNotTheGlobalGroup) {
  EXPECT_TRUE(IsAllowed("User-agent: *bot\nDisallow: /\n", "foo", "/"));
  EXPECT_FALSE(IsAllowed("User-agent: * # all\nDisallow: /\n", "foo", "/"));
  EXPECT_FALSE(IsAllowed("User-agent: * trailing\nDisallow: /\n", "foo", "/"));
}

TEST(GoogleBehaviour, SpecificGroupWinsOverGlobal) {
  constexpr std::string_view global =
      "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n";
  EXPECT_FALSE(IsAllowed(global, "FooBot", "/x"));
  EXPECT_TRUE(IsAllowed(global, "BarBot", "/x"));
  constexpr std::string_view only_specific =
      "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\n";
  EXPECT_TRUE(IsAllowed(only_specific, "QuxBot", "/x"));
  EXPECT_EQ(RulesForAgent(only_specific, "QuxBot").match, GroupMatch::kNone);
}

TEST(GoogleBehaviour, PatternsAreCaseSensitive) {
  constexpr std::string_view body = "user-agent: FooBot\ndisallow: /x/\n";
  EXPECT_FALSE(IsAllowed(body, "FooBot", "/x/y"));
  EXPECT_TRUE(IsAllowed(body, "FooBot", "/X/y"));
}

TEST(GoogleBehaviour, LongestMatchAndTies) {
  auto allowed = [](std::string_view rules, std::string_view path) {
    return IsAllowed("user-agent: FooBot\n"s + std::string(rules), "FooBot",
                     path);
  };
  EXPECT_TRUE(
      allowed("disallow: /x/page.html\nallow: /x/page.html\n", "/x/page.html"));
  EXPECT_TRUE(allowed("allow: /x/page.html\ndisallow: /x/\n", "/x/page.html"));
  EXPECT_FALSE(allowed("allow: /x/page.html\ndisallow: /x/\n", "/x/"));
  EXPECT_TRUE(allowed("allow: /\ndisallow: /\n", "/"));
  EXPECT_FALSE(allowed("disallow: /x\nallow: /\n", "/x"));
  EXPECT_TRUE(allowed("disallow: \nallow: \n", "/")) << "empty is no rule";
  EXPECT_TRUE(allowed("disallow:\n", "/a"));
  EXPECT_FALSE(allowed("allow: /page\ndisallow: /*.html\n", "/page.html"));
  EXPECT_TRUE(allowed("allow: /page\ndisallow: /*.html\n", "/page"));
  EXPECT_TRUE(allowed("allow: /x/page.\ndisallow: /*.html\n", "/x/page.html"));
  EXPECT_FALSE(allowed("allow: /x/page.\ndisallow: /*.html\n", "/x/y.html"));
  EXPECT_TRUE(allowed("allow: /$\ndisallow: /\n", "/"));
  EXPECT_FALSE(allowed("allow: /$\ndisallow: /\n", "/page.html"));
}

TEST(GoogleBehaviour, Wildcards) {
  auto allowed = [](std::string_view rules, std::string_view path) {
    return IsAllowed("user-agent: FooBot\n"s + std::string(rules), "FooBot",
                     path);
  };
  EXPECT_FALSE(
      allowed("disallow: /foo/bar/quz\nallow: /foo/*/qux\n", "/foo/bar/quz"));
  EXPECT_TRUE(
      allowed("disallow: /foo/bar/quz\nallow: /foo/*/qux\n", "/foo/quz"));
  EXPECT_TRUE(
      allowed("disallow: /foo/bar/quz\nallow: /foo/*/qux\n", "/foo//quz"));
  EXPECT_FALSE(allowed("disallow: /foo/bar$\n", "/foo/bar"));
  EXPECT_TRUE(allowed("disallow: /foo/bar$\n", "/foo/bar/qux"));
  EXPECT_TRUE(allowed("disallow: /foo/bar$\n", "/foo/bar?x"));
  EXPECT_FALSE(allowed("disallow: /*?\n", "/a?b=c"));
  EXPECT_TRUE(allowed("disallow: /*?\n", "/a"));
  EXPECT_FALSE(allowed("disallow: /*.php$\n", "/a/b.php"));
  EXPECT_TRUE(allowed("disallow: /*.php$\n", "/a/b.php?x"));
  EXPECT_FALSE(allowed("disallow: /*.php\n", "/a/b.php?x"));
  EXPECT_FALSE(allowed("disallow: /fish*\n", "/fish.html"));
  EXPECT_FALSE(allowed("disallow: /**a**b**$\n", "/xaxxbb"));
  EXPECT_TRUE(allowed("disallow: /**a**b**$\n", "/xaxxc"));
  EXPECT_FALSE(allowed("disallow: *\n", "/anything"));
  EXPECT_FALSE(allowed("disallow: /a$b\n", "/a$b")) << "'$' inside is literal";
  EXPECT_TRUE(allowed("disallow: /a$b\n", "/ab"));
}

TEST(GoogleBehaviour, ByteOrderMarkIsSkippedOnlyAtTheStart) {
  EXPECT_FALSE(IsAllowed("\xEF\xBB\xBFuser-agent: FooBot\ndisallow: /\n",
                         "FooBot", "/"));
  EXPECT_FALSE(
      IsAllowed("\xEF\xBBuser-agent: FooBot\ndisallow: /\n", "FooBot", "/"));
  EXPECT_FALSE(
      IsAllowed("\xEFuser-agent: FooBot\ndisallow: /\n", "FooBot", "/"));
  EXPECT_TRUE(
      IsAllowed("\xBB\xBFuser-agent: FooBot\ndisallow: /\n", "FooBot", "/"));
  EXPECT_FALSE(
      IsAllowed("user-agent: FooBot\ndisallow: /a\n\xEF\xBB\xBF"
                "disallow: /b\n",
                "FooBot", "/a"));
  EXPECT_TRUE(
      IsAllowed("user-agent: FooBot\ndisallow: /a\n\xEF\xBB\xBF"
                "disallow: /b\n",
                "FooBot", "/b"));
}

TEST(GoogleBehaviour, LineEndings) {
  for (std::string_view eol : {"\n", "\r\n", "\r"}) {
    std::string body = "user-agent: FooBot" + std::string(eol) +
                       "disallow: /a" + std::string(eol) + "allow: /a/b";
    EXPECT_FALSE(IsAllowed(body, "FooBot", "/a/c"));
    EXPECT_TRUE(IsAllowed(body, "FooBot", "/a/b")) << "last line without EOL";
  }
  EXPECT_FALSE(
      IsAllowed("user-agent: FooBot\r\n\r\ndisallow: /\r\n", "FooBot", "/x"));
}

TEST(GoogleBehaviour, SitemapsAnywhere) {
  constexpr std::string_view body =
      "Sitemap: http://a.example/s1.xml\n"
      "User-agent: *\n"
      "Disallow: /\n"
      "sitemap: http://b.example/s2.xml # with a comment\n"
      "User-agent: other\n"
      "Site-map: http://c.example/s3.xml\n";
  const Rules rules = RulesForAgent(body, "foo");
  EXPECT_EQ(rules.sitemaps,
            (std::vector<std::string>{"http://a.example/s1.xml",
                                      "http://b.example/s2.xml",
                                      "http://c.example/s3.xml"}));
}

// --- The choices docs/robots.md states ---

TEST(Choices, PatternWithoutLeadingSlashGetsOne) {
  EXPECT_FALSE(
      IsAllowed("User-agent: *\nDisallow: private\n", "a", "/private"));
  EXPECT_FALSE(IsAllowed("User-agent: *\nDisallow: *.gif\n", "a", "/x.gif"));
}

TEST(Choices, CrawlDelayOfTheMatchedGroup) {
  constexpr std::string_view body =
      "User-agent: *\nCrawl-delay: 10\nDisallow: /x\n"
      "User-agent: FooBot\nCrawl-delay: 2.5\nDisallow: /y\n"
      "User-agent: BarBot\nDisallow: /z\n";
  EXPECT_EQ(RulesForAgent(body, "anyone").crawl_delay_ms, 10000);
  EXPECT_EQ(RulesForAgent(body, "foobot").crawl_delay_ms, 2500);
  EXPECT_EQ(RulesForAgent(body, "BarBot").crawl_delay_ms, std::nullopt);
  EXPECT_EQ(RulesForAgent("User-agent: a\nCrawl-delay: 1\nUser-agent: a\n"
                          "Crawl-delay: 4\nCrawl-delay: 2\n",
                          "a")
                .crawl_delay_ms,
            4000)
      << "the largest of the merged groups";
  EXPECT_EQ(
      RulesForAgent("Crawl-delay: 5\nUser-agent: a\n", "a").crawl_delay_ms,
      std::nullopt);
}

// Issue 18 §1: a group whose only line is a Crawl-delay keeps it, and
// another group's delay never leaks into it. The next user-agent line
// after a Crawl-delay starts a new delay group, as protego and Python's
// urllib.robotparser read it; rules keep RFC 9309's grouping.
TEST(Choices, CrawlDelayEndsTheAgentsItIsFor) {
  EXPECT_EQ(RulesForAgent("User-agent: *\nCrawl-delay: 30\n\n"
                          "User-agent: frontierd\nCrawl-delay: 1\n",
                          "frontierd")
                .crawl_delay_ms,
            1000);
  EXPECT_EQ(RulesForAgent("User-agent: frontierd\nCrawl-delay: 1\n\n"
                          "User-agent: *\nCrawl-delay: 30\n",
                          "frontierd")
                .crawl_delay_ms,
            1000);
  EXPECT_EQ(RulesForAgent("User-agent: *\nCrawl-delay: 1\n"
                          "User-agent: frontierd\nCrawl-delay: 30\n",
                          "frontierd")
                .crawl_delay_ms,
            30000)
      << "the crawler's own longer delay, not the '*' group's";
  EXPECT_EQ(RulesForAgent("User-agent: *\nCrawl-delay: 30\n"
                          "User-agent: frontierd\nCrawl-delay: 1\n",
                          "otherbot")
                .crawl_delay_ms,
            30000);

  // Another crawler's delay does not leak into ours.
  EXPECT_EQ(RulesForAgent("User-agent: otherbot\nCrawl-delay: 30\n\n"
                          "User-agent: *\nCrawl-delay: 1\n",
                          "frontierd")
                .crawl_delay_ms,
            1000);
  const Rules bing = RulesForAgent(
      "User-agent: Bingbot\nCrawl-delay: 10\n\n"
      "User-agent: *\nDisallow: /admin\n",
      "frontierd");
  EXPECT_EQ(bing.crawl_delay_ms, std::nullopt);
  EXPECT_FALSE(Allowed(bing, "/admin"));
  EXPECT_EQ(bing.groups, 2u);

  // With rules in the crawler's group: its rules and its delay.
  const Rules own = RulesForAgent(
      "User-agent: *\nCrawl-delay: 30\n\n"
      "User-agent: frontierd\nCrawl-delay: 1\nDisallow: /x\n",
      "frontierd");
  EXPECT_EQ(own.crawl_delay_ms, 1000);
  EXPECT_FALSE(Allowed(own, "/x"));
  EXPECT_EQ(own.groups, 2u);

  // Rules keep RFC 9309's grouping (other records must not change how
  // allow and disallow lines are read, §2.2.4): here the Disallow still
  // applies to frontierd too, where protego would allow /admin. When the
  // two readings differ, the one that blocks more is kept.
  const Rules named_first = RulesForAgent(
      "User-agent: frontierd\nCrawl-delay: 1\n"
      "User-agent: *\nDisallow: /admin\n",
      "frontierd");
  EXPECT_EQ(named_first.crawl_delay_ms, 1000);
  EXPECT_FALSE(Allowed(named_first, "/admin"));
}

TEST(Choices, CrawlDelayValues) {
  EXPECT_EQ(ParseCrawlDelayMs("0"), 0);
  EXPECT_EQ(ParseCrawlDelayMs("10"), 10000);
  EXPECT_EQ(ParseCrawlDelayMs("2.5"), 2500);
  EXPECT_EQ(ParseCrawlDelayMs(".5"), 500);
  EXPECT_EQ(ParseCrawlDelayMs("5."), 5000);
  EXPECT_EQ(ParseCrawlDelayMs("0.0015"), 2);
  EXPECT_EQ(ParseCrawlDelayMs("0.0014"), 1);
  EXPECT_EQ(ParseCrawlDelayMs("99999999999999999999999"), kMaxCrawlDelayMs);
  EXPECT_EQ(ParseCrawlDelayMs("86400.5"), kMaxCrawlDelayMs);
  for (std::string_view bad :
       {"", ".", "-1", "1e3", "1.2.3", "ten", "1 s", "inf", "nan", "+1"}) {
    EXPECT_EQ(ParseCrawlDelayMs(bad), std::nullopt) << bad;
  }
}

TEST(Choices, ProductTokens) {
  EXPECT_TRUE(IsValidProductToken("frontierd"));
  EXPECT_TRUE(IsValidProductToken("Foo_Bot-"));
  EXPECT_FALSE(IsValidProductToken(""));
  EXPECT_FALSE(IsValidProductToken("FooBot/1.0"));
  EXPECT_FALSE(IsValidProductToken("Foo Bot"));
  EXPECT_FALSE(IsValidProductToken("*"));
}

TEST(Choices, OnlyTheFirstBytesAreRead) {
  const std::string body = "User-agent: *\nDisallow: /a\nDisallow: /b\n";
  ParseOptions options;
  options.max_bytes = body.find("/b") + 1;  // cuts "Disallow: /b" in two
  const Rules rules = RulesForAgent(body, "x", options);
  EXPECT_TRUE(rules.truncated);
  EXPECT_FALSE(Allowed(rules, "/a"));
  EXPECT_TRUE(Allowed(rules, "/b")) << "the cut line is dropped";
  EXPECT_TRUE(Allowed(rules, "/")) << "not read as 'Disallow: /'";
  EXPECT_FALSE(RulesForAgent(body, "x").truncated);

  options.max_bytes = 5;  // no whole line at all
  EXPECT_TRUE(RulesForAgent(body, "x", options).rules.empty());
}

// A long pattern with wildcards can match short paths: a line of any
// length (within the body's limit) keeps its rule whole. Dropped, the
// Disallow below would let /secret through (issue 18 §4; RFC 9309 and
// protego disallow it).
TEST(Choices, LongLinesKeepTheirRuleWhole) {
  const std::string stars(17'000, '*');
  const std::string body =
      "User-agent: *\nDisallow: /" + stars + "secret\n";
  EXPECT_FALSE(IsAllowed(body, "x", "/secret"));
  EXPECT_FALSE(IsAllowed(body, "x", "/a/b/secret?q"));
  EXPECT_TRUE(IsAllowed(body, "x", "/secre"));
  ASSERT_EQ(RulesForAgent(body, "x").rules.size(), 1u);
  EXPECT_EQ(RulesForAgent(body, "x").rules[0].pattern.size(),
            stars.size() + 7);

  // A long Allow is kept whole too, and wins as the longer match.
  const std::string long_path = "/" + std::string(20'000, 'a');
  const std::string allow_body =
      "User-agent: *\nAllow: " + long_path + "\nDisallow: /\n";
  EXPECT_TRUE(IsAllowed(allow_body, "x", long_path));
  EXPECT_FALSE(IsAllowed(allow_body, "x", "/a"));
  EXPECT_EQ(RulesForAgent(allow_body, "x").rules.size(), 2u);

  // The body's limit still bounds what is read: a line the limit cuts
  // in two is dropped.
  ParseOptions options;
  options.max_bytes = 16'000;
  EXPECT_TRUE(RulesForAgent(body, "x", options).rules.empty());
}

TEST(Choices, SitemapLimits) {
  std::string body;
  for (int i = 0; i < 100; ++i)
    body += "Sitemap: /s" + std::to_string(i) + "\n";
  body += "Sitemap: /" + std::string(3000, 'x') + "\n";
  ParseOptions options;
  options.max_sitemaps = 10;
  EXPECT_EQ(RulesForAgent(body, "x", options).sitemaps.size(), 10u);
  options.max_sitemaps = 1000;
  EXPECT_EQ(RulesForAgent(body, "x", options).sitemaps.size(), 100u);
}

TEST(Choices, BinaryAndNulBytesDoNoHarm) {
  const std::string body =
      "User-agent: *\nDisallow: /a\0b\nDisallow: /\xFF\xFE\n\0\0\0"s;
  const Rules rules = RulesForAgent(body, "x");
  EXPECT_FALSE(Allowed(rules, "/a\0b"s));
  EXPECT_FALSE(Allowed(rules, "/a%00b"));
  EXPECT_FALSE(Allowed(rules, "/%ff%fe"));
  EXPECT_TRUE(Allowed(rules, "/a"));
}

TEST(Choices, EmptyPathMeansSlash) {
  EXPECT_FALSE(IsAllowed("User-agent: *\nDisallow: /$\n", "x", ""));
}

}  // namespace
}  // namespace frontier::robots
