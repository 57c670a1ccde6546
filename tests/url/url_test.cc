// Tests for url/url.h: which spellings are one URL, which URLs are
// refused and why, and which site a host belongs to.
#include "url/url.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace frontier {
namespace {

constexpr size_t kMax = 8192;

// The normalised URL, or a test failure naming the refusal.
std::string Norm(std::string_view raw, size_t max_length = kMax) {
  StatusOr<NormalizedUrl> result = NormalizeUrl(raw, max_length);
  if (!result.ok()) {
    ADD_FAILURE() << "refused '" << raw << "': " << result.status().ToString();
    return "<refused>";
  }
  return result->url;
}

std::string Host(std::string_view raw) {
  StatusOr<NormalizedUrl> result = NormalizeUrl(raw, kMax);
  if (!result.ok()) {
    ADD_FAILURE() << "refused '" << raw << "': " << result.status().ToString();
    return "<refused>";
  }
  return result->host;
}

// The refusal message, or a test failure naming what was accepted.
std::string Refusal(std::string_view raw, size_t max_length = kMax) {
  StatusOr<NormalizedUrl> result = NormalizeUrl(raw, max_length);
  if (result.ok()) {
    ADD_FAILURE() << "accepted '" << raw << "' as '" << result->url << "'";
    return "<accepted>";
  }
  EXPECT_TRUE(result.status().IsInvalidArgument())
      << result.status().ToString();
  return result.status().message();
}

// RFC 3986 section 6.2.2.

TEST(NormalizeUrlTest, CaseOfSchemeAndHostIsLowered) {
  EXPECT_EQ(Norm("HTTP://www.Example.com/"), "http://www.example.com/");
  EXPECT_EQ(Norm("HTTP://www.Example.com/"), Norm("http://www.example.com/"));
  EXPECT_EQ(Norm("hTTpS://WWW.EXAMPLE.COM/"), "https://www.example.com/");
}

TEST(NormalizeUrlTest, PercentEscapesOfUnreservedCharactersAreDecoded) {
  EXPECT_EQ(Norm("http://example.com/%7Euser"), "http://example.com/~user");
  EXPECT_EQ(Norm("http://example.com/%7euser"), "http://example.com/~user");
  EXPECT_EQ(Norm("http://example.com/%41%2d%2E%5f%30"),
            "http://example.com/A-._0");
  EXPECT_EQ(Norm("http://example.com/?q=%7E%61"), "http://example.com/?q=~a");
  EXPECT_EQ(Norm("http://%65xample.com/"), "http://example.com/");
}

TEST(NormalizeUrlTest, OtherPercentEscapesAreUpperCasedNotDecoded) {
  EXPECT_EQ(Norm("http://example.com/a%3ab"), "http://example.com/a%3Ab");
  EXPECT_EQ(Norm("http://example.com/a%2fb"), "http://example.com/a%2Fb");
  EXPECT_EQ(Norm("http://example.com/?x=%3a%2f%c3%a9"),
            "http://example.com/?x=%3A%2F%C3%A9");
}

TEST(NormalizeUrlTest, DotSegmentsAreRemoved) {
  EXPECT_EQ(Norm("http://example.com/a/./b/../c"), "http://example.com/a/c");
  // RFC 3986 section 5.2.4's examples.
  EXPECT_EQ(Norm("http://example.com/a/b/c/./../../g"),
            "http://example.com/a/g");
  EXPECT_EQ(Norm("http://example.com/mid/content=5/../6"),
            "http://example.com/mid/6");
  EXPECT_EQ(Norm("http://example.com/../../x"), "http://example.com/x");
  EXPECT_EQ(Norm("http://example.com/a/b/.."), "http://example.com/a/");
}

TEST(NormalizeUrlTest, PathCaseSlashesAndQueryAreKept) {
  EXPECT_EQ(Norm("http://example.com/Path/To/File.HTML"),
            "http://example.com/Path/To/File.HTML");
  EXPECT_EQ(Norm("http://example.com/a//b/"), "http://example.com/a//b/");
  EXPECT_EQ(Norm("http://example.com/p?b=2&a=1&B=3&a=0"),
            "http://example.com/p?b=2&a=1&B=3&a=0");
  EXPECT_EQ(Norm("http://example.com/p?a=b/../c"),
            "http://example.com/p?a=b/../c");
}

// RFC 3986 section 6.2.3.

TEST(NormalizeUrlTest, DefaultPortIsDropped) {
  EXPECT_EQ(Norm("http://example.com:80/x"), "http://example.com/x");
  EXPECT_EQ(Norm("https://example.com:443/x"), "https://example.com/x");
  EXPECT_EQ(Norm("HTTPS://example.com:443"), "https://example.com/");
  EXPECT_EQ(Norm("http://example.com:080/"), "http://example.com/");
  EXPECT_EQ(Norm("http://example.com:/x"), "http://example.com/x");
  EXPECT_EQ(Norm("http://example.com:"), "http://example.com/");
}

TEST(NormalizeUrlTest, OtherPortsAreKept) {
  EXPECT_EQ(Norm("http://example.com:8080/x"), "http://example.com:8080/x");
  EXPECT_EQ(Norm("http://example.com:443/"), "http://example.com:443/");
  EXPECT_EQ(Norm("https://example.com:80/"), "https://example.com:80/");
  EXPECT_EQ(Norm("http://example.com:08080/"), "http://example.com:8080/");
  EXPECT_EQ(Norm("http://example.com:1/"), "http://example.com:1/");
  EXPECT_EQ(Norm("http://example.com:65535/"), "http://example.com:65535/");
  EXPECT_EQ(Host("http://example.com:8080/"), "example.com");
}

TEST(NormalizeUrlTest, FragmentIsDropped) {
  EXPECT_EQ(Norm("http://example.com/p#frag"), "http://example.com/p");
  EXPECT_EQ(Norm("http://example.com/p?q=1#frag"), "http://example.com/p?q=1");
  EXPECT_EQ(Norm("http://example.com/#"), "http://example.com/");
  EXPECT_EQ(Norm("http://example.com#top"), "http://example.com/");
  EXPECT_EQ(Norm("http://example.com/p#a%7e"), "http://example.com/p");
}

TEST(NormalizeUrlTest, EmptyPathBecomesSlash) {
  EXPECT_EQ(Norm("http://example.com"), "http://example.com/");
  EXPECT_EQ(Norm("http://example.com?q=1"), "http://example.com/?q=1");
  EXPECT_EQ(Norm("http://example.com:8080"), "http://example.com:8080/");
  EXPECT_EQ(Norm("http://user@example.com"), "http://user@example.com/");
  EXPECT_EQ(Norm("http://example.com"), Norm("http://example.com/"));
}

TEST(NormalizeUrlTest, EmptyQueryIsKept) {
  EXPECT_EQ(Norm("http://example.com/?"), "http://example.com/?");
  EXPECT_EQ(Norm("http://example.com?"), "http://example.com/?");
  EXPECT_NE(Norm("http://example.com/?"), Norm("http://example.com/"));
}

TEST(NormalizeUrlTest, UserinfoIsKeptWithItsCase) {
  EXPECT_EQ(Norm("http://User:P%3a@Example.com/"),
            "http://User:P%3A@example.com/");
  EXPECT_EQ(Host("http://User:P%3a@Example.com/"), "example.com");
}

TEST(NormalizeUrlTest, HostIsLowerCaseWithoutPort) {
  EXPECT_EQ(Host("HTTP://WWW.Example.COM:8080/x"), "www.example.com");
  EXPECT_EQ(Host("http://a.b.example.co.uk/"), "a.b.example.co.uk");
}

TEST(NormalizeUrlTest, Ipv4Host) {
  EXPECT_EQ(Norm("http://192.168.0.1:8080/x"), "http://192.168.0.1:8080/x");
  EXPECT_EQ(Host("http://192.168.0.1:8080/x"), "192.168.0.1");
  EXPECT_EQ(Norm("http://127.0.0.1:80"), "http://127.0.0.1/");
}

TEST(NormalizeUrlTest, Ipv6HostTakesItsShortForm) {
  EXPECT_EQ(Norm("http://[::1]/"), "http://[::1]/");
  EXPECT_EQ(Host("http://[::1]/"), "[::1]");
  EXPECT_EQ(Norm("http://[2001:DB8:0:0::1]:80/x"), "http://[2001:db8::1]/x");
  EXPECT_EQ(Host("http://[2001:DB8:0:0::1]:80/x"), "[2001:db8::1]");
  EXPECT_EQ(Norm("https://[0:0:0:0:0:0:0:1]:8443"), "https://[::1]:8443/");
  EXPECT_EQ(Norm("http://u@[::1]:81?q"), "http://u@[::1]:81/?q");
}

TEST(NormalizeUrlTest, NonAsciiOutsideTheHostIsPercentEncoded) {
  EXPECT_EQ(Norm("http://example.com/caf\xC3\xA9?q=\xC3\xA9#\xC3\xA9"),
            "http://example.com/caf%C3%A9?q=%C3%A9");
  EXPECT_EQ(Norm("http://example.com/caf\xC3\xA9"),
            Norm("http://example.com/caf%c3%a9"));
  EXPECT_EQ(Norm("http://\xC3\xA9@example.com/"), "http://%C3%A9@example.com/");
}

// IDN hosts: UTS #46 non-transitional, as browsers request them.

TEST(NormalizeUrlTest, IdnHostsTakeTheirAsciiForm) {
  EXPECT_EQ(Norm("http://b\xC3\xBC"
                 "cher.example/"),
            "http://xn--bcher-kva.example/");
  EXPECT_EQ(Host("http://B\xC3\x9C"
                 "CHER.example:8080/"),
            "xn--bcher-kva.example");
  EXPECT_EQ(Norm("http://example.\xE4\xB8\xAD\xE5\x9B\xBD:8080/"),
            "http://example.xn--fiqs8s:8080/");
  // Non-transitional: "ß" is a letter of its own, not "ss".
  EXPECT_EQ(Norm("http://fa\xC3\x9F.de/"), "http://xn--fa-hia.de/");
  // Escaped UTF-8 is the same host; the full stop U+3002 separates labels.
  EXPECT_EQ(Norm("http://%C3%A9.com/"), "http://xn--9ca.com/");
  EXPECT_EQ(Norm("http://a\xE3\x80\x82"
                 "b.com/"),
            "http://a.b.com/");
  EXPECT_EQ(Norm("http://xn--caf-dma.com/"), "http://xn--caf-dma.com/");
  EXPECT_EQ(Norm("http://XN--CAF-DMA.com/"), "http://xn--caf-dma.com/");
}

TEST(NormalizeUrlTest, SitesOfIdnHostsAreTheirAsciiForm) {
  StatusOr<NormalizedUrl> url = NormalizeUrl(
      "http://www.b\xC3\xBC"
      "cher.co.uk/",
      kMax);
  ASSERT_TRUE(url.ok()) << url.status().ToString();
  EXPECT_EQ(SiteOf(url->host, SiteScope::kDomain), "xn--bcher-kva.co.uk");
  // Public suffixes that are IDNs themselves: "中国" and "公司.cn".
  url = NormalizeUrl("http://www.example.\xE4\xB8\xAD\xE5\x9B\xBD/", kMax);
  ASSERT_TRUE(url.ok()) << url.status().ToString();
  EXPECT_EQ(SiteOf(url->host, SiteScope::kDomain), "example.xn--fiqs8s");
  url = NormalizeUrl("http://a.b.\xE5\x85\xAC\xE5\x8F\xB8.cn/", kMax);
  ASSERT_TRUE(url.ok()) << url.status().ToString();
  EXPECT_EQ(SiteOf(url->host, SiteScope::kDomain), "b.xn--55qx5d.cn");
}

TEST(NormalizeUrlTest, InvalidIdnHostsAreRefusedWithTheReason) {
  // A punycode label that does not decode (in a host with non-ASCII text:
  // an all-ASCII host is only lower-cased, below), a zero-width joiner
  // where no script needs one, a symbol IDNA2008 disallows.
  EXPECT_EQ(Refusal("http://\xC3\xBC.xn--a.com/").substr(0, 32),
            "invalid IDN host '\xC3\xBC.xn--a.com':");
  // As in the Standard since 2025 (web-platform-tests urltestdata.json).
  for (const char* ascii :
       {"http://xn--a.com/", "http://a.b.c.xn--pokxncvks/", "http://xn--.com/"}) {
    auto url = NormalizeUrl(ascii, kMax);
    ASSERT_TRUE(url.ok()) << ascii << ": " << url.status().ToString();
    EXPECT_EQ(url->url, ascii);
  }
  // A NUL in an IDN host is refused, not cut off where libidn2 stops.
  EXPECT_EQ(Refusal("https://%C3%A9%00/"),
            "invalid host '%C3%A9%00': control character 0x00 cannot appear "
            "in a host name");
  auto upper = NormalizeUrl("http://A.B.C.XN--POKXNCVKS/", kMax);
  ASSERT_TRUE(upper.ok());
  EXPECT_EQ(upper->url, "http://a.b.c.xn--pokxncvks/");
  EXPECT_EQ(Refusal("http://a\xE2\x80\x8D"
                    "b.com/"),
            "invalid IDN host 'a\xE2\x80\x8D"
            "b.com': string contains a "
            "forbidden context-j character (IDNA2008, UTS #46)");
  EXPECT_EQ(Refusal("http://\xE2\x98\x83.com/"),
            "invalid IDN host '\xE2\x98\x83.com': string contains a "
            "disallowed character (IDNA2008, UTS #46)");
  EXPECT_EQ(Refusal("http://%FF.com/"),
            "invalid host '%FF.com': its percent-escapes are not UTF-8 text");
}

TEST(NormalizeUrlTest, RightToLeftDomainsFollowTheBidiRule) {
  // Hebrew "אב": a right-to-left label makes every label subject to RFC
  // 5893, as browsers apply it.
  EXPECT_EQ(Norm("http://www.\xD7\x90\xD7\x91.com/"),
            "http://www.xn--4dbc.com/");
  const std::string bidi =
      "a label breaks the bidi rule of a right-to-left domain (UTS #46 "
      "CheckBidi, RFC 5893)";
  EXPECT_EQ(Refusal("http://_a.\xD7\x90/"),
            "invalid IDN host '_a.\xD7\x90': " + bidi);
  EXPECT_EQ(Refusal("http://a-.\xD7\x90/"),
            "invalid IDN host 'a-.\xD7\x90': " + bidi);
  // European and Arabic-Indic digits in one right-to-left label.
  EXPECT_EQ(Refusal("http://\xD7\x90\xD9\xA1"
                    "0/"),
            "invalid IDN host '\xD7\x90\xD9\xA1"
            "0': " +
                bidi);
  // A left-to-right label ending in a hyphen and a combining mark: the
  // marks after the last character do not hide its class (found by the
  // reference test with another seed).
  EXPECT_EQ(Refusal("https://\xD7\x90.a-\xCC\x81/"),
            "invalid IDN host '\xD7\x90.a-\xCC\x81': " + bidi);
  EXPECT_EQ(Norm("https://\xD7\x90.a\xCC\x81/"),
            "https://xn--4db.xn--1ca/");
  // The same labels outside a right-to-left domain are fine.
  EXPECT_EQ(Norm("http://_a.example/"), "http://_a.example/");
}

TEST(NormalizeUrlTest, Ipv4HostsInOtherSpellingsAreDottedDecimal) {
  EXPECT_EQ(Norm("http://0x7f.1/"), "http://127.0.0.1/");
  EXPECT_EQ(Norm("http://2130706433/"), "http://127.0.0.1/");
  EXPECT_EQ(Norm("http://0300.0250.1.1/"), "http://192.168.1.1/");
  EXPECT_EQ(Norm("http://127.1:8080/x"), "http://127.0.0.1:8080/x");
  EXPECT_EQ(Norm("http://1.2.3.4./"), "http://1.2.3.4/");
  EXPECT_EQ(Host("http://0x7F000001/"), "127.0.0.1");
  EXPECT_EQ(Refusal("http://256.1.1.1/"),
            "invalid host '256.1.1.1': IPv4 part above 255");
  EXPECT_EQ(Refusal("http://4294967296/"),
            "invalid host '4294967296': IPv4 address too large");
  EXPECT_EQ(Refusal("http://1.2.3.4.5/"),
            "invalid host '1.2.3.4.5': an IPv4 address has at most four parts");
  EXPECT_EQ(Refusal("http://example.1/"),
            "invalid host 'example.1': it ends in a number, so it must be an "
            "IPv4 address, and 'example' is not a number");
}

// The URL Standard's leniency.

TEST(NormalizeUrlTest, SpacesAndControlsAreTrimmedOrEscaped) {
  EXPECT_EQ(Norm("http://example.org/a b"), "http://example.org/a%20b");
  EXPECT_EQ(Norm("  \x01http://example.com/\x1F "), "http://example.com/");
  EXPECT_EQ(Norm("ht\ttp://exa\nmple.com/a\rb\t"), "http://example.com/ab");
  EXPECT_EQ(Norm("http://example.com/\x7F"), "http://example.com/%7F");
  EXPECT_EQ(Norm(std::string_view("http://example.com/\0x", 21)),
            "http://example.com/%00x");
  EXPECT_EQ(Norm("http://example.com/?a b"), "http://example.com/?a%20b");
  EXPECT_EQ(
      Refusal("http://exa mple.com/"),
      "invalid host 'exa mple.com': a space cannot appear in a host name");
  EXPECT_EQ(Refusal("http://a%0Ab.com/"),
            "invalid host 'a%0Ab.com': control character 0x0A cannot appear "
            "in a host name");
}

TEST(NormalizeUrlTest, BackslashesAndMissingSlashesAreSlashes) {
  EXPECT_EQ(Norm("http:\\\\example.com\\a\\b"), "http://example.com/a/b");
  EXPECT_EQ(Norm("http:example.com"), "http://example.com/");
  EXPECT_EQ(Norm("https:///example.com//a"), "https://example.com//a");
  EXPECT_EQ(Norm("http://example.com/?a\\b"), "http://example.com/?a%5Cb");
}

TEST(NormalizeUrlTest, CharactersRfc3986ForbidsAreEscaped) {
  // The Standard escapes '"', '<', '>', '`', '{', '}' in a path; frontierd
  // also escapes '[', ']', '|' and '^', which a browser sends raw.
  EXPECT_EQ(Norm("http://example.com/\"<>`{}[]|^"),
            "http://example.com/%22%3C%3E%60%7B%7D%5B%5D%7C%5E");
  EXPECT_EQ(Norm("http://example.com/?'\"<>`{}[]|^"),
            "http://example.com/?%27%22%3C%3E%60%7B%7D%5B%5D%7C%5E");
  // A '%' that starts no escape is a literal '%'.
  EXPECT_EQ(Norm("http://example.com/%zz?%"), "http://example.com/%25zz?%25");
  EXPECT_EQ(Norm("http://example.com/\xC3\xA9<"),
            "http://example.com/%C3%A9%3C");
}

TEST(NormalizeUrlTest, UserinfoTakesTheStandardsForm) {
  EXPECT_EQ(Norm("http://@example.com/"), "http://example.com/");
  EXPECT_EQ(Norm("http://:@example.com/"), "http://example.com/");
  EXPECT_EQ(Norm("http://u:@example.com/"), "http://u@example.com/");
  EXPECT_EQ(Norm("http://a@b:c:d@example.com/"),
            "http://a%40b:c%3Ad@example.com/");
  EXPECT_EQ(Norm("http://u s\"er@example.com/"),
            "http://u%20s%22er@example.com/");
}

TEST(NormalizeUrlTest, DotSegmentsMayBeEscaped) {
  EXPECT_EQ(Norm("http://example.com/a/%2e/b/%2E%2e/c"),
            "http://example.com/a/c");
  EXPECT_EQ(Norm("http://example.com/a/.%2E"), "http://example.com/");
  EXPECT_EQ(Norm("http://example.com/a/b/."), "http://example.com/a/b/");
}

// Refusals.

TEST(NormalizeUrlTest, RefusesEmptyInput) {
  EXPECT_EQ(Refusal(""), "empty URL");
}

TEST(NormalizeUrlTest, RefusesBytesThatAreNotUtf8) {
  const std::string kHint =
      " (percent-encode bytes that are not UTF-8 text, e.g. %FF)";
  // Latin-1, a stray continuation byte, a cut sequence, an overlong "/",
  // a UTF-16 surrogate, a code point past U+10FFFF, and 0xFF.
  EXPECT_EQ(Refusal("http://example.com/caf\xE9"),
            "invalid UTF-8 at offset 22" + kHint);
  EXPECT_EQ(Refusal("http://example.com/\x80"),
            "invalid UTF-8 at offset 19" + kHint);
  EXPECT_EQ(Refusal("http://example.com/\xE2\x82"),
            "invalid UTF-8 at offset 19" + kHint);
  EXPECT_EQ(Refusal("http://example.com/\xC0\xAF"),
            "invalid UTF-8 at offset 19" + kHint);
  EXPECT_EQ(Refusal("http://example.com/\xED\xA0\x80"),
            "invalid UTF-8 at offset 19" + kHint);
  EXPECT_EQ(Refusal("http://example.com/\xF4\x90\x80\x80"),
            "invalid UTF-8 at offset 19" + kHint);
  EXPECT_EQ(Refusal("http://\xFF.example/"),
            "invalid UTF-8 at offset 7" + kHint);
  // Valid UTF-8 of every length is still accepted, and %FF is a byte.
  EXPECT_EQ(Norm("http://example.com/\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"),
            "http://example.com/%C3%A9%E2%82%AC%F0%9F%98%80");
  EXPECT_EQ(Norm("http://example.com/%ff"), "http://example.com/%FF");
}

TEST(NormalizeUrlTest, RefusesMalformedHostsAndPorts) {
  EXPECT_EQ(Refusal("http://[::1/"),
            "invalid host '[::1': an IPv6 address must end with ']'");
  EXPECT_EQ(Refusal("http://[::1::2]/"),
            "invalid host '[::1::2]': not an IPv6 address");
  EXPECT_EQ(Refusal("http://example.com:8a/"),
            "invalid port '8a': not a number");
  EXPECT_EQ(Refusal("http://a<b.com/"),
            "invalid host 'a<b.com': '<' cannot appear in a host name");
  // The Standard allows these four in a host; no DNS name has them.
  EXPECT_EQ(Refusal("http://a{b}.com/"),
            "invalid host 'a{b}.com': '{' cannot appear in a host name");
}

TEST(NormalizeUrlTest, RefusesRelativeReferences) {
  const std::string message =
      "relative URL reference: an absolute http or https URL is required";
  EXPECT_EQ(Refusal("/a/b"), message);
  EXPECT_EQ(Refusal("a/b"), message);
  EXPECT_EQ(Refusal("//example.com/a"), message);
  EXPECT_EQ(Refusal("?q=1"), message);
  EXPECT_EQ(Refusal("example.com"), message);
}

TEST(NormalizeUrlTest, RefusesOtherSchemes) {
  EXPECT_EQ(Refusal("ftp://example.com/"), "unsupported scheme 'ftp'");
  EXPECT_EQ(Refusal("FTP://example.com/"), "unsupported scheme 'ftp'");
  EXPECT_EQ(Refusal("mailto:a@example.com"), "unsupported scheme 'mailto'");
  EXPECT_EQ(Refusal("javascript:alert(1)"), "unsupported scheme 'javascript'");
  EXPECT_EQ(Refusal("httpx://example.com/"), "unsupported scheme 'httpx'");
}

TEST(NormalizeUrlTest, RefusesUrlsWithoutHost) {
  // "http:///path" is not one of them: the Standard skips any number of
  // slashes, so its host is "path".
  EXPECT_EQ(Norm("http:///path"), "http://path/");
  EXPECT_EQ(Refusal("http://"), "URL has no host");
  EXPECT_EQ(Refusal("http://?q"), "URL has no host");
  EXPECT_EQ(Refusal("https://"), "URL has no host");
  EXPECT_EQ(Refusal("http://user@/p"), "URL has no host");
  EXPECT_EQ(Refusal("http://:80/"), "URL has no host");
}

TEST(NormalizeUrlTest, RefusesBadPorts) {
  EXPECT_EQ(Refusal("http://example.com:0/"),
            "invalid port '0': must be 1 to 65535");
  EXPECT_EQ(Refusal("http://example.com:000/"),
            "invalid port '000': must be 1 to 65535");
  EXPECT_EQ(Refusal("http://example.com:65536/"),
            "invalid port '65536': must be 1 to 65535");
  EXPECT_EQ(Refusal("http://example.com:99999999999999999999/"),
            "invalid port '99999999999999999999': must be 1 to 65535");
}

TEST(NormalizeUrlTest, RefusesIpvFutureHosts) {
  EXPECT_EQ(Refusal("http://[v1.fe80::a+en1]/"),
            "invalid host '[v1.fe80::a+en1]': not an IPv6 address");
}

TEST(NormalizeUrlTest, MaxLengthAppliesToTheInput) {
  const std::string url = "http://example.com/abc";  // 22 bytes
  EXPECT_EQ(Norm(url, 22), url);
  EXPECT_EQ(Refusal(url, 21), "URL is longer than 21 bytes");
  // Checked before anything else, so even garbage gets this message.
  EXPECT_EQ(Refusal(std::string(100, ' '), 99), "URL is longer than 99 bytes");
}

TEST(NormalizeUrlTest, MaxLengthAppliesToTheResult) {
  // Shrinks to 19 bytes: the input limit is the one that counts.
  EXPECT_EQ(Norm("http://example.com:80/", 22), "http://example.com/");
  EXPECT_EQ(Refusal("http://example.com:80/", 21),
            "URL is longer than 21 bytes");
  // Grows from 18 to 19 bytes.
  EXPECT_EQ(Norm("http://example.com", 19), "http://example.com/");
  EXPECT_EQ(Refusal("http://example.com", 18),
            "URL is longer than 18 bytes once normalised");
  // Percent-encoding non-ASCII grows the URL: 21 raw bytes, 25 normalised.
  EXPECT_EQ(Norm("http://example.com/\xC3\xA9", 25),
            "http://example.com/%C3%A9");
  EXPECT_EQ(Refusal("http://example.com/\xC3\xA9", 24),
            "URL is longer than 24 bytes once normalised");
}

// Site identity.

TEST(SiteOfTest, HostScopeIsTheHost) {
  EXPECT_EQ(SiteOf("a.b.example.co.uk", SiteScope::kHost), "a.b.example.co.uk");
  EXPECT_EQ(SiteOf("www.example.com", SiteScope::kHost), "www.example.com");
  EXPECT_EQ(SiteOf("[::1]", SiteScope::kHost), "[::1]");
}

TEST(SiteOfTest, DomainScopeIsTheRegistrableDomain) {
  EXPECT_EQ(SiteOf("a.b.example.co.uk", SiteScope::kDomain), "example.co.uk");
  EXPECT_EQ(SiteOf("www.example.com", SiteScope::kDomain), "example.com");
  EXPECT_EQ(SiteOf("example.com", SiteScope::kDomain), "example.com");
  EXPECT_EQ(SiteOf("news.bbc.co.uk", SiteScope::kDomain), "bbc.co.uk");
}

TEST(SiteOfTest, HostsWithoutRegistrableDomainAreTheirOwnSite) {
  EXPECT_EQ(SiteOf("127.0.0.1", SiteScope::kDomain), "127.0.0.1");
  EXPECT_EQ(SiteOf("192.168.10.20", SiteScope::kDomain), "192.168.10.20");
  EXPECT_EQ(SiteOf("[::1]", SiteScope::kDomain), "[::1]");
  EXPECT_EQ(SiteOf("[2001:db8::1]", SiteScope::kDomain), "[2001:db8::1]");
  EXPECT_EQ(SiteOf("localhost", SiteScope::kDomain), "localhost");
  EXPECT_EQ(SiteOf("co.uk", SiteScope::kDomain), "co.uk");
  EXPECT_EQ(SiteOf("com", SiteScope::kDomain), "com");
  EXPECT_EQ(SiteOf("", SiteScope::kDomain), "");
}

TEST(SiteOfTest, WorksOnNormalizedHosts) {
  StatusOr<NormalizedUrl> url =
      NormalizeUrl("HTTP://Shop.Example.CO.UK:8080/x", kMax);
  ASSERT_TRUE(url.ok()) << url.status().ToString();
  EXPECT_EQ(SiteOf(url->host, SiteScope::kDomain), "example.co.uk");
  EXPECT_EQ(SiteOf(url->host, SiteScope::kHost), "shop.example.co.uk");
}

TEST(ParseSiteScopeTest, AcceptsHostAndDomainInAnyCase) {
  SiteScope scope = SiteScope::kDomain;
  ASSERT_TRUE(ParseSiteScope("host", &scope));
  EXPECT_EQ(scope, SiteScope::kHost);
  ASSERT_TRUE(ParseSiteScope("DOMAIN", &scope));
  EXPECT_EQ(scope, SiteScope::kDomain);
  ASSERT_TRUE(ParseSiteScope("Host", &scope));
  EXPECT_EQ(scope, SiteScope::kHost);
  ASSERT_TRUE(ParseSiteScope("dOmAiN", &scope));
  EXPECT_EQ(scope, SiteScope::kDomain);
}

TEST(ParseSiteScopeTest, RefusesAnythingElseAndLeavesScopeAlone) {
  SiteScope scope = SiteScope::kHost;
  EXPECT_FALSE(ParseSiteScope("", &scope));
  EXPECT_FALSE(ParseSiteScope("hosts", &scope));
  EXPECT_FALSE(ParseSiteScope("dom", &scope));
  EXPECT_FALSE(ParseSiteScope(" domain", &scope));
  EXPECT_FALSE(ParseSiteScope("site", &scope));
  EXPECT_EQ(scope, SiteScope::kHost);
}

// NormalizeUrl skips the parse for URLs that are plainly normal already.
// On every one of these spellings, plain or nearly so, it must give exactly
// what the full path gives (or refuse exactly when it refuses).
TEST(NormalizeUrlTest, FastPathAgreesWithTheFullPath) {
  const char* urls[] = {
      "http://a.com/",
      "https://www.example.com/a/b?x=1&y=2",
      "http://a.com/a/b.html?q=a:b@c/d?e",
      "http://a.com/a//b",
      "http://a.com/~user/'()*+,;=!$&",
      "http://a.com/?",
      "http://a.com/??",
      "http://a.com/?/../x",
      "http://a.com/a?./",
      "http://a.com/.a/..b/...",
      "http://a.com/a.",
      "http://a.com/.",
      "http://a.com/..",
      "http://a.com/./a",
      "http://a.com/a/../b",
      "http://a.com/a/.?x",
      "http://a.com/a/..?x",
      "http://a.com/%41",
      "http://a.com/a%2Fb",
      "http://a.com/a#frag",
      "http://a.com/a b",
      "http://a.com",
      "http://a.com?x",
      "http://A.com/",
      "HTTP://a.com/",
      "http://a.com:80/",
      "http://a.com:8080/",
      "http://u@a.com/",
      "http://127.0.0.1/",
      "http://01.02.03.04/",
      "http://1.2.3.4.5/",
      "http://0x7f.1/",
      "http://a..b/",
      "http://-a-.com/",
      "http://a.com./",
      "http://.a.com/",
      "http://xn--caf-dma.com/",
      "http://a_b.com/",
      "http:///a",
      "http://[::1]/",
      "http://a.com/'?'",
      "http://a.com/?a='b'",
      "http://xn--a.com/",
      "http://a.xn--bcher-kva.example/",
      "http://axn--b.com/",
      "http://127.1/",
      "http://1.2.3.4/",
      "http://a.0x10/",
      "http://a.0x/",
      "http://a.0xg/",
      "http://a.1./",
      ("http://b\xC3\xBC"
       "cher.example/"),
      "https://a.com/a/b/c/d/e/f/g.html?id=123&lang=en",
  };
  for (const char* url : urls) {
    auto fast = NormalizeUrl(url, 8192);
    auto full = NormalizeUrlFully(url, 8192);
    ASSERT_EQ(fast.ok(), full.ok()) << url;
    if (!fast.ok()) {
      EXPECT_EQ(fast.status().ToString(), full.status().ToString()) << url;
      continue;
    }
    EXPECT_EQ(fast->url, full->url) << url;
    EXPECT_EQ(fast->host, full->host) << url;
  }
}

TEST(NormalizeUrlTest, FastPathKeepsTheLengthLimit) {
  EXPECT_FALSE(NormalizeUrl("http://a.com/abcdef", 12).ok());
  EXPECT_TRUE(NormalizeUrl("http://a.com/abcdef", 19).ok());
}

}  // namespace
}  // namespace frontier
