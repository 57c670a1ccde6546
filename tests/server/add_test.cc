// End to end: ADD and MADD, URL normalisation, the depth rule, the depth
// and per-site URL limits.
#include <algorithm>
#include <string>
#include <vector>

#include "support/frontierd_process.h"

namespace frontier::itest {
namespace {

using AddTest = FrontierdTest;

// The URLs of a POP COUNT reply, sorted (POP's order is not the point).
std::vector<std::string> SortedUrls(const Reply& r) {
  std::vector<std::string> popped;
  EXPECT_TRUE(r.IsArray()) << r;
  for (const Reply& e : r.elements) popped.push_back(e.str);
  std::sort(popped.begin(), popped.end());
  return popped;
}

TEST_F(AddTest, NewThenKnown) {
  EXPECT_EQ(Cmd({"SEEN", "http://example.com/page"}), Int(0));
  EXPECT_EQ(Cmd({"ADD", "http://example.com/page"}), Int(1));
  EXPECT_EQ(Cmd({"SEEN", "http://example.com/page"}), Int(1));
  auto before = UrlInfo("http://example.com/page");
  ASSERT_FALSE(before.empty());
  EXPECT_EQ(before["state"], "queued");
  EXPECT_EQ(before["attempts"], "0");

  EXPECT_EQ(Cmd({"ADD", "http://example.com/page"}), Int(0));
  EXPECT_EQ(Cmd({"ADD", "http://example.com/page", "http://other.org/"}),
            Int(0));
  auto after = UrlInfo("http://example.com/page");
  EXPECT_EQ(std::stoll(after["backlinks"]),
            std::stoll(before["backlinks"]) + 2);
  // Known URLs are not queued twice.
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://example.com/page"));
  EXPECT_EQ(Cmd({"POP"}), Nil());
}

TEST_F(AddTest, SpellingsOfOneUrlAreOneUrl) {
  EXPECT_EQ(Cmd({"ADD", "HTTP://Example.COM:80/a/./b/../c#frag"}), Int(1));
  EXPECT_EQ(Cmd({"ADD", "http://example.com/a/c"}), Int(0));
  EXPECT_EQ(Cmd({"SEEN", "http://example.com/a/c"}), Int(1));
  EXPECT_EQ(Cmd({"SEEN", "HTTP://EXAMPLE.com/a/b/../c#other"}), Int(1));
  EXPECT_EQ(FieldMap(Cmd({"URLINFO", "http://Example.com:80/a/c"}))["url"],
            "http://example.com/a/c");
  EXPECT_EQ(Cmd({"POP"}), Bulk("http://example.com/a/c"));
  EXPECT_EQ(Cmd({"POP"}), Nil());
}

TEST_F(AddTest, NormalisationRules) {
  // Empty path becomes "/".
  EXPECT_EQ(Cmd({"ADD", "http://a.com"}), Int(1));
  EXPECT_EQ(Cmd({"SEEN", "http://a.com/"}), Int(1));
  // https drops 443; a non-default port is kept (another URL).
  EXPECT_EQ(Cmd({"ADD", "https://a.com:443/x"}), Int(1));
  EXPECT_EQ(Cmd({"ADD", "https://a.com/x"}), Int(0));
  EXPECT_EQ(Cmd({"ADD", "http://a.com:8080/"}), Int(1));
  // Percent escapes compare in upper case.
  EXPECT_EQ(Cmd({"ADD", "http://a.com/p%2fq"}), Int(1));
  EXPECT_EQ(Cmd({"SEEN", "http://a.com/p%2Fq"}), Int(1));
  // Escapes of unreserved characters are decoded (RFC 3986 6.2.2.2), and
  // dot segments cannot climb above the root (6.2.2.3).
  EXPECT_EQ(Cmd({"ADD", "http://a.com/%7Euser"}), Int(1));
  EXPECT_EQ(Cmd({"ADD", "http://a.com/~user"}), Int(0));
  EXPECT_EQ(Cmd({"SEEN", "http://a.com/x/../../~user"}), Int(1));
  // The query is part of the URL; the scheme is too.
  EXPECT_EQ(Cmd({"ADD", "http://a.com/?q=1"}), Int(1));
  EXPECT_EQ(Cmd({"ADD", "https://a.com/"}), Int(1));
  EXPECT_EQ(Stats()["urls"], 7);
  EXPECT_EQ(SortedUrls(Cmd({"POP", "COUNT", "10"})),
            (std::vector<std::string>{
                "http://a.com/", "http://a.com/?q=1", "http://a.com/p%2Fq",
                "http://a.com/~user", "http://a.com:8080/", "https://a.com/",
                "https://a.com/x"}));
}

// Links as pages write them (issue 12): stored as a browser requests them.
TEST_F(AddTest, WebSpellingsStoreTheBrowsersForm) {
  EXPECT_EQ(Cmd({"ADD", ("http://b\xc3\xbc"
                         "cher.example/")}),
            Int(1));
  EXPECT_EQ(Cmd({"ADD", "http://xn--bcher-kva.example/"}), Int(0));
  EXPECT_EQ(Cmd({"ADD", "http://example.org/a b"}), Int(1));
  EXPECT_EQ(Cmd({"SEEN", "http://example.org/a%20b"}), Int(1));
  EXPECT_EQ(Cmd({"ADD", " http:\\\\0x7f.1\\x\t"}), Int(1));
  EXPECT_EQ(Stats()["urls"], 3);
  EXPECT_EQ(SortedUrls(Cmd({"POP", "COUNT", "10"})),
            (std::vector<std::string>{"http://127.0.0.1/x",
                                      "http://example.org/a%20b",
                                      "http://xn--bcher-kva.example/"}));
}

TEST_F(AddTest, InvalidUrlsAreErrors) {
  EXPECT_TRUE(IsErrorStartingWith(Cmd({"ADD", "ftp://example.com/file"}),
                                  "ERR invalid URL: "));
  EXPECT_TRUE(
      IsErrorStartingWith(Cmd({"ADD", "http://"}), "ERR invalid URL: "));
  EXPECT_TRUE(
      IsErrorStartingWith(Cmd({"ADD", "not a url"}), "ERR invalid URL: "));
  EXPECT_TRUE(IsErrorStartingWith(Cmd({"ADD", ""}), "ERR invalid URL: "));
  EXPECT_TRUE(IsErrorStartingWith(Cmd({"ADD", "mailto:someone@example.com"}),
                                  "ERR invalid URL: "));
  std::string long_url = "http://example.com/" + std::string(9000, 'a');
  EXPECT_TRUE(IsErrorStartingWith(Cmd({"ADD", long_url}), "ERR invalid URL: "));
  EXPECT_EQ(Stats()["urls"], 0);
  EXPECT_TRUE(IsErrorStartingWith(Cmd({"SEEN", "ftp://example.com/"}),
                                  "ERR invalid URL: "));
}

class AddShortUrlTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    args.insert(args.end(), {"--max-url-length", "40"});
    return args;
  }
};

