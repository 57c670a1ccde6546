// ExtractLinks and ResolveLink: the links a crawler follows from a page.
#include "worker/links.h"

#include <gtest/gtest.h>

namespace worker {
namespace {

using Links = std::vector<std::string>;

TEST(ResolveLinkTest, ResolvesAsRfc3986Section5) {
  const std::string base = "http://a/b/c/d;p?q";
  EXPECT_EQ(ResolveLink(base, "g"), "http://a/b/c/g");
  EXPECT_EQ(ResolveLink(base, "./g"), "http://a/b/c/g");
  EXPECT_EQ(ResolveLink(base, "/g"), "http://a/g");
  EXPECT_EQ(ResolveLink(base, "//g"), "http://g");
  EXPECT_EQ(ResolveLink(base, "?y"), "http://a/b/c/d;p?y");
  EXPECT_EQ(ResolveLink(base, "../../g"), "http://a/g");
  EXPECT_EQ(ResolveLink(base, "../../../g"), "http://a/g");
  EXPECT_EQ(ResolveLink(base, ""), "http://a/b/c/d;p?q");
}

TEST(ResolveLinkTest, DropsFragmentsAndOtherSchemes) {
  const std::string base = "https://example.com/dir/page";
  EXPECT_EQ(ResolveLink(base, "other#section"),
            "https://example.com/dir/other");
  EXPECT_EQ(ResolveLink(base, "#top"), "https://example.com/dir/page");
  EXPECT_EQ(ResolveLink(base, "mailto:x@example.com"), std::nullopt);
  EXPECT_EQ(ResolveLink(base, "javascript:void(0)"), std::nullopt);
  EXPECT_EQ(ResolveLink(base, "ftp://example.com/f"), std::nullopt);
  EXPECT_EQ(ResolveLink(base, "HTTP://Example.COM/x"), "http://example.com/x");
  EXPECT_EQ(ResolveLink(base, "/a/./b/../c%7e%2f"),
            "https://example.com/a/c~%2F");
  EXPECT_EQ(ResolveLink("not a url", "x"), std::nullopt);
}

TEST(ResolveLinkTest, CleansWhatBrowsersClean) {
  const std::string base = "http://h/dir/";
  EXPECT_EQ(ResolveLink(base, "  page.html \n"), "http://h/dir/page.html");
  EXPECT_EQ(ResolveLink(base, "a b"), "http://h/dir/a%20b");
  EXPECT_EQ(ResolveLink(base, "p\tq"), "http://h/dir/pq");
  EXPECT_EQ(ResolveLink(base, "caf\xc3\xa9"), "http://h/dir/caf%C3%A9");
  EXPECT_EQ(ResolveLink(base, "x%20y"), "http://h/dir/x%20y");
}

TEST(ExtractLinksTest, AnchorsAndAreasInDocumentOrderOnce) {
  std::string html =
      "<html><body><a href='/one'>1</a><p><A HREF=\"two\">2</A></p>"
      "<map><area href='three'></map><a>no href</a><a href='/one#again'>"
      "<link href='/style.css'><img src='/img.png'></body></html>";
  EXPECT_EQ(ExtractLinks(html, "http://h/d/p"),
            (Links{"http://h/one", "http://h/d/two", "http://h/d/three"}));
}

TEST(ExtractLinksTest, SpellingsOfOneLinkCountOnce) {
  std::string html =
      "<a href='/x'>1</a><a href='HTTP://H/x'>2</a><a href='./x#f'>3</a>"
      "<a href='/%78'>4</a>";
  EXPECT_EQ(ExtractLinks(html, "http://h/"), (Links{"http://h/x"}));
}

TEST(ExtractLinksTest, HonoursTheFirstBaseHref) {
  std::string html =
      "<html><head><base href='http://other/sub/'><base href='http://no/'>"
      "</head><body><a href='x'>x</a><a href='/y'>y</a>"
      "<a href='https://abs/z'>z</a></body></html>";
  EXPECT_EQ(ExtractLinks(html, "http://h/page"),
            (Links{"http://other/sub/x", "http://other/y", "https://abs/z"}));
}

TEST(ExtractLinksTest, RelativeBaseResolvesAgainstThePage) {
  std::string html = "<head><base href='/docs/'></head><a href='intro'>i</a>";
  EXPECT_EQ(ExtractLinks(html, "http://h/a/b"), (Links{"http://h/docs/intro"}));
}

TEST(ExtractLinksTest, UnusableBaseIsIgnored) {
  std::string html = "<head><base href='mailto:x'></head><a href='p'>p</a>";
  EXPECT_EQ(ExtractLinks(html, "http://h/a/b"), (Links{"http://h/a/p"}));
}

TEST(ExtractLinksTest, AnyBytesParse) {
  std::string junk = "<a href='/ok'>\x00\xff<<<</a><a href=";
  junk.push_back('\0');
  junk += "<<a href=\"/also\">";
  Links links = ExtractLinks(junk, "http://h/");
  EXPECT_EQ(links.front(), "http://h/ok");
  EXPECT_TRUE(ExtractLinks("", "http://h/").empty());
}

}  // namespace
}  // namespace worker