TEST_F(AddShortUrlTest, MaxUrlLengthIsConfigurable) {
  EXPECT_EQ(Cmd({"ADD", "http://example.com/" + std::string(15, 'a')}), Int(1));
  EXPECT_TRUE(IsErrorStartingWith(
      Cmd({"ADD", "http://example.com/" + std::string(30, 'a')}),
      "ERR invalid URL: "));
}

TEST_F(AddTest, MaxUrlLengthBoundary) {
  const std::string prefix = "http://example.com/";
  std::string at_limit = prefix + std::string(8192 - prefix.size(), 'a');
  std::string over = prefix + std::string(8193 - prefix.size(), 'a');
  EXPECT_EQ(Cmd({"ADD", at_limit}), Int(1));
  EXPECT_EQ(Cmd({"POP"}), Bulk(at_limit));
  EXPECT_TRUE(IsErrorStartingWith(Cmd({"ADD", over}), "ERR invalid URL: "));
}

TEST_F(AddTest, OneMaddWithManyLinks) {
  // One page with 5000 links on 1000 sites: one transaction.
  std::vector<std::string> cmd = {"MADD", ""};
  for (int i = 0; i < 5000; ++i) {
    cmd.push_back("http://site" + std::to_string(i % 1000) + ".net/" +
                  std::to_string(i));
  }
  Reply r = Cmd(cmd);
  ASSERT_TRUE(r.IsArray()) << r.DebugString().substr(0, 300);
  ASSERT_EQ(r.elements.size(), 5000u);
  int added = 0;
  for (const Reply& e : r.elements) added += e == Int(1) ? 1 : 0;
  EXPECT_EQ(added, 5000);
  EXPECT_EQ(Stats()["urls"], 5000);
  EXPECT_EQ(Stats()["sites"], 1000);
  // And one POP that leases them all.
  Reply all = Cmd({"POP", "COUNT", "6000"});
  ASSERT_TRUE(all.IsArray()) << all.DebugString().substr(0, 300);
  EXPECT_EQ(all.elements.size(), 5000u);
  EXPECT_EQ(Stats()["leased"], 5000);
}

TEST_F(AddTest, PriorityOption) {
  EXPECT_EQ(Cmd({"ADD", "http://a.com/default"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/default")["priority"], "5000");
  EXPECT_EQ(Cmd({"ADD", "http://a.com/zero", "", "PRIORITY", "0"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/zero")["priority"], "0");
  EXPECT_EQ(Cmd({"ADD", "http://a.com/max", "", "PRIORITY", "9999"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/max")["priority"], "9999");
  // Options are case-insensitive, as in Redis.
  EXPECT_EQ(Cmd({"ADD", "http://a.com/lower", "", "priority", "7"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/lower")["priority"], "7");

  const Reply kRange =
      Error("ERR PRIORITY must be an integer between 0 and 9999");
  EXPECT_EQ(Cmd({"ADD", "http://a.com/x", "", "PRIORITY", "10000"}), kRange);
  EXPECT_EQ(Cmd({"ADD", "http://a.com/x", "", "PRIORITY", "-1"}), kRange);
  EXPECT_EQ(Cmd({"ADD", "http://a.com/x", "", "PRIORITY", "abc"}), kRange);
  EXPECT_EQ(Cmd({"ADD", "http://a.com/x", "", "PRIORITY", "1.5"}), kRange);
  EXPECT_EQ(Cmd({"SEEN", "http://a.com/x"}),
            Int(0));  // refused commands store nothing
}

TEST_F(AddTest, OptionsWithoutRef) {
  // "ADD url PRIORITY p": PRIORITY is an option, not the ref.
  EXPECT_EQ(Cmd({"ADD", "http://a.com/p", "PRIORITY", "3"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/p")["priority"], "3");
  EXPECT_EQ(UrlInfo("http://a.com/p")["depth"], "1");
  EXPECT_EQ(Cmd({"ADD", "http://a.com/r", "RECRAWL", "60"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/r")["recrawl"], "60");
}

TEST_F(AddTest, SyntaxErrors) {
  EXPECT_EQ(Cmd({"ADD", "http://a.com/", "", "BOGUS", "1"}),
            Error("ERR syntax error"));
  EXPECT_EQ(Cmd({"ADD", "http://a.com/", "", "PRIORITY"}),
            Error("ERR syntax error"));
  EXPECT_EQ(Cmd({"ADD", "http://a.com/", "", "PRIORITY", "1", "extra"}),
            Error("ERR syntax error"));
  EXPECT_EQ(Cmd({"SEEN", "http://a.com/"}), Int(0));
}

TEST_F(AddTest, RecrawlOption) {
  EXPECT_EQ(Cmd({"ADD", "http://a.com/", "", "RECRAWL", "0.5"}), Int(1));
  auto info = UrlInfo("http://a.com/");
  EXPECT_EQ(info["recrawl"], "0.5");  // seconds, as given
  EXPECT_EQ(info["due"], "0");        // queued: nothing is due
  EXPECT_EQ(Cmd({"ADD", "http://a.com/none"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/none")["recrawl"], "0");
  EXPECT_TRUE(
      Cmd({"ADD", "http://a.com/bad", "", "RECRAWL", "soon"}).IsError());
  EXPECT_EQ(
      Cmd({"ADD", "http://a.com/both", "", "PRIORITY", "1", "RECRAWL", "30"}),
      Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/both")["priority"], "1");
}

TEST_F(AddTest, DepthFollowsTheReferrerWithinADomain) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/")["depth"], "1");
  ASSERT_EQ(Cmd({"ADD", "http://a.com/x", "http://a.com/"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/x")["depth"], "2");
  // Same registrable domain, other host: still depth + 1 (depth-scope domain).
  ASSERT_EQ(Cmd({"ADD", "http://www.a.com/y", "http://a.com/x"}), Int(1));
  EXPECT_EQ(UrlInfo("http://www.a.com/y")["depth"], "3");
  // Another domain starts again at 1.
  ASSERT_EQ(Cmd({"ADD", "http://b.org/", "http://www.a.com/y"}), Int(1));
  EXPECT_EQ(UrlInfo("http://b.org/")["depth"], "1");
  // Unknown and empty refs give depth 1; the ref may be spelt differently.
  ASSERT_EQ(Cmd({"ADD", "http://a.com/u", "http://a.com/unknown"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/u")["depth"], "1");
  ASSERT_EQ(Cmd({"ADD", "http://a.com/e", ""}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/e")["depth"], "1");
  ASSERT_EQ(Cmd({"ADD", "http://a.com/z", "HTTP://A.COM:80/x#f"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/z")["depth"], "3");
}

TEST_F(AddTest, DepthUsesThePublicSuffixList) {
  ASSERT_EQ(Cmd({"ADD", "http://foo.example.co.uk/"}), Int(1));
  // Same registrable domain example.co.uk.
  ASSERT_EQ(
      Cmd({"ADD", "http://bar.example.co.uk/", "http://foo.example.co.uk/"}),
      Int(1));
  EXPECT_EQ(UrlInfo("http://bar.example.co.uk/")["depth"], "2");
  // other.co.uk shares only the public suffix co.uk.
  ASSERT_EQ(Cmd({"ADD", "http://other.co.uk/", "http://foo.example.co.uk/"}),
            Int(1));
  EXPECT_EQ(UrlInfo("http://other.co.uk/")["depth"], "1");
}

class AddHostScopeTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    args.insert(args.end(), {"--depth-scope", "host"});
    return args;
  }
};

TEST_F(AddHostScopeTest, OtherHostOfTheDomainStartsAtOne) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/x", "http://a.com/"}), Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/x")["depth"], "2");
  ASSERT_EQ(Cmd({"ADD", "http://www.a.com/y", "http://a.com/x"}), Int(1));
  EXPECT_EQ(UrlInfo("http://www.a.com/y")["depth"], "1");
}

class AddMaxDepthTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    args.insert(args.end(), {"--max-depth", "2"});
    return args;
  }
};

TEST_F(AddMaxDepthTest, TooDeepIsRefusedAndNotStored) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/2", "http://a.com/1"}), Int(1));
  EXPECT_EQ(Cmd({"ADD", "http://a.com/3", "http://a.com/2"}), Int(-1));
  EXPECT_EQ(Cmd({"SEEN", "http://a.com/3"}), Int(0));
  EXPECT_EQ(Cmd({"URLINFO", "http://a.com/3"}), Nil());
  // Refused URLs are not remembered: from a shallow ref it is new.
  EXPECT_EQ(Cmd({"ADD", "http://a.com/3", "http://a.com/1"}), Int(1));
  // Another domain starts at depth 1 whatever the ref's depth.
  EXPECT_EQ(Cmd({"ADD", "http://b.com/", "http://a.com/2"}), Int(1));
  auto s = Stats();
  EXPECT_EQ(s["refused"], 1);
  EXPECT_EQ(s["urls"], 4);
  EXPECT_EQ(s["added"], 4);
}

TEST_F(AddTest, DefaultMaxDepthIsSixteen) {
  std::string ref;
  for (int depth = 1; depth <= 16; ++depth) {
    std::string url = "http://deep.com/" + std::to_string(depth);
    ASSERT_EQ(Cmd({"ADD", url, ref}), Int(1)) << depth;
    ref = url;
  }
  EXPECT_EQ(UrlInfo(ref)["depth"], "16");
  EXPECT_EQ(Cmd({"ADD", "http://deep.com/17", ref}), Int(-1));
}

class AddUnlimitedDepthTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    args.insert(args.end(), {"--max-depth", "0"});
    return args;
  }
};

TEST_F(AddUnlimitedDepthTest, ZeroMeansUnlimited) {
  std::string ref;
  for (int depth = 1; depth <= 25; ++depth) {
    std::string url = "http://deep.com/" + std::to_string(depth);
    ASSERT_EQ(Cmd({"ADD", url, ref}), Int(1)) << depth;
    ref = url;
  }
  EXPECT_EQ(UrlInfo(ref)["depth"], "25");
}

class AddSiteMaxUrlsTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    args.insert(args.end(), {"--site-max-urls", "2"});
    return args;
  }
};

TEST_F(AddSiteMaxUrlsTest, SiteVolumeLimit) {
  EXPECT_EQ(Cmd({"ADD", "http://a.com/1"}), Int(1));
  EXPECT_EQ(Cmd({"ADD", "http://a.com/2"}), Int(1));
  EXPECT_EQ(Cmd({"ADD", "http://a.com/3"}), Int(-1));
  EXPECT_EQ(Cmd({"SEEN", "http://a.com/3"}), Int(0));
  // A known URL of a full site is still just known.
  EXPECT_EQ(Cmd({"ADD", "http://a.com/1"}), Int(0));
  // Sites are hosts by default (politeness-scope host).
  EXPECT_EQ(Cmd({"ADD", "http://www.a.com/1"}), Int(1));
  EXPECT_EQ(Cmd({"ADD", "http://b.com/1"}), Int(1));
  // Done URLs still count: the limit is on what the site holds.
  ASSERT_EQ(Cmd({"CONFIRM", "http://a.com/1"}), Int(1));
  EXPECT_EQ(Cmd({"ADD", "http://a.com/4"}), Int(-1));
  EXPECT_EQ(Stats()["refused"], 2);
}

class AddSiteMaxUrlsDomainTest : public FrontierdTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    auto args = DefaultTestArgs();
    args.insert(args.end(),
                {"--site-max-urls", "2", "--politeness-scope", "domain"});
    return args;
  }
};

TEST_F(AddSiteMaxUrlsDomainTest, SiteIsTheRegistrableDomain) {
  EXPECT_EQ(Cmd({"ADD", "http://a.com/1"}), Int(1));
  EXPECT_EQ(Cmd({"ADD", "http://www.a.com/1"}), Int(1));
  EXPECT_EQ(Cmd({"ADD", "http://blog.a.com/1"}), Int(-1));
  EXPECT_EQ(Cmd({"ADD", "http://b.com/1"}), Int(1));
}

TEST_F(AddTest, MaddAddsThePageLinks) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/"}), Int(1));
  Reply r = Cmd({"MADD", "http://a.com/", "http://a.com/1", "http://a.com/2",
                 "ftp://a.com/file", "http://a.com/1", "http://a.com/",
                 "http://b.com/"});
  ASSERT_TRUE(r.IsArray()) << r;
  ASSERT_EQ(r.elements.size(), 6u) << r;
  EXPECT_EQ(r.elements[0], Int(1));
  EXPECT_EQ(r.elements[1], Int(1));
  EXPECT_TRUE(IsErrorStartingWith(r.elements[2], "ERR invalid URL: "));
  EXPECT_EQ(r.elements[3], Int(0));  // a repeat within one MADD is known
  EXPECT_EQ(r.elements[4], Int(0));  // the ref itself
  EXPECT_EQ(r.elements[5], Int(1));
  EXPECT_EQ(UrlInfo("http://a.com/1")["depth"], "2");
  EXPECT_EQ(UrlInfo("http://a.com/2")["depth"], "2");
  EXPECT_EQ(UrlInfo("http://b.com/")["depth"], "1");
  EXPECT_EQ(Cmd({"SEEN", "http://a.com/2"}), Int(1));
  auto s = Stats();
  EXPECT_EQ(s["urls"], 4);
  EXPECT_EQ(s["added"], 4);
  EXPECT_EQ(s["duplicates"], 2);
}

TEST_F(AddTest, MaddWithEmptyRef) {
  Reply r = Cmd({"MADD", "", "http://a.com/", "http://a.com/x"});
  EXPECT_EQ(r, Array({Int(1), Int(1)}));
  EXPECT_EQ(UrlInfo("http://a.com/x")["depth"], "1");
  EXPECT_EQ(Cmd({"MADD", "http://a.com/"}),
            Error("ERR wrong number of arguments for 'madd' command"));
}

TEST_F(AddMaxDepthTest, MaddRefusesTooDeepLinks) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/2", "http://a.com/1"}), Int(1));
  Reply r = Cmd({"MADD", "http://a.com/2", "http://a.com/3", "http://c.com/",
                 "http://a.com/1"});
  EXPECT_EQ(r, Array({Int(-1), Int(1), Int(0)}));
  EXPECT_EQ(Cmd({"SEEN", "http://a.com/3"}), Int(0));
}

TEST_F(AddTest, CountersCountUrls) {
  ASSERT_EQ(Cmd({"ADD", "http://a.com/1"}), Int(1));
  ASSERT_EQ(Cmd({"ADD", "http://a.com/1"}), Int(0));
  ASSERT_TRUE(
      Cmd({"MADD", "", "http://a.com/2", "http://b.com/", "http://a.com/1"})
          .IsArray());
  auto s = Stats();
  EXPECT_EQ(s["urls"], 3);
  EXPECT_EQ(s["queued"], 3);
  EXPECT_EQ(s["added"], 3);
  EXPECT_EQ(s["duplicates"], 2);
  EXPECT_EQ(s["refused"], 0);
  EXPECT_EQ(s["sites"], 2);
}

}  // namespace
}  // namespace frontier::itest
